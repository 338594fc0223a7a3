// diagnostics.cpp: parsing NVRTC's log. NVRTC 13 prints "file(LINE): error: message",
// then the source line indented by two spaces and a caret line (no column number), then
// indented context lines. The column comes from the caret; when there is none, from the
// identifier the message quotes. Formatting lives in format.cpp.
#include "rtc/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <optional>
#include <regex>

#include "rtc/signature.hpp"
#include "sys/regex_span.hpp"
#include "sys/text.hpp"

namespace warplab::rtc {
namespace {

// The patterns here only look at the first sys::regex_span bytes of a line (a caret under
// column 100000, a 200000-character identifier); what a pattern would take to the end of
// the line (the message) is cut from the whole line instead.
constexpr std::size_t kRegexSpan = sys::regex_span;
std::string head(const std::string& line) { return sys::regex_head(line); }

// A decimal number that fits an int, or nothing ("#line 99999999999" makes NVRTC print
// such line numbers).
std::optional<int> to_int(const std::string& digits) {
  int v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}
int add_clamped(int a, int b) {
  return static_cast<int>(std::clamp<long long>(static_cast<long long>(a) + b, INT_MIN, INT_MAX));
}

// "   ^  ": the caret line under an echoed source line.
bool is_caret_line(const std::string& l) {
  const std::size_t c = l.find_first_not_of(" \t");
  return c != std::string::npos && l[c] == '^' &&
         l.find_first_not_of(" \t\n\v\f\r", c + 1) == std::string::npos;
}

// The 1-based column a caret line under an echoed line points at (NVRTC indents the echo by
// two; the caret line copies its whitespace).
int caret_column(const std::string& caret_line) {
  return static_cast<int>(std::min<std::size_t>(caret_line.find('^'), INT_MAX)) - 1;
}

// Lines without their terminators; a CR before the LF is dropped too (CRLF sources).
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    pos = eol + 1;
  }
  return out;
}

std::string nth_line(const std::string& text, int n) {
  const std::vector<std::string> lines = split_lines(text);
  return n >= 1 && n <= static_cast<int>(lines.size()) ? lines[n - 1] : std::string();
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// Where the first "quoted" thing of `message` sits in `line` (whole identifiers only when
// it is one): 1-based, or 0 when it does not appear.
int locate_quoted(const std::string& message, const std::string& line) {
  const std::size_t q1 = message.find('"');
  const std::size_t q2 = q1 == std::string::npos ? q1 : message.find('"', q1 + 1);
  if (q2 == std::string::npos || q2 == q1 + 1) return 0;
  const std::string what = message.substr(q1 + 1, q2 - q1 - 1);
  const bool ident = is_ident_char(what.front()) && is_ident_char(what.back());
  for (std::size_t p = line.find(what); p != std::string::npos; p = line.find(what, p + 1)) {
    const bool left_ok = p == 0 || !is_ident_char(line[p - 1]);
    const bool right_ok = p + what.size() >= line.size() || !is_ident_char(line[p + what.size()]);
    if (!ident || (left_ok && right_ok)) return static_cast<int>(p) + 1;
  }
  return 0;
}

// "catastrophic error", "fatal error", "internal error" are all errors to the user.
Severity severity_of(const std::string& word) {
  if (word.find("error") != std::string::npos || word == "fatal") return Severity::Error;
  if (word == "warning") return Severity::Warning;
  return Severity::Remark;
}

// "at line 12" / "at line 12 of "file"" in context notes: shift and rename like the
// diagnostic's own location.
std::string map_note(const std::string& note, const std::map<std::string, LogFile>& files, int own_offset) {
  static const std::regex at_line(R"re(at line (\d+)(?: of "([^"]+)")?)re");
  std::smatch m;
  const std::string h = head(note);
  if (!std::regex_search(h, m, at_line)) return note;
  std::optional<int> line = to_int(m[1]);
  if (!line) return note;
  std::string where;
  if (m[2].matched) {
    const auto it = files.find(m[2]);
    line = add_clamped(*line, it == files.end() ? 0 : it->second.line_offset);
    where = " of \"" + (it == files.end() ? m[2].str() : it->second.display) + "\"";
  } else {
    line = add_clamped(*line, own_offset);
  }
  const std::size_t end = static_cast<std::size_t>(m.position(0) + m.length(0));
  return m.prefix().str() + "at line " + std::to_string(*line) + where + note.substr(end);
}

// ptxas speaks in mangled names and hex: "Entry function '_Z3bigPf' uses too much shared
// data (0x3a980 bytes, 0xc000 max)" -> "'big(float*)' ... (240000 bytes, 49152 max)".
std::string readable(const std::string& msg) {
  if (msg.size() > kRegexSpan) return msg;  // kept as NVRTC said it
  static const std::regex mangled(R"re('(_Z[\w$]+)')re");
  static const std::regex hex(R"re(\b0x([0-9a-fA-F]+)\b)re");
  std::string out;
  std::string rest = msg;
  std::smatch m;
  while (std::regex_search(rest, m, mangled)) {
    const auto sig = demangle(m[1]);
    out += m.prefix().str() + "'" + (sig ? sig->to_string() : m[1].str()) + "'";
    rest = m.suffix();
  }
  out += rest;
  rest.swap(out);
  out.clear();
  while (std::regex_search(rest, m, hex)) {
    // More than 16 hex digits does not fit: keep the text.
    const std::string digits = m[1].str();
    out += m.prefix().str() +
           (digits.size() <= 16 ? std::to_string(std::stoull(digits, nullptr, 16)) : "0x" + digits);
    rest = m.suffix();
  }
  return out + rest;
}

// What NVRTC's location and echoed line become: the user's file name and line, the
// line from the file as read, and a column. `caret_col` is 0 when NVRTC drew no caret.
void place(Diagnostic& d, const std::string& name, int raw_line, int caret_col, const std::string& echoed,
           const std::map<std::string, LogFile>& files) {
  const auto it = files.find(name);
  const bool known = it != files.end();
  d.file = known ? it->second.display : name;
  d.line = raw_line > 0 ? add_clamped(raw_line, known ? it->second.line_offset : 0) : 0;
  d.source_line = known ? nth_line(it->second.text, raw_line) : echoed;
  // A caret past the end of the line (NVRTC puts "cannot open source file" there) says
  // less than the quoted name it complains about.
  const int len = static_cast<int>(d.source_line.size());
  const int quoted = locate_quoted(d.message, d.source_line);
  if (caret_col >= 1 && caret_col <= len)
    d.col = caret_col;
  else if (quoted > 0)
    d.col = quoted;
  else
    d.col = caret_col >= 1 ? caret_col : 1;
}

// NVRTC compiles name expressions as "#pragma nv_mangled_name EXPR" lines of an internal
// file "__nv_name_map", in an order of its own: the echoed line says which one failed.
void explain_name_expression(Diagnostic& d, const std::string& echoed,
                             const std::vector<std::string>& name_expressions) {
  const std::string pragma = "#pragma nv_mangled_name ";
  std::string expr = echoed.rfind(pragma, 0) == 0 ? sys::trim(echoed.substr(pragma.size())) : "";
  if (expr.empty() && name_expressions.size() == 1) expr = name_expressions[0];
  d.message = (expr.empty() ? "a name expression: " : "name expression \"" + expr + "\": ") + d.message;
}

}  // namespace

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::Error:
      return "error";
    case Severity::Warning:
      return "warning";
    case Severity::Remark:
      return "remark";
  }
  return "error";
}

std::vector<Diagnostic> parse_log(const std::string& log, const std::map<std::string, LogFile>& files,
                                  const std::vector<std::string>& name_expressions) {
  // file(LINE[,COL]): severity[ #code]: message. The column form is not printed by
  // NVRTC 13; accepting it costs nothing should a later version add it. The message is
  // the rest of the line (kRegexSpan).
  static const std::regex header(R"re(^(.+?)\((\d+)(?:,\s*(\d+))?\): )re"
                                 R"re((catastrophic error|fatal error|internal error|error|warning|remark))re"
                                 R"re((?: #([0-9A-Za-z_-]+))?: )re");
  // "nvrtc: error: bad option", "ptxas error   : Entry function ...".
  static const std::regex tool(R"re(^(nvrtc|ptxas|nvlink)\s*(error|warning|fatal)?\s*:\s*)re"
                               R"re((?:(error|warning|fatal)\s*:\s*)?)re");
  // The resource report (parsed in resources.cpp) and NVRTC's closing summaries.
  static const std::regex skip(R"re(^(ptxas\s+(info\s*:|\.)|Remark: The warnings can be suppressed|)re"
                               R"re(\d+ .*detected in the compilation of|Compilation terminated\.$))re");

  const std::vector<std::string> lines = split_lines(log);
  std::vector<Diagnostic> out;
  bool open = false;          // the last diagnostic may still take context lines
  bool column_given = false;  // the last diagnostic's header or its caret gave its column
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const std::string h = head(l);
    std::smatch m;
    if (l.empty() || std::regex_search(h, skip)) {
      open = false;
      continue;
    }
    if (std::regex_search(h, m, header)) {
      Diagnostic d;
      d.severity = severity_of(m[4]);
      d.code = m[5];
      d.message = l.substr(static_cast<std::size_t>(m.length(0)));
      // A number past INT_MAX (after "#line 2147483647") is no location: 0.
      const int line = to_int(m[2]).value_or(0);
      int caret_col = m[3].matched ? to_int(m[3]).value_or(0) : 0;
      column_given = caret_col > 0;
      // The echoed line is indented by two spaces; the caret line copies its whitespace.
      std::string echoed;
      if (i + 2 < lines.size() && lines[i + 1].rfind("  ", 0) == 0 && is_caret_line(lines[i + 2])) {
        echoed = lines[i + 1].substr(2);
        caret_col = caret_column(lines[i + 2]);
        column_given = true;
        i += 2;
      }
      if (m[1] == "__nv_name_map")
        explain_name_expression(d, echoed, name_expressions);
      else
        place(d, m[1], line, caret_col, echoed, files);
      out.push_back(std::move(d));
      open = true;
    } else if (std::regex_search(h, m, tool)) {
      Diagnostic d;
      const std::string word = m[2].matched ? m[2].str() : m[3].str();
      const std::string rest = l.substr(static_cast<std::size_t>(m.length(0)));
      d.severity = word.empty() ? Severity::Remark : severity_of(word);
      d.message = m[1] == "nvrtc" ? rest : m[1].str() + ": " + readable(rest);
      // Static __shared__ arrays stop at 48 KiB a block; more is dynamic shared memory.
      if (m[1] == "ptxas" && rest.find("uses too much shared data") != std::string::npos)
        d.notes.push_back(
            "static __shared__ arrays are limited to 48 KiB a block: for more, declare "
            "`extern __shared__ float s[];` and give the bytes at launch with `shared =` (dynamic shared "
            "memory, up to the device's max_shared_memory_per_block_optin)");
      out.push_back(std::move(d));
      open = true;
    } else if (l.rfind("Command-line error: ", 0) == 0) {
      // An option NVRTC's front end refused (a bad macro, a file it could not open): an
      // error, though NVRTC prints it without a severity.
      Diagnostic d;
      d.severity = Severity::Error;
      d.message = "in the options: " + l.substr(20);
      out.push_back(std::move(d));
      open = true;
    } else if (open && l.rfind("  ", 0) == 0 && i + 1 < lines.size() && is_caret_line(lines[i + 1])) {
      // The source line and its caret, echoed after the context lines (an overload's
      // candidates come first): the diagnostic shows them already; the caret gives its
      // column where the header had none.
      Diagnostic& d = out.back();
      const int caret_col = caret_column(lines[i + 1]);
      const bool same_line = d.source_line.empty() || sys::trim(d.source_line) == sys::trim(l);
      if (d.source_line.empty()) d.source_line = l.substr(2);
      if (same_line && !column_given && caret_col >= 1 && caret_col <= static_cast<int>(d.source_line.size()))
        d.col = caret_col;
      ++i;
    } else if (open && (l[0] == ' ' || l[0] == '\t')) {
      int own_offset = 0;  // notes without "of file" speak of the diagnostic's own file
      for (const auto& [n, f] : files)
        if (f.display == out.back().file) own_offset = f.line_offset;
      out.back().notes.push_back(map_note(sys::trim(l), files, own_offset));
    } else {
      // Anything else NVRTC says is kept, so nothing it reports is lost.
      Diagnostic d;
      d.severity = Severity::Remark;
      d.message = sys::trim(l);
      out.push_back(std::move(d));
      open = true;
    }
  }
  return out;
}

std::size_t count(const std::vector<Diagnostic>& diags, Severity s) {
  std::size_t n = 0;
  for (const Diagnostic& d : diags) n += d.severity == s;
  return n;
}

}  // namespace warplab::rtc
