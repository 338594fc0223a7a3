// watch/diff.cpp: comparing two runs' code folders (diff.hpp). The listings and their diff
// are rtc/listing.hpp's; the disassembler (rtc/sass.hpp) runs as a child that dies with the
// watcher and is killed when a signal asks the watcher to leave.
#include "app/watch/diff.hpp"

#include "app/watch/child.hpp"
#include "app/watch/signals.hpp"

#include <stdlib.h>

#include <filesystem>
#include <set>

#include "rtc/elf.hpp"
#include "rtc/error.hpp"
#include "rtc/sass.hpp"
#include "rtc/signature.hpp"
#include "sys/temp.hpp"

namespace fs = std::filesystem;

namespace warplab::app::watch {
namespace {

// A feed file of the code folder; one that cannot be read is said in `notes` and counts as
// none.
std::string read(const fs::path& p, std::string& notes) {
  FeedFile r = read_feed_file(p.string());
  if (!r.problem.empty()) notes += "warplab: " + r.problem + "\n";
  return std::move(r.text);
}

// What a diff cut short says: how to see every line.
const std::string kMore = "(--diff-lines 0 shows them all)";

// "<module>|<kernel>" -> "<module>".
std::string module_of(const std::string& key) { return key.substr(0, key.find('|')); }

// A kernel as its author wrote it, as `warplab compile` prints it: "k(const float*, int)",
// not the demangler's "k(float const*, int)".
std::string pretty(const std::string& mangled) {
  auto s = rtc::demangle(mangled);
  return s ? s->to_string() : mangled;
}

}  // namespace

CodeDiff::CodeDiff(bool code_diffs, const std::string& under, int max_lines)
    : code_diffs_(code_diffs), max_lines_(max_lines) {
  // SASS from cuobjdump, else nvdisasm (both in the toolkit); the first report says when
  // neither is there.
  sass_ = code_diffs_ && rtc::find_sass_tool().found();  // the one finder (rtc/sass.hpp)
  if (under.empty()) {                                   // $TMPDIR, or /tmp when TMPDIR cannot hold it
    dir_ = sys::make_temp_folder("warplab-code-").path;
    return;
  }
  std::string tmpl = (fs::path(under) / "warplab-code-XXXXXX").string();
  if (::mkdtemp(tmpl.data())) dir_ = tmpl;
}

CodeDiff::~CodeDiff() {
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

void CodeDiff::discard() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) fs::remove(e.path(), ec);
}

std::string CodeDiff::collect(bool whole_run) {
  if (dir_.empty()) return {};
  std::map<std::string, Lines> ptx, sass;
  std::map<std::string, KernelNumbers> res;
  std::map<std::string, std::pair<long, long>> spills;
  std::map<std::string, rtc::PtxEntry> entries;
  std::string report;  // what could not be read first, then what changed
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string stem = e.path().stem().string();  // "<n>.<module>"
    const std::string module = stem.substr(stem.find('.') + 1);
    const std::string ext = e.path().extension().string();
    if (ext == ".ptx") {
      const std::string text = read(e.path(), report);
      for (auto& [k, v] : rtc::ptx_kernels(text)) ptx[module + "|" + k] = std::move(v);
      for (rtc::PtxEntry& k : rtc::ptx_entry_list(text)) entries[module + "|" + k.name] = std::move(k);
    }
    if (ext == ".spills")
      for (auto& [k, v] : parse_spills(read(e.path(), report))) spills[module + "|" + k] = v;
    if (ext == ".cubin") {
      const std::string bytes = read(e.path(), report);
      try {
        for (auto& k : rtc::read_cubin(std::vector<char>(bytes.begin(), bytes.end())))
          res[module + "|" + k.name].elf = k;
      } catch (const rtc::Error&) {  // no resource line for a CUBIN that cannot be read
      }
    }
    if (ext == ".cubin" && sass_) {
      try {  // nullopt: a signal to leave came first, and the tool was killed
        if (auto dump = rtc::disassemble_file(e.path().string(), "watch --diff", Signals::leave_pending))
          for (auto& [k, v] : rtc::sass_kernels(*dump)) sass[module + "|" + k] = std::move(v);
      } catch (const rtc::Error& err) {  // the tool failed: its reason, once
        if (!sass_said_) report += "warplab: " + std::string(err.what()) + ": PTX diffs only\n";
        sass_said_ = true;
        sass_ = sass_ && err.kind() != ErrorKind::tool;  // a missing nvdisasm stays missing
      }
    }
  }
  for (auto& [key, sp] : spills)
    if (auto r = res.find(key); r != res.end()) std::tie(r->second.spill_store, r->second.spill_load) = sp;
  for (auto& [key, l] : parse_launches(read(fs::path(dir_) / "launches", report))) launched_[key] = l;
  for (auto& [key, k] : res) {  // the PTX's directives, and the newest launch known
    if (auto e = entries.find(key); e != entries.end()) k.entry = std::move(e->second);
    if (auto l = launched_.find(key); l != launched_.end()) k.launch = l->second;
  }
  if (auto d = parse_device(read(fs::path(dir_) / "device.json", report))) dev_ = d;
  discard();
  std::set<std::string> seen;  // the modules this run compiled
  for (const auto& [key, code] : ptx) seen.insert(module_of(key));

  if (first_ && code_diffs_ && !sass_ && !sass_said_)
    report += "warplab: " + std::string(rtc::kNoSassTool) + ": PTX diffs only\n";
  if (!first_) {
    for (const auto& [key, code] : ptx) {
      const std::string kernel = pretty(key.substr(key.find('|') + 1));
      auto old = ptx_.find(key);
      if (old == ptx_.end()) {
        report += "new kernel " + kernel + "\n";
        continue;
      }
      // One line per changed kernel: its resources and occupancy, old -> new. A cap or a
      // flag can move them with the same PTX; a changed PTX with the same numbers says so.
      std::string line;
      if (auto r_new = res.find(key), r_old = res_.find(key); r_new != res.end() && r_old != res_.end()) {
        line = resource_line(r_old->second, r_new->second, dev_ ? &*dev_ : nullptr);
      }
      const std::string d = code_diffs_ ? rtc::line_diff(old->second, code, 2, max_lines_, kMore) : "";
      if (!line.empty())
        report += kernel + ": " + line + "\n";
      else if (code_diffs_ ? !d.empty() : !rtc::same_code(old->second, code))
        report += kernel + ": code changed, same resources\n";
      if (!code_diffs_) continue;
      if (!d.empty()) report += "PTX of " + kernel + " changed:\n" + d;
      auto s_new = sass.find(key), s_old = sass_code_.find(key);
      if (s_new != sass.end() && s_old != sass_code_.end())
        if (const std::string sd = rtc::line_diff(s_old->second, s_new->second, 1, max_lines_, kMore);
            !sd.empty())
          report += "SASS of " + kernel + " changed:\n" + sd;
    }
    for (const auto& [key, code] : ptx_)
      if (!ptx.count(key) && (whole_run || seen.count(module_of(key))))
        report += "kernel " + pretty(key.substr(key.find('|') + 1)) + " is gone\n";
  }
  first_ = false;
  if (whole_run) {
    ptx_ = std::move(ptx);
    sass_code_ = std::move(sass);
    res_ = std::move(res);
    return report;
  }
  // A run that ended early: what it compiled replaces those modules' code; the modules it
  // did not get to stay as they were.
  for (auto* m : {&ptx_, &sass_code_})
    std::erase_if(*m, [&](const auto& kv) { return seen.count(module_of(kv.first)) > 0; });
  std::erase_if(res_, [&](const auto& kv) { return seen.count(module_of(kv.first)) > 0; });
  ptx_.merge(ptx);
  sass_code_.merge(sass);
  res_.merge(res);
  return report;
}

}  // namespace warplab::app::watch
