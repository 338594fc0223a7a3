// pch.cpp: the kept precompiled headers (pch.hpp). NVRTC compares a PCH with a source by
// their opening directives and the options; it does not see that a header handed over by
// name changed its bytes (measured with NVRTC 13.0: it reuses the stale one), so every
// header's hash is kept with the PCH and compared here.
#include "rtc/pch.hpp"
#include "rtc/program.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "rtc/compile.hpp"
#include "rtc/diagnostics.hpp"
#include "rtc/nvrtc_options.hpp"

namespace warplab::rtc {
namespace {

struct Kept {
  std::string file;                            // the PCH NVRTC wrote
  std::vector<std::string> directives;         // opening_directives of the warm-up source
  std::vector<std::string> options;            // exactly what NVRTC got, PCH options aside
  std::map<std::string, std::string> headers;  // include name -> content hash, as handed over
};

struct Registry {
  std::mutex mu;
  std::vector<Kept> kept;
};

// Never destroyed: a child forked from a warm process must not remove the parent's
// files when it exits (and children leave with _exit anyway).
Registry& registry() {
  static auto* r = new Registry;
  return *r;
}

// "#  include   <a.h> // why" -> "#include <a.h>": NVRTC ignores comments and spacing.
std::string normalize_directive(std::string line) {
  if (const auto c = line.find("//"); c != std::string::npos) line.erase(c);
  std::string out;
  bool space = false;
  for (const char ch : line) {
    const bool ws = ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
    if (ws) {
      space = !out.empty();
      continue;
    }
    if (space && !(out == "#")) out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

// The kept entry that fits a source opening with `dirs`, under `options`, with these
// headers (include name -> bytes): the one with the most directives; `why` when none.
const Kept* fitting(const std::vector<Kept>& kept, const std::vector<std::string>& dirs,
                    const std::vector<std::string>& options,
                    const std::map<std::string, const std::string*>& texts, std::string& why) {
  const Kept* best = nullptr;
  why = kept.empty() ? "no headers kept warm in this process" : "none of the kept headers opens this source";
  for (const Kept& k : kept) {
    if (k.directives.size() > dirs.size() ||
        !std::equal(k.directives.begin(), k.directives.end(), dirs.begin()))
      continue;
    if (k.options != options) {
      why = "the kept headers were compiled with other options";
      continue;
    }
    bool same = true;
    for (const auto& [name, hash] : k.headers) {
      const auto t = texts.find(name);
      same = same && t != texts.end() && content_hash(*t->second) == hash;
    }
    if (!same) {
      why = "a header changed since it was kept warm";
      continue;
    }
    if (!best || k.directives.size() > best->directives.size()) best = &k;
  }
  return best;
}

std::map<std::string, const std::string*> header_texts(const ResolvedIncludes& inc) {
  std::map<std::string, const std::string*> texts;
  for (std::size_t i = 0; i < inc.header_names.size(); ++i) texts[inc.header_names[i]] = &inc.header_texts[i];
  return texts;
}

// One empty compile under `options`, once per option list: NVRTC's own first-use cost,
// paid here so that a process forked afterwards does not pay it.
void warm_nvrtc(const std::vector<std::string>& options) {
  static std::mutex mu;
  static std::set<std::vector<std::string>> done;
  const std::lock_guard<std::mutex> lock(mu);
  if (!done.insert(options).second) return;
  Program prog;
  if (create_program(prog, "", "warm.cu") != NVRTC_SUCCESS) return;
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  compile_program(prog.get(), static_cast<int>(argv.size()), argv.data());
}

}  // namespace

OpeningDirectives opening_directives(const std::string& text) {
  OpeningDirectives out;
  std::vector<std::string> lines;
  bool in_comment = false;
  int depth = 0;  // open #if blocks: a prefix that ends inside one would not compile
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    std::size_t next = eol + 1;
    // A directive continued with a backslash takes the next lines with it.
    while (!line.empty() && line.back() == '\\' && next < text.size()) {
      std::size_t e2 = text.find('\n', next);
      if (e2 == std::string::npos) e2 = text.size();
      line.pop_back();
      line += text.substr(next, e2 - next);
      next = e2 + 1;
    }
    // Strip /* */ comments (which may span lines) from what this line says.
    std::string code;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (in_comment) {
        if (line.compare(i, 2, "*/") == 0) {
          in_comment = false;
          ++i;
        }
      } else if (line.compare(i, 2, "/*") == 0) {
        in_comment = true;
        ++i;
      } else {
        code += line[i];
      }
    }
    const std::string d = normalize_directive(code);
    if (!d.empty() && d[0] != '#') break;  // the first line of code ends the prefix
    if (!d.empty()) {
      lines.push_back(d);
      if (d.starts_with("#if")) ++depth;
      if (d.starts_with("#endif") && depth > 0) --depth;
      if (depth == 0) {
        out.lines = lines;
        out.end = std::min(next, text.size());
      }
    }
    pos = next;
  }
  return out;
}

WarmResult warm_headers(const Source& src, const Options& opt, const std::string& dir) {
  const auto t0 = std::chrono::steady_clock::now();
  WarmResult w;
  auto done = [&](std::string why) {
    w.why = std::move(why);
    w.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return w;
  };
  Source named = src;
  if (named.name.empty()) named.name = "source.cu";
  // The prefix alone is compiled, so the PCH's headers are exactly those it includes.
  const OpeningDirectives open = opening_directives(named.text);
  bool any_include = false;
  for (const std::string& d : open.lines) any_include = any_include || d.starts_with("#include");
  // Options compile() would refuse (check_options) are never compiled here either.
  if (auto bad = check_options(opt.extra)) return done(std::move(*bad));
  const std::vector<std::string> options = compile_options(opt);
  if (!any_include) {
    warm_nvrtc(options);
    return done("no #include to precompile");
  }
  Source prefix = named;
  prefix.text = named.text.substr(0, open.end) + "\n";
  std::vector<std::filesystem::path> dirs;
  try {
    dirs = include_search_dirs(opt);
  } catch (const Error& e) {  // a folder that cannot be used: compile() says so
    return done(e.what());
  }
  const ResolvedIncludes inc = resolve_includes(prefix, dirs);
  for (const MissingInclude& m : inc.missing)  // (the others are NVRTC's: CUDA's own headers)
    if (!m.refused.empty()) return done(m.refused);

  Kept k;
  k.directives = opening_directives(inc.main_text).lines;
  k.options = options;
  {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mu);
    std::string why;
    if (const Kept* e = fitting(r.kept, k.directives, options, header_texts(inc), why);
        e && e->directives == k.directives) {
      w.made = w.kept = true;
      w.file = e->file;
      return done({});
    }
  }
  for (std::size_t i = 0; i < inc.header_names.size(); ++i)
    k.headers[inc.header_names[i]] = content_hash(inc.header_texts[i]);
  std::string key = inc.main_text;
  for (const std::string& o : k.options) key += "\n" + o;
  for (const auto& [name, hash] : k.headers) key += "\n" + name + " " + hash;
  k.file = (std::filesystem::path(dir) / (content_hash(key) + ".pch")).string();

  std::vector<const char*> texts, names;
  for (std::size_t i = 0; i < inc.header_names.size(); ++i) {
    texts.push_back(inc.header_texts[i].c_str());
    names.push_back(inc.header_names[i].c_str());
  }
  Program prog;
  WL_RTC_CHECK(create_program(prog, inc.main_text.c_str(), named.name.c_str(), static_cast<int>(texts.size()),
                              texts.data(), names.data()));
  std::vector<std::string> o = k.options;
  o.insert(o.end(), {"--create-pch=" + k.file, "--pch-messages=false", "--pch-verbose=false"});
  std::vector<const char*> argv;
  for (const std::string& s : o) argv.push_back(s.c_str());
  const nvrtcResult rc = compile_program(prog.get(), static_cast<int>(argv.size()), argv.data());
  std::size_t n = 0;
  std::string log;
  if (nvrtcGetProgramLogSize(prog.get(), &n) == NVRTC_SUCCESS && n > 1) {
    log.resize(n);
    nvrtcGetProgramLog(prog.get(), log.data());
  }
  if (rc != NVRTC_SUCCESS) return done("its headers do not compile on their own");
  if (const auto d = parse_log(log, {}); count(d, Severity::Warning) + count(d, Severity::Error) > 0)
    return done("its headers give warnings, which a PCH would not repeat");
  const nvrtcResult st = nvrtcGetPCHCreateStatus(prog.get());
  std::error_code ec;
  if (st != NVRTC_SUCCESS || !std::filesystem::exists(k.file, ec)) {
    std::filesystem::remove(k.file, ec);
    return done(st == NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED
                    ? "its headers do not fit NVRTC's PCH heap"
                    : std::string("NVRTC made no PCH (") + nvrtcGetErrorString(st) + ")");
  }
  w.made = true;
  w.file = k.file;
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mu);
  std::erase_if(r.kept, [&](const Kept& e) { return e.file == k.file; });
  r.kept.push_back(std::move(k));
  return done({});
}

void forget_warm_headers(const std::vector<std::string>& files) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mu);
  std::error_code ec;
  std::erase_if(r.kept, [&](const Kept& k) {
    if (std::find(files.begin(), files.end(), k.file) != files.end()) return false;
    std::filesystem::remove(k.file, ec);
    return true;
  });
}

std::size_t warm_header_count() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mu);
  return r.kept.size();
}

std::vector<std::string> pch_options(const ResolvedIncludes& inc, const std::vector<std::string>& options,
                                     std::string& why) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mu);
  if (r.kept.empty()) {
    why = "no headers kept warm in this process";
    return {};
  }
  const Kept* best =
      fitting(r.kept, opening_directives(inc.main_text).lines, options, header_texts(inc), why);
  if (!best) return {};
  why = best->file;
  return {"--use-pch=" + best->file, "--pch-messages=false", "--pch-verbose=false"};
}

bool pch_refused(const std::string& log) { return log.find("precompiled header") != std::string::npos; }

}  // namespace warplab::rtc
