// line_map.cpp: a kernel's instructions mapped to its source lines (line_map.hpp): CUPTI's
// correlation at every SASS offset of the kernel's code, the disassembler's kinds at the
// same offsets, the PTX's .loc lines as the fallback; the file names of the line table
// matched to the module's source and headers, whose text the listing shows.
#include "lab/line_map.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "cu/cupti_lines.hpp"
#include "rtc/elf.hpp"
#include "rtc/error.hpp"
#include "rtc/sass.hpp"
#include "rtc/source.hpp"

namespace warplab::lab {
namespace {

// The disassembly of a CUBIN, kept per CUBIN for this process: the disassembler is a child
// process, run once however many kernels are listed.
std::string disassembly(const std::vector<char>& cubin) {
  static std::mutex mu;
  static std::map<std::size_t, std::string> kept;
  const std::size_t key = std::hash<std::string_view>{}(std::string_view(cubin.data(), cubin.size()));
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = kept.find(key); it != kept.end()) return it->second;
  }
  std::string dump = rtc::disassemble(cubin, "the line map");
  std::lock_guard<std::mutex> lock(mu);
  if (kept.size() > 64) kept.clear();
  return kept[key] = std::move(dump);
}

// The files of one kernel's map: a line table's names matched to the module's source (with
// its place in a Lua file) and headers, each once.
class Files {
 public:
  Files(const ModuleObj& m, KernelLines& k) : m_(m), k_(k) {}

  // The index in k.files of the file the line table calls `name` (in `dir`).
  int index(const std::string& name, const std::string& dir = {}) {
    const std::string full = name.empty() || name[0] == '/' || dir.empty() ? name : dir + "/" + name;
    if (auto it = seen_.find(full); it != seen_.end()) return it->second;
    std::string display = full, text;
    int offset = 0;
    const rtc::Source& src = m_.spec.source;
    const std::string main = src.name.empty() ? "source.cu" : src.name;
    if (full == main || full.ends_with("/" + main)) {
      display = main;
      text = src.text;
      offset = src.line_offset;
    } else {
      const rtc::Dependency* dep = nullptr;
      for (const rtc::Dependency& d : m_.result.dependencies)
        if (full == d.path.string() || full.ends_with("/" + d.display) || full == d.display) dep = &d;
      for (const rtc::Dependency& d : m_.result.dependencies)
        if (!dep && std::filesystem::path(full).filename() == d.path.filename()) dep = &d;
      if (dep) {
        display = dep->display;
        if (rtc::read_file(dep->path, text)) text.clear();
      } else if (!full.empty() && full[0] == '/' && rtc::read_file(full, text)) {
        text.clear();  // a toolkit header, or a file gone since: listed without its text
      }
    }
    // Two names of one file (CUPTI's and the PTX's) share the entry.
    for (std::size_t i = 0; i < k_.files.size(); ++i)
      if (k_.files[i] == display) return seen_[full] = static_cast<int>(i);
    k_.files.push_back(display);
    k_.texts.push_back(std::move(text));
    k_.line_offsets.push_back(offset);
    return seen_[full] = static_cast<int>(k_.files.size() - 1);
  }

 private:
  const ModuleObj& m_;
  KernelLines& k_;
  std::map<std::string, int> seen_;
};

// The PTX's instructions of the kernel, with their lines.
std::vector<LineInst> from_ptx(const ModuleObj& m, const std::string& mangled, Files& files) {
  const rtc::PtxLines p = rtc::ptx_lines(m.result.ptx, mangled);
  std::vector<LineInst> out;
  for (std::size_t i = 0; i < p.insts.size(); ++i) {
    LineInst li;
    li.offset = static_cast<std::uint32_t>(i);
    li.text = p.insts[i].text;
    li.kind = p.insts[i].kind;
    if (p.insts[i].line > 0) {
      const auto f = p.files.find(p.insts[i].file);
      li.file = files.index(f == p.files.end() ? "" : f->second);
      li.line = p.insts[i].line;
    }
    out.push_back(std::move(li));
  }
  return out;
}

std::string text_line(const std::string& text, unsigned line) {
  if (line == 0) return {};
  std::size_t at = 0;
  for (unsigned l = 1; l < line; ++l) {
    at = text.find('\n', at);
    if (at == std::string::npos) return {};
    ++at;
  }
  std::string out = text.substr(at, text.find('\n', at) - at);
  while (!out.empty() && (out.back() == '\r' || out.back() == ' ' || out.back() == '\t')) out.pop_back();
  return out;
}

}  // namespace

bool KernelLines::has_lines() const {
  return std::any_of(insts.begin(), insts.end(), [](const LineInst& i) { return i.line > 0; });
}

const LineInst* KernelLines::at(std::uint64_t pc) const {
  if (from != LineSource::sass) return nullptr;
  const auto it = std::lower_bound(insts.begin(), insts.end(), pc,
                                   [](const LineInst& i, std::uint64_t v) { return i.offset < v; });
  return it != insts.end() && it->offset == pc ? &*it : nullptr;
}

std::string no_line_info(const std::string& display) {
  return display +
         " was compiled without line information, so its instructions are listed by SASS offset: "
         "compile it with lineinfo = true (or -lineinfo), or run with --lines, which adds it";
}

KernelLines kernel_lines(const ModuleObj& m, const std::string& mangled, const std::string& display) {
  KernelLines k;
  k.kernel = mangled;
  k.display = display;
  Files files(m, k);
  const std::vector<char>& cubin = m.result.cubin;
  const std::optional<std::string> no_cupti = cu::cupti_unavailable();
  const bool cupti = !cubin.empty() && !no_cupti;
  if (cubin.empty() && m.result.ptx.empty())
    throw Error(ErrorKind::bad_input, display + ": its module holds no code to map to lines");
  if (!cupti) {
    k.from = LineSource::ptx;
    k.insts = from_ptx(m, mangled, files);
    k.note = cubin.empty() ? "this module has PTX only: lines and instruction kinds are the PTX's (.loc)"
                           : "without CUPTI (" + no_cupti.value_or("") +
                                 ") lines and instruction kinds are the PTX's (.loc)";
    if (!k.has_lines()) k.note = no_line_info(display);
    return k;
  }
  const std::vector<rtc::ElfKernel> elf = rtc::read_cubin(cubin);
  const rtc::ElfKernel* ek = rtc::find_kernel(elf, mangled);
  if (!ek) throw Error(ErrorKind::bad_input, display + ": its CUBIN has no function " + mangled);
  // SASS instructions are 16 bytes from Volta on (warplab compiles for sm_75 and newer).
  std::vector<std::pair<int, unsigned>> lines;
  for (std::uint64_t pc = 0; pc < ek->code_bytes; pc += 16) {
    const cu::SourceLine s = cu::sass_source_line(cubin, mangled, pc);
    lines.emplace_back(s.line > 0 ? files.index(s.file, s.dir) : -1, s.line);
  }
  std::vector<rtc::SassInst> sass;
  std::string no_tool;
  if (rtc::find_sass_tool().found()) {
    try {
      sass = rtc::sass_instructions(rtc::sass_of(disassembly(cubin), mangled));
    } catch (const rtc::Error& e) {
      no_tool = e.what();
    }
  } else {
    no_tool = rtc::kNoSassTool;
  }
  std::size_t s = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    LineInst li;
    li.offset = static_cast<std::uint32_t>(i * 16);
    li.file = lines[i].first;
    li.line = lines[i].second;
    while (s < sass.size() && sass[s].offset < li.offset) ++s;
    if (s < sass.size() && sass[s].offset == li.offset) {
      li.text = sass[s].text;
      li.kind = sass[s].kind;
    }
    k.insts.push_back(std::move(li));
  }
  if (!k.has_lines()) {
    k.note = no_line_info(display);
  } else if (sass.empty()) {
    // Lines from the CUBIN still, kinds from the PTX's instructions on the same lines.
    k.note = no_tool + ": instruction kinds are the PTX's, by line";
    for (const LineInst& p : from_ptx(m, mangled, files))
      if (p.line > 0 && p.kind != rtc::InstKind::other) {
        LineInst extra = p;
        extra.offset = 0xffffffffu;  // not a SASS instruction: kinds only (line_rows)
        k.insts.push_back(std::move(extra));
      }
  }
  return k;
}

// ---- rows ---------------------------------------------------------------------------

double LineRow::shared_way() const {
  return shared_ideal > 0 ? shared_wavefronts / shared_ideal : kNotCounted;
}

double LineRow::global_excess() const { return global_sectors - global_ideal; }  // NaN stays NaN

double LineRow::predicated_off() const {
  return thread_inst > 0 ? 1.0 - thread_inst_pred_on / thread_inst : kNotCounted;
}

std::vector<LineRow> line_rows(const KernelLines& k) {
  std::map<std::pair<int, unsigned>, LineRow> by_line;
  for (const LineInst& i : k.insts) {
    const std::pair<int, unsigned> key = i.line > 0 ? std::pair(i.file, i.line) : std::pair(-1, 0u);
    LineRow& r = by_line[key];
    if (r.kernel.empty()) {
      r.kernel = k.display;
      if (i.line > 0 && i.file >= 0) {
        const auto f = static_cast<std::size_t>(i.file);
        r.file = k.files[f];
        r.line = i.line + static_cast<unsigned>(std::max(0, k.line_offsets[f]));
        r.text = text_line(k.texts[f], i.line);
      }
    }
    const std::string kind = rtc::inst_kind_name(i.kind);
    if (!kind.empty() && std::find(r.kinds.begin(), r.kinds.end(), kind) == r.kinds.end())
      r.kinds.push_back(kind);
    if (i.offset == 0xffffffffu) continue;  // the PTX's kinds beside the SASS
    ++r.instructions;
    if (k.from == LineSource::sass) r.offsets.push_back(i.offset);
  }
  // In the order the files appear in the code (the kernel's own first), then by line;
  // instructions without line information last.
  std::vector<LineRow> out;
  for (auto& [key, r] : by_line)
    if (key.first >= 0) out.push_back(std::move(r));
  if (auto it = by_line.find({-1, 0u}); it != by_line.end() && it->second.instructions > 0)
    out.push_back(std::move(it->second));
  return out;
}

}  // namespace warplab::lab
