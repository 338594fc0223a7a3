// dtype.cpp: the element-type table and host-side conversions, including IEEE
// binary16 <-> float with round-to-nearest-even, written out so no CUDA header is needed.
#include "cu/dtype.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace warplab::cu {
namespace {

constexpr std::array<DTypeInfo, 11> kTypes = {{
    {DType::I8, "i8", 1, false, true},
    {DType::I16, "i16", 2, false, true},
    {DType::I32, "i32", 4, false, true},
    {DType::I64, "i64", 8, false, true},
    {DType::U8, "u8", 1, false, false},
    {DType::U16, "u16", 2, false, false},
    {DType::U32, "u32", 4, false, false},
    {DType::U64, "u64", 8, false, false},
    {DType::F16, "f16", 2, true, true},
    {DType::F32, "f32", 4, true, true},
    {DType::F64, "f64", 8, true, true},
}};

template <class T>
T read(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void write(void* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace

const DTypeInfo& dtype_info(DType t) { return kTypes[static_cast<int>(t)]; }

std::string_view dtype_article(DType t) { return dtype_info(t).name[0] == 'u' ? "a" : "an"; }

std::optional<DType> parse_dtype(std::string_view n) {
  for (const auto& i : kTypes)
    if (i.name == n) return i.type;
  struct Alias {
    std::string_view name;
    DType t;
  };
  static constexpr Alias aliases[] = {
      {"int8", DType::I8},    {"int16", DType::I16},   {"int32", DType::I32},  {"int64", DType::I64},
      {"uint8", DType::U8},   {"uint16", DType::U16},  {"uint32", DType::U32}, {"uint64", DType::U64},
      {"half", DType::F16},   {"float16", DType::F16}, {"float", DType::F32},  {"float32", DType::F32},
      {"double", DType::F64}, {"float64", DType::F64}, {"int", DType::I32},    {"uint", DType::U32}};
  for (const auto& a : aliases)
    if (a.name == n) return a.t;
  return std::nullopt;
}

std::string dtype_names() {
  std::string s;
  for (const auto& i : kTypes) s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}

void store_int(DType t, void* d, std::int64_t v) {
  switch (t) {
    case DType::I8:
      write<std::int8_t>(d, static_cast<std::int8_t>(v));
      break;
    case DType::I16:
      write<std::int16_t>(d, static_cast<std::int16_t>(v));
      break;
    case DType::I32:
      write<std::int32_t>(d, static_cast<std::int32_t>(v));
      break;
    case DType::I64:
      write<std::int64_t>(d, v);
      break;
    case DType::U8:
      write<std::uint8_t>(d, static_cast<std::uint8_t>(v));
      break;
    case DType::U16:
      write<std::uint16_t>(d, static_cast<std::uint16_t>(v));
      break;
    case DType::U32:
      write<std::uint32_t>(d, static_cast<std::uint32_t>(v));
      break;
    case DType::U64:
      write<std::uint64_t>(d, static_cast<std::uint64_t>(v));
      break;
    default:
      store_float(t, d, static_cast<double>(v));
  }
}

void store_float(DType t, void* d, double v) {
  switch (t) {
    case DType::F16:
      write<std::uint16_t>(d, float_to_half(static_cast<float>(v)));
      break;
    case DType::F32:
      write<float>(d, static_cast<float>(v));
      break;
    case DType::F64:
      write<double>(d, v);
      break;
    default:
      store_int(t, d, static_cast<std::int64_t>(v));
  }
}

std::int64_t load_int(DType t, const void* s) {
  switch (t) {
    case DType::I8:
      return read<std::int8_t>(s);
    case DType::I16:
      return read<std::int16_t>(s);
    case DType::I32:
      return read<std::int32_t>(s);
    case DType::I64:
      return read<std::int64_t>(s);
    case DType::U8:
      return read<std::uint8_t>(s);
    case DType::U16:
      return read<std::uint16_t>(s);
    case DType::U32:
      return read<std::uint32_t>(s);
    case DType::U64:
      return static_cast<std::int64_t>(read<std::uint64_t>(s));
    default:
      return static_cast<std::int64_t>(load_float(t, s));
  }
}

std::uint64_t load_uint(DType t, const void* s) {
  return t == DType::U64 ? read<std::uint64_t>(s) : static_cast<std::uint64_t>(load_int(t, s));
}

double load_float(DType t, const void* s) {
  switch (t) {
    case DType::F16:
      return half_to_float(read<std::uint16_t>(s));
    case DType::F32:
      return read<float>(s);
    case DType::F64:
      return read<double>(s);
    default:
      return static_cast<double>(load_int(t, s));
  }
}

bool int_fits(DType t, std::int64_t v) {
  switch (t) {
    case DType::I8:
      return v >= -128 && v <= 127;
    case DType::I16:
      return v >= -32768 && v <= 32767;
    case DType::I32:
      return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
    case DType::U8:
      return v >= 0 && v <= 255;
    case DType::U16:
      return v >= 0 && v <= 65535;
    case DType::U32:
      return v >= 0 && v <= 0xFFFFFFFFll;
    case DType::U64:
      return v >= 0;
    default:
      return true;
  }
}

// binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. Round to nearest even.
bool float_fits(DType t, double v) {
  if (!std::isfinite(v) || t == DType::F64) return true;
  const float f = static_cast<float>(v);
  if (t == DType::F16) return (float_to_half(f) & 0x7fffu) != 0x7c00u;  // not +-inf
  return !std::isinf(f);
}

double float_max(DType t) {
  if (t == DType::F16) return 65504.0;
  if (t == DType::F32) return static_cast<double>(std::numeric_limits<float>::max());
  return std::numeric_limits<double>::max();
}

std::uint16_t float_to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xFFu;
  std::uint32_t man = x & 0x7FFFFFu;
  if (exp == 0xFF) return static_cast<std::uint16_t>(sign | 0x7C00u | (man ? 0x200u : 0));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);  // overflow -> inf
  if (e <= 0) {                                                    // subnormal or zero
    if (e < -10) return static_cast<std::uint16_t>(sign);
    man |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t h = man >> shift;
    const std::uint32_t rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  const std::uint32_t rem = man & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into exponent: fine
  return static_cast<std::uint16_t>(sign | h);
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  std::uint32_t out;
  if (exp == 0x1F)
    out = sign | 0x7F800000u | (man << 13);
  else if (exp != 0)
    out = sign | ((exp + 112) << 23) | (man << 13);
  else if (man == 0)
    out = sign;
  else {  // subnormal: normalize
    int e = -1;
    do {
      man <<= 1;
      ++e;
    } while (!(man & 0x400u));
    out = sign | ((112 - e) << 23) | ((man & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(out);
}

bool pointee_accepts(std::string_view p, DType t) {
  if (p == "void") return true;
  switch (t) {
    case DType::I8:
      return p == "signed char" || p == "char" || p == "int8_t";
    case DType::U8:
      return p == "unsigned char" || p == "char" || p == "uint8_t";
    case DType::I16:
      return p == "short" || p == "int16_t";
    case DType::U16:
      return p == "unsigned short" || p == "uint16_t";
    case DType::I32:
      return p == "int" || p == "int32_t";
    case DType::U32:
      return p == "unsigned int" || p == "uint32_t";
    case DType::I64:
      return p == "long" || p == "long long" || p == "int64_t";
    case DType::U64:
      return p == "unsigned long" || p == "unsigned long long" || p == "uint64_t";
    case DType::F16:
      return p == "__half" || p == "half";
    case DType::F32:
      return p == "float";
    case DType::F64:
      return p == "double";
  }
  return false;
}

}  // namespace warplab::cu
