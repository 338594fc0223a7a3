// tensor_map.cpp: cuda.tensor_map's rules, one sentence each, in the order a reader checks
// them (the array, the type, the rank, the sizes, the strides, the box, the options, the
// extent), then the driver's encode on a GPU (tensor_map.hpp). The rules are
// cuTensorMapEncodeTiled's (cuda.h), checked here so that a script hears which one it broke,
// offline too, instead of the driver's CUDA_ERROR_INVALID_VALUE.
#include "lab/tensor_map.hpp"

#include <cstdarg>
#include <cstdio>

#include "sys/text.hpp"

namespace warplab::lab {
namespace {

// Sizes up to 2^32 times strides up to 2^40: wider than 64 bits.
__extension__ typedef __int128 Wide;

[[noreturn]] [[gnu::format(printf, 1, 2)]] void refuse(const char* fmt, ...) {
  char text[400];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  throw Error(ErrorKind::bad_input, std::string("cuda.tensor_map: ") + text);
}

// The TMA element type for an array type: the same width; signed 8- and 16-bit elements
// travel as unsigned ones (a copy moves bytes; the type matters only to NaN filling).
CUtensorMapDataType tma_type(cu::DType t) {
  switch (t) {
    case cu::DType::I8:
    case cu::DType::U8:
      return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case cu::DType::I16:
    case cu::DType::U16:
      return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case cu::DType::I32:
      return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case cu::DType::U32:
      return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case cu::DType::I64:
      return CU_TENSOR_MAP_DATA_TYPE_INT64;
    case cu::DType::U64:
      return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    case cu::DType::F16:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case cu::DType::F32:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case cu::DType::F64:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

// Each entry of `v` (named `what`, 1-based in the sentence) in lo..hi.
void check_each(const std::vector<std::int64_t>& v, const char* what, std::int64_t lo, std::int64_t hi,
                const char* rule) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] < lo || v[i] > hi) refuse("%s[%zu] = %lld: %s", what, i + 1, static_cast<long long>(v[i]), rule);
}

// "{256, 1024}": the first n values of v.
template <class V>
std::string braces(const V& v, std::size_t n) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < n; ++i) items.push_back(std::to_string(v[i]));
  return "{" + sys::join(items, ", ") + "}";
}

}  // namespace

std::shared_ptr<TensorMap> make_tensor_map(const DeviceArray& a, const TensorMapRequest& r, bool encode) {
  if (a.freed()) refuse("attempt to use a freed array");
  const auto elem = static_cast<std::int64_t>(a.elem());
  const char* tname = cu::dtype_info(a.type).name.data();
  if (!r.type.empty() && r.type != tname)
    refuse("type = '%s' does not match the array's %s elements (a tensor map copies the array's own type)",
           r.type.c_str(), tname);
  const std::size_t rank = r.dims.size();
  if (rank < 1 || rank > 5)
    refuse("dims has %zu entries: a tensor map has rank 1 to 5 (dims = {inner, ..., outer})", rank);
  check_each(r.dims, "dims", 1, std::int64_t{1} << 32, "each size is 1 to 2^32 elements");
  if (r.box.size() != rank)
    refuse("box has %zu entries but dims has %zu: one box size per dimension", r.box.size(), rank);
  check_each(r.box, "box", 1, 256, "each box dimension is 1 to 256 elements");
  if (r.box[0] * elem % 16 != 0)
    refuse(
        "box[1] = %lld elements of %lld bytes = %lld bytes: the box's inner dimension must be a multiple of "
        "16 "
        "bytes",
        static_cast<long long>(r.box[0]), static_cast<long long>(elem),
        static_cast<long long>(r.box[0] * elem));
  // Strides: given, or the rows packed (each dimension's stride = the last one x its size).
  std::vector<std::int64_t> strides = r.strides;
  if (strides.empty()) {
    Wide next = static_cast<Wide>(r.dims[0]) * elem;
    for (std::size_t i = 1; i < rank; ++i) {
      if (next % 16 != 0 || next >= (static_cast<Wide>(1) << 40))
        refuse(
            "dimension %zu starts every %.0f bytes (the sizes before it x %lld bytes): a tensor map's "
            "strides must "
            "be multiples of 16 bytes below 2^40; pad the rows and pass strides =",
            i + 1, static_cast<double>(next), static_cast<long long>(elem));
      strides.push_back(static_cast<std::int64_t>(next));
      next *= r.dims[i];
    }
  } else {
    if (strides.size() != rank - 1)
      refuse("strides has %zu entries for rank %zu: one byte stride for each dimension after the first (%zu)",
             strides.size(), rank, rank - 1);
    check_each(strides, "strides", 16, (std::int64_t{1} << 40) - 1, "each stride is 16 bytes to 2^40 - 1");
    for (std::size_t i = 0; i < strides.size(); ++i) {
      if (strides[i] % 16 != 0)
        refuse("strides[%zu] = %lld bytes: each stride must be a multiple of 16 bytes", i + 1,
               static_cast<long long>(strides[i]));
      // Below 2^40 x 2^32: wider than 64 bits.
      const Wide below =
          i == 0 ? static_cast<Wide>(r.dims[0]) * elem : static_cast<Wide>(strides[i - 1]) * r.dims[i];
      if (strides[i] < below)
        refuse(
            "strides[%zu] = %lld bytes is less than the %.0f bytes the dimension below it spans: rows would "
            "overlap",
            i + 1, static_cast<long long>(strides[i]), static_cast<double>(below));
    }
  }
  std::vector<std::int64_t> es = r.element_strides;
  if (es.empty()) es.assign(rank, 1);
  if (es.size() != rank)
    refuse("elem_strides has %zu entries but dims has %zu: one per dimension", es.size(), rank);
  check_each(es, "elem_strides", 1, 8, "each element stride is 1 to 8");
  if (r.swizzle != 0 && r.swizzle != 32 && r.swizzle != 64 && r.swizzle != 128)
    refuse("swizzle = %lld: the swizzle span is 0 (none), 32, 64 or 128 bytes",
           static_cast<long long>(r.swizzle));
  if (r.swizzle != 0 && r.box[0] * elem > r.swizzle)
    refuse(
        "box[1] x %lld bytes = %lld bytes exceeds the %lld-byte swizzle span: the inner box must fit in it",
        static_cast<long long>(elem), static_cast<long long>(r.box[0] * elem),
        static_cast<long long>(r.swizzle));
  if (r.l2_promotion != 0 && r.l2_promotion != 64 && r.l2_promotion != 128 && r.l2_promotion != 256)
    refuse("l2_promotion = %lld: the L2 promotion is 0 (none), 64, 128 or 256 bytes",
           static_cast<long long>(r.l2_promotion));
  if (r.oob_nan && !cu::dtype_info(a.type).is_float)
    refuse("oob_fill = 'nan' needs a floating-point array; this one holds %s", tname);
  // The address: device allocations are 256-byte aligned, so a view's offset decides.
  if (a.byte_offset() % 16 != 0)
    refuse(
        "the array starts %zu bytes into its allocation (a view): a tensor map's address must be 16-byte "
        "aligned",
        a.byte_offset());
  // The extent: the last element of the last row must lie inside the array.
  Wide end = static_cast<Wide>(r.dims[0]) * elem;
  for (std::size_t i = 1; i < rank; ++i) end += static_cast<Wide>(r.dims[i] - 1) * strides[i - 1];
  if (end > static_cast<Wide>(a.bytes()))
    refuse("dims %s with strides %s span %.0f bytes but the array holds %zu (%zu %s elements)",
           braces(r.dims, rank).c_str(), braces(strides, strides.size()).c_str(), static_cast<double>(end),
           a.bytes(), a.count, tname);

  auto m = std::make_shared<TensorMap>();
  m->buf = a.buf;
  m->type = a.type;
  cu::TiledMapSpec& s = m->spec;
  s.dtype = tma_type(a.type);
  s.rank = static_cast<unsigned>(rank);
  s.address = encode ? a.ptr() : 0;
  m->box_bytes = static_cast<std::size_t>(elem);
  for (std::size_t i = 0; i < rank; ++i) {
    s.dims[i] = static_cast<cuuint64_t>(r.dims[i]);
    s.box[i] = static_cast<cuuint32_t>(r.box[i]);
    s.element_strides[i] = static_cast<cuuint32_t>(es[i]);
    m->box_bytes *= static_cast<std::size_t>(r.box[i]);
    if (i + 1 < rank) s.strides[i] = static_cast<cuuint64_t>(strides[i]);
  }
  s.swizzle = r.swizzle == 32    ? CU_TENSOR_MAP_SWIZZLE_32B
              : r.swizzle == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
              : r.swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : CU_TENSOR_MAP_SWIZZLE_NONE;
  s.l2_promotion = r.l2_promotion == 64    ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                   : r.l2_promotion == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                   : r.l2_promotion == 256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                           : CU_TENSOR_MAP_L2_PROMOTION_NONE;
  s.oob_fill =
      r.oob_nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  if (encode) {
    m->map = cu::encode_tiled(s);
    m->encoded = true;
  }
  return m;
}

std::string describe(const TensorMap& m) {
  const cu::TiledMapSpec& s = m.spec;
  std::string out = std::string(cu::dtype_info(m.type).name) + " " + braces(s.dims, s.rank) + ", box " +
                    braces(s.box, s.rank) + " = " + std::to_string(m.box_bytes) + " bytes";
  if (s.rank > 1) out += ", strides " + braces(s.strides, s.rank - 1);
  static const char* const kSwizzle[] = {"none", "32B", "64B", "128B"};
  out += ", swizzle " + std::string(s.swizzle <= CU_TENSOR_MAP_SWIZZLE_128B ? kSwizzle[s.swizzle] : "?");
  if (!m.encoded) out += " (not encoded: no GPU)";
  return out;
}

}  // namespace warplab::lab
