// kernel_info.cpp: a kernel's signature text, fields, summary and occupancy answer (see
// kernel_info.hpp).
#include "lab/kernel_info.hpp"

#include <climits>
#include <cstdlib>

#include "cu/error.hpp"
#include "cu/launch.hpp"
#include "lab/fault.hpp"
#include "rtc/sass.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::lab {

DeclareHint declare_hint(const KernelObj& k) {
  DeclareHint h;
  const rtc::ExternCParams* e = k.module ? k.module->result.extern_c_params(k.mangled) : nullptr;
  if (e) h.why = e->why;
  const std::string name = sys::printable(k.display);
  if (e && !e->written.empty()) {
    h.what = "its parameters";
    h.call = "m:kernel(\"" + name + "\", \"" + sys::printable(e->written) + "\")";
    return h;
  }
  // The list was not found (a kernel made by a macro): its count and sizes, from the layout.
  std::string sizes, types;
  for (std::size_t i = 0; i < k.sizes.size(); ++i) {
    sizes += (i == 0 ? "" : i + 1 == k.sizes.size() ? " and " : ", ") + std::to_string(k.sizes[i]);
    types += i == 0 ? "type" : ", type";
  }
  h.what = k.sizes.empty()
               ? "its parameters"
               : "its " + sys::plural(static_cast<long long>(k.sizes.size()), "parameter") + " (" + sizes +
                     (k.sizes.size() == 1 && k.sizes[0] == 1 ? " byte)" : " bytes)");
  h.call = "m:kernel(\"" + name + "\", \"" + (!types.empty() ? types : e ? "void" : "types") + "\")";
  return h;
}

std::string signature_text(const KernelObj& k) {
  if (k.sig) return k.sig->to_string();
  if (!k.module || !k.module->result.extern_c_params(k.mangled))  // a module that says nothing of it
    return k.display + "(?)  -- extern \"C\": declare it with m:kernel(name, \"types\")";
  return k.display + "(?)  -- extern \"C\", types unknown: declare them with " + declare_hint(k).call;
}

std::string kernel_sass(const KernelObj& k) {
  std::string text = rtc::sass_of(rtc::disassemble(k.module->result.cubin, "k.sass"), k.mangled);
  if (text.empty())
    throw Error(ErrorKind::bad_input,
                "k.sass: the disassembly of " + k.module->spec.source.name + " has no kernel " + k.mangled);
  return text;
}

int arch_number(const std::string& arch) {
  return arch.rfind("sm_", 0) == 0 ? std::atoi(arch.c_str() + 3) : 0;
}

namespace {

template <class T>
std::optional<long long> known(const std::optional<T>& v) {
  return v ? std::optional<long long>(*v) : std::nullopt;
}

}  // namespace

bool kernel_number(const KernelObj& k, std::string_view key, std::optional<long long>& value) {
  const auto* a = k.fn ? &k.fn->attributes() : nullptr;
  const int arch = arch_number(k.module->result.arch);
  const auto& r = k.res;
  if (key == "regs")
    value = a ? std::optional<long long>(k.limits.regs) : known(r.registers);
  else if (key == "shared_bytes")
    value = a ? std::optional<long long>(k.limits.static_shared) : known(r.shared_bytes);
  else if (key == "local_bytes")
    value = a ? std::optional<long long>(a->local_size_bytes) : known(r.stack_bytes);
  else if (key == "const_bytes")
    value = a ? std::optional<long long>(a->const_size_bytes) : known(r.const_bytes);
  else if (key == "spill_bytes")
    value = r.spill_store_bytes && r.spill_load_bytes
                ? std::optional<long long>(*r.spill_store_bytes + *r.spill_load_bytes)
                : std::nullopt;
  else if (key == "barriers")
    value = known(r.barriers);
  else if (key == "max_threads")
    value = k.limits.max_threads_per_block > 0 ? std::optional<long long>(k.limits.max_threads_per_block)
                                               : std::nullopt;
  else if (key == "ptx_version")
    value = a ? a->ptx_version : arch;
  else if (key == "binary_version")
    value = a ? a->binary_version : arch;
  else
    return false;
  return true;
}

std::string kernel_summary(const KernelObj& k) {
  const bool live = k.fn != nullptr;
  auto text = [](const std::optional<long>& v) { return v ? std::to_string(*v) : std::string("?"); };
  const std::string regs = live ? std::to_string(k.limits.regs) : text(k.res.registers);
  const std::string shared = live ? std::to_string(k.limits.static_shared) : text(k.res.shared_bytes);
  const std::string local =
      live ? std::to_string(k.fn->attributes().local_size_bytes) : text(k.res.stack_bytes);
  const std::string maxt =
      k.limits.max_threads_per_block > 0 ? std::to_string(k.limits.max_threads_per_block) : "?";
  return signature_text(k) + "  [" + regs + " regs, " + shared + " B shared, " + local + " B local, max " +
         maxt + " threads, " + k.module->result.arch + "]";
}

std::optional<std::string> occupancy_error(const KernelObj& k, const OccupancyRequest& r,
                                           const cu::DeviceLimits& d) {
  // Code that cannot run here has no occupancy here: not a number computed for other code.
  if (const auto v = cu::check_code(k.limits, d)) return "occupancy: " + v->sentence;
  if (r.block < 1) return "occupancy needs block = <threads per block> >= 1";
  if (r.block > INT_MAX)
    return "occupancy: a block of " + std::to_string(r.block) +
           " threads is more than any device runs (at most " + std::to_string(d.max_threads_per_block) + ")";
  if (r.shared < 0) return "occupancy: shared must be a byte count >= 0, got " + std::to_string(r.shared);
  if (r.carveout < -1 || r.carveout > 100)
    return "occupancy: carveout must be a percentage 0..100 (or -1, the default), got " +
           std::to_string(r.carveout);
  if (!k.fn && !k.res.registers)
    return "occupancy: the register count of kernel " + k.display +
           " is unknown (the compile could not read it), and the calculator does not guess";
  return std::nullopt;
}

OccupancyReport occupancy_report(const KernelObj& k, const OccupancyRequest& r, const cu::DeviceLimits& d) {
  OccupancyReport out;
  const int b = static_cast<int>(r.block);
  out.calc = cu::occupancy(k.limits, b, r.shared, d, static_cast<int>(r.carveout));
  if (k.fn && r.carveout < 0) {
    // The driver may refuse a configuration our calculator answers with 0 blocks (a
    // block over the kernel's cap): that is an answer, not a script error.
    out.has_driver = true;
    try {
      out.driver_blocks = cu::driver_occupancy(*k.fn, b, static_cast<std::size_t>(r.shared));
    } catch (const cu::Error& e) {
      if (is_async_fault(e.code())) throw;
      out.driver_error = e.what();
    }
  }
  return out;
}

}  // namespace warplab::lab
