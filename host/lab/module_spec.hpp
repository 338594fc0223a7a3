// module_spec.hpp: cuda.compile's arguments without Lua: finding a kernel file (as given,
// next to the calling script, in kernels_src), placing an inline source at its line in the
// calling file, checking defines, the -lineinfo spellings, and reading a module's file
// again (reload, live refresh). bind/compile_args.cpp reads the Lua table and calls these.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/module.hpp"

namespace warplab::lab {

// Where `file` is: as given, else (relative) next to `caller_file` (the calling script,
// "" when none), else in rtc::kernels_dir(). A path that exists but is not a regular
// file is returned too (the reader then says what it is); nullopt when nothing is there.
std::optional<std::filesystem::path> locate_kernel_file(const std::string& file,
                                                        const std::string& caller_file);
// The sentence for a file locate_kernel_file did not find.
std::string kernel_file_missing(const std::string& file, const std::string& caller_file);
// Fills spec.path and spec.source from `file`: nullopt, or the sentence why not when it is
// not found or cannot be read.
std::optional<std::string> spec_from_file(ModuleSpec& spec, const std::string& file,
                                          const std::string& caller_file);
// Reads spec.path again into spec.source: nullopt, or the sentence when unreadable.
std::optional<std::string> reread_source(ModuleSpec& spec);

// Line (1-based) of `lua_file` where `text` (an inline source) starts: at or after
// `call_line`, else anywhere in the file; 0 when not found (or no such file). A file that
// is there but cannot be read throws lab::Error with the OS reason.
int inline_first_line(const std::string& lua_file, int call_line, const std::string& text);
// Sets spec.source to the inline `text` written in `caller_file` near `call_line`:
// unnamed, its diagnostics point into that file's lines; named (spec.source.name set
// before) or not found there, they count from the source's own first line.
void set_inline_source(ModuleSpec& spec, const std::string& text, const std::string& caller_file,
                       int call_line);

// WARPLAB_LINEINFO=1 (set by `run --sanitize` for its child): line info everywhere.
bool env_lineinfo();
// options = {...}: checked (rtc::check_options; throws Error bad_input with its sentence),
// then "-lineinfo" and "--generate-line-info" set o.lineinfo, the rest go to o.extra.
void add_options(rtc::Options& o, const std::vector<std::string>& options);

// Defines, one entry at a time, each checked (throws Error bad_input with the sentence):
// defines[index] = "NAME=value" or "NAME", and defines.NAME = value.
std::pair<std::string, std::string> listed_define(int index, const std::string& text);
std::pair<std::string, std::string> named_define(const std::string& name, std::string value);
// Appends to o.defines: the named ones sorted by name (a table's order changes from run
// to run; the option list should not), then the listed ones in their order.
void add_defines(rtc::Options& o, std::vector<std::pair<std::string, std::string>> named,
                 const std::vector<std::pair<std::string, std::string>>& listed);
// The same from plain C++: checks every entry, then add_defines.
void add_defines(rtc::Options& o, const std::map<std::string, std::string>& named,
                 const std::vector<std::string>& listed);

}  // namespace warplab::lab
