// module_spec.cpp: see module_spec.hpp. Inline sources: the text is located in the Lua
// file after the calling line, so a diagnostic on the kernel's line 3 is reported at the
// Lua file's line where that kernel line is written.
#include "lab/module_spec.hpp"

#include <algorithm>
#include <cstdlib>

#include "lab/script.hpp"
#include "rtc/error.hpp"
#include "rtc/nvrtc_options.hpp"
#include "rtc/source.hpp"
#include "rtc/toolkit.hpp"
#include "sys/read.hpp"
#include "sys/shown.hpp"

namespace fs = std::filesystem;

namespace warplab::lab {

std::optional<fs::path> locate_kernel_file(const std::string& file, const std::string& caller_file) {
  std::error_code ec;
  std::vector<fs::path> tries = {file};
  if (fs::path(file).is_relative()) {
    if (!caller_file.empty()) tries.push_back(fs::path(caller_file).parent_path() / file);
    tries.push_back(rtc::kernels_dir() / file);
  }
  for (const auto& p : tries)
    if (fs::is_regular_file(p, ec)) return p;
  // Something is there but it is not a file (a folder, a device): the reader says which.
  for (const auto& p : tries)
    if (fs::exists(p, ec)) return p;
  return std::nullopt;
}

std::string kernel_file_missing(const std::string& file, const std::string& caller_file) {
  return "cannot open kernel file '" + file + "' (looked in the current folder" +
         (caller_file.empty() ? "" : ", next to " + caller_file) + " and " + rtc::kernels_dir().string() +
         ")";
}

std::optional<std::string> spec_from_file(ModuleSpec& spec, const std::string& file,
                                          const std::string& caller_file) {
  auto p = locate_kernel_file(file, caller_file);
  if (!p) return kernel_file_missing(file, caller_file);
  spec.path = p->string();
  return reread_source(spec);
}

std::optional<std::string> reread_source(ModuleSpec& spec) {
  try {
    spec.source = rtc::load_source(spec.path);
    return std::nullopt;
  } catch (const Error& e) {
    return e.what();
  }
}

int inline_first_line(const std::string& lua_file, int call_line, const std::string& text) {
  std::error_code ec;
  if (lua_file.empty() || !fs::exists(lua_file, ec)) return 0;  // no file (a REPL chunk), or gone since
  std::string lua;
  if (const auto e = sys::read_whole(lua_file, lua, static_cast<std::size_t>(kMaxScriptBytes)))
    throw Error(ErrorKind::bad_input,
                "cuda.compile: cannot read '" + sys::shown(lua_file) + "' to place the inline source: " + *e);
  std::size_t pos = 0;
  for (int l = 1; l < call_line && pos != std::string::npos; ++l) pos = lua.find('\n', pos) + 1;
  if (pos == std::string::npos) return 0;
  const std::string probe = text.substr(0, std::min<std::size_t>(text.size(), 200));
  if (probe.empty()) return 0;
  // At or after the call (the usual `cuda.compile{source = [[...]]}`), else anywhere in
  // the file (a source kept in a local above the call).
  std::size_t at = lua.find(probe, pos);
  if (at == std::string::npos) at = lua.find(probe);
  if (at == std::string::npos) return 0;
  return 1 + static_cast<int>(std::count(lua.begin(), lua.begin() + static_cast<long>(at), '\n'));
}

void set_inline_source(ModuleSpec& spec, const std::string& text, const std::string& caller_file,
                       int call_line) {
  spec.source.text = text;
  // Unnamed, the source's diagnostics point into the Lua file that holds it; with
  // name = "x.cu", or when the text is not in the calling file (built at run time, or
  // from another file), they count lines from the source's own first line.
  if (spec.source.name.empty()) {
    const int first = inline_first_line(caller_file, call_line, text);
    spec.source.name = first > 0 ? caller_file : "inline.cu";
    spec.source.line_offset = first > 0 ? first - 1 : 0;
  }
  // With no calling file, "..." includes start in the current folder; one that was removed
  // leaves none (never an exception's text: the includes then say where they looked).
  std::error_code ec;
  spec.source.dir = caller_file.empty() ? fs::current_path(ec) : fs::path(caller_file).parent_path();
}

bool env_lineinfo() {
  const char* v = std::getenv("WARPLAB_LINEINFO");
  return v && *v && std::string(v) != "0";
}

void add_options(rtc::Options& o, const std::vector<std::string>& options) {
  // Refused here already (rtc::compile checks again), so the script's line is named.
  if (const auto bad = rtc::check_options(options))
    throw Error(ErrorKind::bad_input, "cuda.compile: options: " + *bad);
  for (const auto& s : options) {
    if (s == "-lineinfo" || s == "--generate-line-info")
      o.lineinfo = true;
    else
      o.extra.push_back(s);
  }
}

std::pair<std::string, std::string> listed_define(int index, const std::string& text) {
  std::string msg;
  try {
    return rtc::parse_define(text);
  } catch (const rtc::Error& e) {
    msg = e.what();
  }
  throw Error(ErrorKind::bad_input, "cuda.compile: defines[" + std::to_string(index) + "]: " + msg);
}

std::pair<std::string, std::string> named_define(const std::string& name, std::string value) {
  std::string msg;
  try {
    rtc::check_define_name(name);
    return {name, std::move(value)};
  } catch (const rtc::Error& e) {
    msg = e.what();
  }
  throw Error(ErrorKind::bad_input, "cuda.compile: defines: " + msg);
}

void add_defines(rtc::Options& o, std::vector<std::pair<std::string, std::string>> named,
                 const std::vector<std::pair<std::string, std::string>>& listed) {
  std::sort(named.begin(), named.end());
  o.defines.insert(o.defines.end(), named.begin(), named.end());
  o.defines.insert(o.defines.end(), listed.begin(), listed.end());
}

void add_defines(rtc::Options& o, const std::map<std::string, std::string>& named,
                 const std::vector<std::string>& listed) {
  std::vector<std::pair<std::string, std::string>> n, l;
  for (std::size_t i = 0; i < listed.size(); ++i)
    l.push_back(listed_define(static_cast<int>(i + 1), listed[i]));
  for (const auto& [k, v] : named) n.push_back(named_define(k, v));
  add_defines(o, std::move(n), l);
}

}  // namespace warplab::lab
