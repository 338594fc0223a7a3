// managed.hpp: managed arrays without Lua: cuda.array(type, n, {managed = true}) (one
// address for host and device; offline it is host memory, like an offline device array),
// a:prefetch(device or "host") and a:advise(name [, where]) with their argument checks and
// sentences, and the host's direct view of a managed array's elements.
#pragma once
#include <cuda.h>

#include <memory>
#include <string>
#include <string_view>

#include "cu/device.hpp"
#include "cu/memory.hpp"
#include "lab/array.hpp"
#include "lab/capture.hpp"

namespace warplab::lab {

// Where managed memory goes or is advised for: a device, or the host.
struct Location {
  bool host = false;
  int device = 0;
};
CUmemLocation to_cu(Location l);
std::string to_string(Location l);  // "device 0", "the host"

// `who` names the call in sentences ("a:prefetch"). A string must be "host"; a number a
// device index 0..device_count-1: "a:prefetch: device 2 does not exist (valid: 0..0, or
// \"host\")", "a:prefetch: where must be a device index or \"host\", got nan".
Location location_named(std::string_view name, const char* who);
Location location_index(double x, int device_count, const char* who);

// The buffer of a managed array of `bytes`: managed memory in `ctx`, or offline (ctx null)
// zeroed host memory marked managed. Refused during a capture, and on a device (or
// profile) whose managed_memory attribute is 0.
std::shared_ptr<cu::DeviceBuffer> managed_buffer(const Capture& cap, const cu::ContextPtr& ctx,
                                                 const cu::DeviceSnapshot& dev, std::size_t bytes);

// a:prefetch(where [, {stream = s}]): migrates the array's pages in stream order. Refused
// for an array that is not managed, during a capture, and on a device without concurrent
// managed access. Offline it is checked, then does nothing (the data is in host memory).
void prefetch(const Capture& cap, const DeviceArray& a, Location to, CUstream stream,
              const cu::DeviceSnapshot& dev);

// a:advise(name [, where]): read_mostly, preferred_location, accessed_by and their unset_
// forms. parse_advice throws the sentence that lists them; `where` matters only for the
// advice that names a location (preferred_location, accessed_by, unset_accessed_by).
struct Advice {
  CUmem_advise advice = CU_MEM_ADVISE_SET_READ_MOSTLY;
  bool takes_location = false;
};
Advice parse_advice(std::string_view name);
void advise(const Capture& cap, const DeviceArray& a, Advice adv, Location where);

// The host address of a managed array's first element (offline: its host memory), for
// reading and writing elements without a copy once the device work is done (the caller
// synchronizes first); any other array, offline too, throws
// "only a managed array can be read on the host without a copy: ...".
unsigned char* host_elements(const DeviceArray& a);

}  // namespace warplab::lab
