// copy.cpp: see copy.hpp.
#include "lab/copy.hpp"

namespace warplab::lab {

const char* const kPageableOnStream =
    "a:copy on a stream needs pinned host memory: this host array is pageable, so the copy would be "
    "synchronous anyway (the driver stages pageable memory through its own buffer and returns when it is "
    "done); make it with cuda.host_array(type, n) (pinned by default) or copy without a stream";

namespace {

void require_pinned(const HostArray& h) {
  if (!h.buf->is_pinned()) throw Error(ErrorKind::bad_input, kPageableOnStream);
}

}  // namespace

void copy_async(Capture& cap, DeviceArray& dst, const DeviceArray& src, CUstream stream) {
  check_same_shape(dst.type, dst.count, src.type, src.count);
  cap.check_stream(stream, "a:copy");
  cap.use(dst);
  cap.use(src);
  dst.buf->copy_from_async(*src.buf, dst.bytes(), stream, dst.byte_offset(), src.byte_offset());
}

void copy_async(Capture& cap, DeviceArray& dst, const HostArray& src, CUstream stream) {
  check_same_shape(dst.type, dst.count, src.type, src.count);
  require_pinned(src);
  cap.check_stream(stream, "a:copy");
  cap.use(dst);
  cap.use(src);
  dst.buf->copy_from_host_async(src.data(), dst.bytes(), stream, dst.byte_offset());
}

void copy_async(Capture& cap, HostArray& dst, const DeviceArray& src, CUstream stream) {
  check_same_shape(dst.type, dst.count, src.type, src.count);
  require_pinned(dst);
  cap.check_stream(stream, "a:copy");
  cap.use(dst);
  cap.use(src);
  src.buf->copy_to_host_async(dst.data(), dst.bytes(), stream, src.byte_offset());
}

void copy_async(Capture&, HostArray& dst, const HostArray& src, CUstream) {
  check_same_shape(dst.type, dst.count, src.type, src.count);
  throw Error(
      ErrorKind::bad_input,
      "a:copy between two host arrays is a memmove on the CPU and has no stream: copy without {stream = "
      "...}");
}

}  // namespace warplab::lab
