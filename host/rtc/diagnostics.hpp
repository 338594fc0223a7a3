// diagnostics.hpp: NVRTC's log turned into compiler-style diagnostics {file, line, col,
// severity, message, source line}, mapped back to the files the user knows (header
// display paths, inline sources' Lua lines), and printed with a caret. No NVRTC calls.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::rtc {

enum class Severity { Error, Warning, Remark };
std::string_view to_string(Severity s);

struct Diagnostic {
  std::string file;  // display path; empty for messages about the whole compile
  int line = 0;      // 1-based, inline-source offset applied; 0: no location
  int col = 0;       // 1-based byte column; 0: no location
  Severity severity = Severity::Error;
  std::string code;                // NVRTC's number when it gives one: "177-D"
  std::string message;             // one line, as NVRTC words it
  std::string source_line;         // the offending line, from the file warplab read
  std::vector<std::string> notes;  // context lines, e.g. "detected during instantiation"
};

// What a file name in NVRTC's log stands for.
struct LogFile {
  std::string display;  // the name to show
  std::string text;     // the file's bytes as the user wrote them (for source lines)
  int line_offset = 0;  // added to NVRTC's line numbers
};

// Parses an NVRTC log. `files` maps the names NVRTC prints to what they stand for (names
// not in it, e.g. CUDA's own headers, are shown as printed); `name_expressions` explains
// errors NVRTC attributes to its internal "__nv_name_map". ptxas info lines (the
// resource report) and NVRTC's summary lines are left out.
std::vector<Diagnostic> parse_log(const std::string& log, const std::map<std::string, LogFile>& files,
                                  const std::vector<std::string>& name_expressions = {});

// Compiler style: "file:line:col: error: message", the source line, a caret under the
// column, the notes. At most `max_shown` (0: all), errors chosen before warnings, then
// "and K more ..." for the rest. `color` adds ANSI colours.
std::string format_diagnostics(const std::vector<Diagnostic>& diags, std::size_t max_shown, bool color);

std::size_t count(const std::vector<Diagnostic>& diags, Severity s);

}  // namespace warplab::rtc
