// managed.cpp: see managed.hpp.
#include "lab/managed.hpp"

#include <cmath>

namespace warplab::lab {
namespace {

void require_managed(const DeviceArray& a, const char* who) {
  if (!a.buf->is_managed())
    throw Error(
        ErrorKind::bad_input,
        std::string(who) + " needs a managed array: make it with cuda.array(type, n, {managed = true})");
}

}  // namespace

CUmemLocation to_cu(Location l) {
  CUmemLocation loc{};
  loc.type = l.host ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE;
  loc.id = l.host ? 0 : l.device;
  return loc;
}

std::string to_string(Location l) { return l.host ? "the host" : "device " + std::to_string(l.device); }

Location location_named(std::string_view name, const char* who) {
  if (name != "host")
    throw Error(
        ErrorKind::bad_input,
        std::string(who) + ": where must be a device index or \"host\", got \"" + std::string(name) + "\"");
  return {true, 0};
}

Location location_index(double x, int device_count, const char* who) {
  if (!(x == std::floor(x)) || std::isinf(x))
    throw Error(ErrorKind::bad_input, std::string(who) + ": where must be a device index or \"host\", got " +
                                          (std::isnan(x) ? std::string("nan") : num(x)));
  if (x < 0 || x >= device_count)
    throw Error(ErrorKind::bad_input, std::string(who) + ": device " + num(x) +
                                          " does not exist (valid: 0.." + std::to_string(device_count - 1) +
                                          ", or \"host\")");
  return {false, static_cast<int>(x)};
}

std::shared_ptr<cu::DeviceBuffer> managed_buffer(const Capture& cap, const cu::ContextPtr& ctx,
                                                 const cu::DeviceSnapshot& dev, std::size_t bytes) {
  cap.refuse(CaptureOp::allocate, "cuda.array");
  if (dev.attr("managed_memory").value_or(1) == 0)
    throw Error(ErrorKind::bad_input,
                "cuda.array: " + dev.name + " has no managed memory (managed_memory = 0)");
  if (!ctx) return std::make_shared<cu::DeviceBuffer>(cu::DeviceBuffer::host_backed(bytes, true));
  return std::make_shared<cu::DeviceBuffer>(cu::DeviceBuffer::managed(ctx, bytes));
}

void prefetch(const Capture& cap, const DeviceArray& a, Location to, CUstream stream,
              const cu::DeviceSnapshot& dev) {
  require_managed(a, "a:prefetch");
  cap.refuse(CaptureOp::prefetch, "a:prefetch");
  if (dev.attr("concurrent_managed_access").value_or(1) == 0)
    throw Error(ErrorKind::bad_input,
                "a:prefetch needs a device with concurrent managed access, and " + dev.name +
                    " has none (concurrent_managed_access = 0): its managed memory migrates only on demand");
  a.buf->prefetch(to_cu(to), stream, a.bytes(), a.byte_offset());
}

Advice parse_advice(std::string_view name) {
  static constexpr struct {
    std::string_view name;
    CUmem_advise advice;
    bool takes_location;
  } kAdvice[] = {
      {"read_mostly", CU_MEM_ADVISE_SET_READ_MOSTLY, false},
      {"unset_read_mostly", CU_MEM_ADVISE_UNSET_READ_MOSTLY, false},
      {"preferred_location", CU_MEM_ADVISE_SET_PREFERRED_LOCATION, true},
      {"unset_preferred_location", CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, false},
      {"accessed_by", CU_MEM_ADVISE_SET_ACCESSED_BY, true},
      {"unset_accessed_by", CU_MEM_ADVISE_UNSET_ACCESSED_BY, true},
  };
  for (const auto& a : kAdvice)
    if (a.name == name) return {a.advice, a.takes_location};
  throw Error(ErrorKind::bad_input,
              "a:advise: unknown advice \"" + std::string(name) +
                  "\" (read_mostly, preferred_location, accessed_by, or one of them with unset_ before it)");
}

void advise(const Capture& cap, const DeviceArray& a, Advice adv, Location where) {
  require_managed(a, "a:advise");
  cap.refuse(CaptureOp::advise, "a:advise");
  // The driver ignores the location of the advice that names none; give it a valid one.
  a.buf->advise(adv.advice, to_cu(adv.takes_location ? where : Location{}), a.bytes(), a.byte_offset());
}

unsigned char* host_elements(const DeviceArray& a) {
  // Offline every array is host memory, but only a managed one may be read this way, so
  // that a script that runs offline also runs on a GPU.
  unsigned char* p = a.buf->is_managed() ? a.buf->host_address() : nullptr;
  if (!p)
    throw Error(
        ErrorKind::bad_input,
        "only a managed array can be read on the host without a copy: make it with cuda.array(type, n, "
        "{managed = true}), or read this one with a[i] or a:get()");
  return p + a.byte_offset();
}

}  // namespace warplab::lab
