// format.cpp: diagnostics printed compiler style, with the source line and a caret, the
// first N only (errors first) and a count of the rest. Pure string work.
#include <string>

#include "rtc/diagnostics.hpp"
#include "sys/text.hpp"

namespace warplab::rtc {
namespace {

struct Style {
  bool on;
  std::string paint(std::string_view code, const std::string& s) const {
    return on ? "\033[" + std::string(code) + "m" + s + "\033[0m" : s;
  }
};

std::string_view color_of(Severity s) {
  switch (s) {
    case Severity::Error:
      return "1;31";
    case Severity::Warning:
      return "1;35";
    case Severity::Remark:
      return "1;36";
  }
  return "1";
}

// The caret line keeps the tabs of the source line and one space per UTF-8 character,
// so the caret lands under byte column `col` on a terminal.
std::string caret_prefix(const std::string& line, int col) {
  std::string out;
  for (int i = 0; i + 1 < col && i < static_cast<int>(line.size()); ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == '\t')
      out += '\t';
    else if ((c & 0xC0) != 0x80)
      out += ' ';
  }
  // A column past the end of the line (an unterminated construct) still gets a caret.
  for (int i = static_cast<int>(line.size()); i + 1 < col; ++i) out += ' ';
  return out;
}

// One diagnostic: the location (only the parts known), severity, message, NVRTC's code
// in brackets (what -diag-suppress takes), then the source line, caret and notes.
void format_one(const Diagnostic& d, const Style& st, std::string& out) {
  std::string loc;
  if (!d.file.empty()) {
    loc = d.file;
    if (d.line > 0) loc += ":" + std::to_string(d.line);
    if (d.line > 0 && d.col > 0) loc += ":" + std::to_string(d.col);
    out += st.paint("1", loc + ":") + " ";
  }
  out += st.paint(color_of(d.severity), std::string(to_string(d.severity)) + ":") + " ";
  out += d.message;
  if (!d.code.empty()) out += " [#" + d.code + "]";
  out += "\n";
  if (!d.source_line.empty()) {
    out += "  " + d.source_line + "\n";
    if (d.col > 0) out += "  " + caret_prefix(d.source_line, d.col) + st.paint("1;32", "^") + "\n";
  }
  for (const std::string& n : d.notes) out += "  " + st.paint("1;36", "note:") + " " + n + "\n";
}

}  // namespace

std::string format_diagnostics(const std::vector<Diagnostic>& diags, std::size_t max_shown, bool color) {
  const Style st{color};
  // Choose what to show: errors in order first, then the rest in order, up to max_shown;
  // print the chosen ones in log order.
  std::vector<bool> shown(diags.size(), max_shown == 0);
  if (max_shown != 0) {
    std::size_t n = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t i = 0; i < diags.size() && n < max_shown; ++i)
        if (!shown[i] && (pass == 1 || diags[i].severity == Severity::Error)) {
          shown[i] = true;
          ++n;
        }
  }
  // Count what is left out by severity, so "and 4 more" says whether errors hide there.
  std::string out;
  std::size_t hidden_err = 0, hidden_warn = 0, hidden_other = 0;
  for (std::size_t i = 0; i < diags.size(); ++i) {
    if (shown[i]) {
      format_one(diags[i], st, out);
      continue;
    }
    switch (diags[i].severity) {
      case Severity::Error:
        ++hidden_err;
        break;
      case Severity::Warning:
        ++hidden_warn;
        break;
      case Severity::Remark:
        ++hidden_other;
        break;
    }
  }
  const std::size_t hidden = hidden_err + hidden_warn + hidden_other;
  if (hidden > 0) {
    std::vector<std::string> parts;
    if (hidden_err) parts.push_back(sys::plural(hidden_err, "error"));
    if (hidden_warn) parts.push_back(sys::plural(hidden_warn, "warning"));
    if (hidden_other) parts.push_back(sys::plural(hidden_other, "remark"));
    std::string list;
    for (std::size_t i = 0; i < parts.size(); ++i) list += (i ? ", " : "") + parts[i];
    out += "... and " + std::to_string(hidden) + " more not shown (" + list + ")\n";
  }
  return out;
}

}  // namespace warplab::rtc
