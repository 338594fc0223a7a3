// dtype.hpp: element types of device arrays (i8..i64, u8..u64, f16, f32, f64): names,
// sizes, conversion from/to host numbers (f16 by hand, IEEE binary16), and which C++
// pointee spellings an array of each type may be passed as. Pure data, no driver.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warplab::cu {

enum class DType : std::uint8_t { I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64 };

struct DTypeInfo {
  DType type;
  std::string_view name;  // "f32"
  int size;               // bytes
  bool is_float;
  bool is_signed;
};

const DTypeInfo& dtype_info(DType t);
// "an" for i8..i64 and f16..f64, "a" for u8..u64: "an f32 array", "a u8 array".
std::string_view dtype_article(DType t);
// "f32" (also "float", "double", "half", "int", "uint", "int32", "uint8", ...) -> type.
std::optional<DType> parse_dtype(std::string_view name);
// "i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64" for error messages.
std::string dtype_names();

// Writes `v` to `dst` as type t. Integers: the caller has range-checked.
void store_int(DType t, void* dst, std::int64_t v);
void store_float(DType t, void* dst, double v);
// Reads one element. is_float types come back through load_float.
std::int64_t load_int(DType t, const void* src);
std::uint64_t load_uint(DType t, const void* src);
double load_float(DType t, const void* src);

// Whether integer value v fits type t ("300 does not fit u8").
bool int_fits(DType t, std::int64_t v);
// Whether a finite v stays finite as float type t (1e300 as f32, 70000 as f16 would be
// inf); an infinity or NaN fits as itself.
bool float_fits(DType t, double v);
// The largest finite value of float type t: 65504 (f16), about 3.4e38 (f32), 1.8e308 (f64).
double float_max(DType t);

std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);

// Whether an array of type t may be passed where the kernel expects a pointer to
// `pointee` (demangled spelling without const: "float", "unsigned int", "__half", "void").
bool pointee_accepts(std::string_view pointee, DType t);

}  // namespace warplab::cu
