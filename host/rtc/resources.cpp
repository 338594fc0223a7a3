// resources.cpp: the ptxas -v report. Per kernel ptxas prints, in order:
//   ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'
//   ptxas info    : Function properties for _Z1kPf
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0]
#include "rtc/resources.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <regex>

#include "sys/regex_span.hpp"

namespace warplab::rtc {
namespace {

// A number of the report, or nothing when it does not fit (a log is input: a 30-digit
// count must not throw out of a parser documented never to throw).
std::optional<long> number(const std::string& digits, long max = LONG_MAX) {
  long v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || v > max) return std::nullopt;
  return v;
}

std::optional<int> small(const std::string& digits) {
  const auto v = number(digits, INT_MAX);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

}  // namespace

std::vector<KernelResources> parse_ptxas_report(const std::string& log) {
  // The patterns read a line's first sys::regex_span bytes; a name, of any length, is cut
  // from the whole line after the pattern's prefix.
  static const std::regex entry(R"re(^ptxas info\s*: Compiling entry function ')re");
  static const std::regex props(R"re(^ptxas info\s*: Function properties for )re");
  static const std::regex frame(R"re(^ptxas\s+\.\s+(\d+) bytes stack frame, (\d+) bytes spill stores, )re"
                                R"re((\d+) bytes spill loads)re");
  static const std::regex used(R"re(^ptxas info\s*: Used (\d+) registers)re");
  // The "Used" line's items, each "N <what>": older ptxas omit barriers, newer add items.
  static const std::regex item(R"re((\d+) (registers|barriers|bytes smem|bytes cmem\[(\d+)\]|)re"
                               R"re(bytes cumulative stack size))re");

  std::vector<KernelResources> out;
  std::string props_for;  // whose "Function properties" the next stack line belongs to
  std::size_t pos = 0;
  while (pos < log.size()) {
    std::size_t eol = log.find('\n', pos);
    if (eol == std::string::npos) eol = log.size();
    const std::string whole = log.substr(pos, eol - pos);
    const std::string line = sys::regex_head(whole);
    pos = eol + 1;
    std::smatch m;
    KernelResources* cur = out.empty() ? nullptr : &out.back();  // the kernel being reported
    const auto name_after = [&](const std::smatch& p, const char* ends) {
      const std::size_t from = static_cast<std::size_t>(p.length(0));
      return whole.substr(from, whole.find_first_of(ends, from) - from);
    };
    if (std::regex_search(line, m, entry) &&
        whole.find('\'', static_cast<std::size_t>(m.length(0))) != std::string::npos) {
      out.push_back({});
      out.back().mangled = name_after(m, "'");
      props_for.clear();
    } else if (std::regex_search(line, m, props)) {
      props_for = name_after(m, " \t\r");
    } else if (cur && std::regex_search(line, m, frame)) {
      if (props_for == cur->mangled) {
        if (const auto frame_bytes = number(m[1]))
          cur->stack_bytes = std::max(cur->stack_bytes.value_or(0), *frame_bytes);
        cur->spill_store_bytes = number(m[2]);
        cur->spill_load_bytes = number(m[3]);
      }
    } else if (cur && std::regex_search(line, used)) {
      // The line names only what is used: what it leaves out is none.
      cur->shared_bytes = 0;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), item); it != std::sregex_iterator();
           ++it) {
        const std::string what = (*it)[2];
        const auto parsed = number((*it)[1]);
        if (!parsed) {  // too large to be true: unknown
          if (what == "bytes smem") cur->shared_bytes.reset();
          continue;
        }
        const long n = *parsed;
        if (what == "registers")
          cur->registers = small((*it)[1]);
        else if (what == "barriers")
          cur->barriers = small((*it)[1]);
        else if (what == "bytes smem")
          cur->shared_bytes = n;
        // Cumulative stack includes callees' frames: what a launch must provide.
        else if (what == "bytes cumulative stack size")
          cur->stack_bytes = std::max(cur->stack_bytes.value_or(0), n);
        else if ((*it)[3].str() != "0")
          cur->const_bytes = cur->const_bytes.value_or(0) + n;
        else
          cur->const_bytes = cur->const_bytes.value_or(0);  // bank 0 (parameters) alone: none
      }
    }
  }
  return out;
}

namespace {

template <class T>
void cross_check(const std::string& kernel, const char* what, std::optional<T>& mine,
                 const std::optional<T>& theirs, std::vector<std::string>& notes) {
  if (mine && theirs && *mine != *theirs)
    notes.push_back("kernel " + kernel + ": the CUBIN says " + std::to_string(*mine) + " " + what +
                    ", the ptxas report " + std::to_string(*theirs) + " (the CUBIN's number is used)");
  if (!mine) mine = theirs;
}

}  // namespace

std::vector<KernelResources> merge_resources(const std::vector<std::string>& entries,
                                             const std::vector<ElfKernel>& elf,
                                             const std::vector<KernelResources>& report,
                                             std::vector<std::string>& notes) {
  std::vector<KernelResources> out;
  for (const std::string& e : entries) {
    KernelResources k;
    k.mangled = e;
    if (const ElfKernel* b = find_kernel(elf, e)) {
      k.registers = b->registers;
      k.barriers = b->barriers;
      k.shared_bytes = b->shared_bytes;
      k.const_bytes = b->kernel_const_bytes;  // what ptxas reports per kernel, for the cross-check
      k.stack_bytes = b->stack_bytes;
    }
    const KernelResources* log = nullptr;
    for (const KernelResources& r : report)
      if (r.mangled == e) log = &r;
    if (log) {
      cross_check(e, "registers", k.registers, log->registers, notes);
      cross_check(e, "barriers", k.barriers, log->barriers, notes);
      cross_check(e, "bytes of static shared memory", k.shared_bytes, log->shared_bytes, notes);
      cross_check(e, "bytes of constant memory", k.const_bytes, log->const_bytes, notes);
      cross_check(e, "bytes of stack", k.stack_bytes, log->stack_bytes, notes);
      k.spill_store_bytes = log->spill_store_bytes;
      k.spill_load_bytes = log->spill_load_bytes;
    }
    // ptxas reports the module's __constant__ bank once, not per kernel; the driver counts
    // it for every kernel, and so does warplab.
    if (const ElfKernel* b = find_kernel(elf, e)) k.const_bytes = b->const_bytes;
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace warplab::rtc
