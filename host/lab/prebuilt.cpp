// prebuilt.cpp: see prebuilt.hpp. Two specs are one module when their sources (name, text,
// folder, line offset) and everything NVRTC is handed (rtc::nvrtc_options, the name
// expressions) are the same: what the compile cache keys on, so a field added to
// rtc::Options that changes the output changes this too.
#include "lab/prebuilt.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "lab/module_spec.hpp"
#include "lab/watch_feed.hpp"
#include "rtc/includes.hpp"
#include "rtc/nvrtc_options.hpp"

namespace warplab::lab {
namespace {

using nlohmann::json;

struct Kept {
  std::string key;
  ModuleRef module;
  cu::Context* ctx;  // what it is loaded in (null: not loaded)
};

std::mutex g_mu;
std::vector<Kept> g_kept;

std::string spec_key(const ModuleSpec& s) {
  json j = {s.path,
            s.source.name,
            s.source.text,
            s.source.dir.string(),
            s.source.line_offset,
            rtc::nvrtc_options(s.options),
            s.options.name_expressions,
            s.options.allow_virtual};
  return j.dump();
}

// Every header still holds the bytes the module was compiled from.
bool headers_unchanged(const ModuleObj& m) {
  for (const rtc::Dependency& d : m.result.dependencies) {
    std::string bytes;
    if (rtc::read_file(d.path, bytes) || rtc::content_hash(bytes) != d.hash) return false;
  }
  return true;
}

json spec_json(const ModuleSpec& s) {
  const rtc::Options& o = s.options;
  json j = {{"path", s.path},
            {"name", s.source.name},
            {"dir", s.source.dir.string()},
            {"line_offset", s.source.line_offset},
            {"arch", o.arch},
            {"allow_virtual", o.allow_virtual},
            {"defines", o.defines},
            {"include_dirs", o.include_dirs},
            {"lineinfo", o.lineinfo},
            {"std", o.std},
            {"max_registers", o.max_registers},
            {"extra", o.extra},
            {"names", o.name_expressions}};
  if (s.path.empty()) j["text"] = s.source.text;  // an inline source: its text is the spec
  return j;
}

ModuleSpec spec_from_json(const json& j) {
  ModuleSpec s;
  s.path = j.at("path").get<std::string>();
  rtc::Options& o = s.options;
  o.arch = j.at("arch").get<std::string>();
  o.allow_virtual = j.at("allow_virtual").get<bool>();
  o.defines = j.at("defines").get<std::vector<std::pair<std::string, std::string>>>();
  o.include_dirs = j.at("include_dirs").get<std::vector<std::string>>();
  o.lineinfo = j.at("lineinfo").get<bool>();
  o.std = j.at("std").get<std::string>();
  o.max_registers = j.at("max_registers").get<int>();
  o.extra = j.at("extra").get<std::vector<std::string>>();
  o.name_expressions = j.at("names").get<std::vector<std::string>>();
  if (!s.path.empty()) {
    if (auto why = reread_source(s)) throw Error(ErrorKind::bad_input, *why);
  } else {
    s.source.text = j.at("text").get<std::string>();
  }
  s.source.name = j.at("name").get<std::string>();
  s.source.dir = j.at("dir").get<std::string>();
  s.source.line_offset = j.at("line_offset").get<int>();
  return s;
}

}  // namespace

void feed_module(const ModuleSpec& spec) {
  const char* dir = code_dir();  // only a folder watch made (lab/watch_feed.hpp)
  if (!dir) return;
  try {
    const std::string line = spec_json(spec).dump() + "\n";
    const int fd = ::open((std::string(dir) + "/modules").c_str(),
                          O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0) return;
    [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());  // one write: whole lines
    ::close(fd);
  } catch (...) {  // best effort, as every feed: the run itself goes on
  }
}

std::vector<ModuleSpec> read_module_feed(const std::string& text) {
  std::vector<ModuleSpec> out;
  std::set<std::string> seen;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    try {
      ModuleSpec s = spec_from_json(json::parse(line));
      if (seen.insert(spec_key(s)).second) out.push_back(std::move(s));
    } catch (const std::exception&) {  // a file gone, a line cut short: not built ahead
    }
  }
  return out;
}

void prebuild(const std::vector<ModuleSpec>& specs, rtc::Cache* cache, const cu::ContextPtr& ctx) {
  for (const ModuleSpec& spec : specs) {
    try {
      auto m = std::make_shared<ModuleObj>();
      m->spec = spec;
      m->result = rtc::compile(m->spec.source, m->spec.options, cache);
      m->stamps = stamp_files(m->spec, m->result);
      if (m->result.ok && ctx)
        m->live = cu::Module::load_cubin(
            ctx, std::string_view(m->result.cubin.data(), m->result.cubin.size()), m->spec.source.name);
      const std::lock_guard<std::mutex> lock(g_mu);
      g_kept.push_back({spec_key(spec), std::move(m), ctx.get()});
    } catch (const std::exception&) {  // the run builds it again and says what is wrong
    }
  }
}

ModuleRef take_prebuilt(const ModuleSpec& spec, const cu::ContextPtr& ctx) {
  const std::lock_guard<std::mutex> lock(g_mu);
  if (g_kept.empty()) return nullptr;
  const std::string key = spec_key(spec);
  for (auto it = g_kept.begin(); it != g_kept.end(); ++it) {
    if (it->key != key || it->ctx != ctx.get()) continue;
    ModuleRef m = std::move(it->module);
    g_kept.erase(it);
    return headers_unchanged(*m) ? m : nullptr;
  }
  return nullptr;
}

std::size_t prebuilt_count() {
  const std::lock_guard<std::mutex> lock(g_mu);
  return g_kept.size();
}

}  // namespace warplab::lab
