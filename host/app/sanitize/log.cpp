// sanitize/log.cpp: reading compute-sanitizer's text log (log.hpp), a log in, findings
// out, for the tool's 2020-2025 formats (CUDA 11 to 13): records start at "========= ", details
// at "=========     "; a location reads "kernel(args)+0x70 in file.cu:12" (CUDA 12+) or
// "0x00000070 in file.cu:12:kernel(args)" (CUDA 11), without " in file:line" when the code
// has no line information.
#include "app/sanitize/log.hpp"

#include <algorithm>
#include <regex>

#include "sys/regex_span.hpp"

namespace warplab::app::sanitize {
namespace {

// A line of the tool's, without its prefix: `indent` 1 for a record's first line, more for
// its details. nullopt for a line that is not the tool's (the program's own output).
struct ToolLine {
  int indent = 0;
  std::string text;
};
std::optional<ToolLine> tool_line(std::string_view raw) {
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  static constexpr std::string_view kPrefix = "=========";
  if (raw.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  raw.remove_prefix(kPrefix.size());
  ToolLine l;
  while (!raw.empty() && raw.front() == ' ') raw.remove_prefix(1), ++l.indent;
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t')) raw.remove_suffix(1);
  l.text = std::string(raw);
  return l;
}

std::string trim_end(std::string s, std::string_view chars) {
  while (!s.empty() && chars.find(s.back()) != std::string_view::npos) s.pop_back();
  return s;
}

// "void reduce<256>(float const*, float*)" -> "reduce<256>".
std::string kernel_name(std::string s) {
  if (s.starts_with("void ")) s.erase(0, 5);
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) return s.substr(0, i);
    }
  }
  return s;
}

struct Location {
  std::string kernel, file;
  int line = 0;
};

Location parse_location(const std::string& s) {
  static const std::regex old_form(R"(^0x[0-9a-fA-F]+ in (.+)$)");
  static const std::regex old_lines(R"(^(.+?):(\d+):(.+)$)");
  static const std::regex new_form(R"(^(.+?)\+0x[0-9a-fA-F]+(?: in (.+):(\d+))?$)");
  static const std::regex file_first(R"(^(.+):(\d+) in (.+)$)");
  std::smatch m;
  Location loc;
  if (std::regex_match(s, m, old_form)) {
    const std::string rest = m[1];
    if (std::regex_match(rest, m, old_lines)) {
      loc.file = m[1], loc.line = std::stoi(m[2]), loc.kernel = kernel_name(m[3]);
    } else {
      loc.kernel = kernel_name(rest);
    }
  } else if (std::regex_match(s, m, new_form)) {
    loc.kernel = kernel_name(m[1]);
    if (m[2].matched) loc.file = m[2], loc.line = std::stoi(m[3]);
  } else if (std::regex_match(s, m, file_first)) {
    loc.file = m[1], loc.line = std::stoi(m[2]), loc.kernel = kernel_name(m[3]);
  } else {
    loc.kernel = kernel_name(s);
  }
  return loc;
}

std::string basename(const std::string& p) {
  const auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The parser's state between lines: the record being read, and an unknown top-level line
// that becomes a record if an "at <location>" follows it.
struct Parser {
  Report r;
  long cur = -1;
  bool located = false;
  std::string pending;
  std::vector<std::string> partners;  // racecheck: the other accesses of the current race

  Finding& open(std::string kind, bool warning = false) {
    r.findings.push_back({});
    cur = static_cast<long>(r.findings.size()) - 1;
    located = false;
    partners.clear();
    Finding& f = r.findings.back();
    f.kind = std::move(kind);
    f.warning = warning;
    return f;
  }
  void locate(const std::string& where) {
    if (cur < 0 || located) return;
    const Location loc = parse_location(where);
    Finding& f = r.findings[static_cast<std::size_t>(cur)];
    f.kernel = loc.kernel, f.file = loc.file, f.line = loc.line;
    located = true;
  }
  void top(const std::string& t);
  void detail(const std::string& t);
};

void Parser::top(const std::string& t) {
  static const std::regex error_summary(R"(^ERROR SUMMARY: (\d+) errors?)");
  static const std::regex race_summary(
      R"(^RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\))");
  static const std::regex race(
      R"(^(Error|Warning|ERROR|WARNING): Race reported between (\w+) access at (.+)$)");
  static const std::regex hazard(
      R"(^(Error|Warning|ERROR|WARNING): Potential (\w+) hazard detected at (__\w+__|\w+))");
  static const std::regex api(
      R"(^Program hit (\S+) \(error \d+\) due to \"(.*)\" on CUDA API call to ([^.\s]+))");
  std::smatch m;
  cur = -1;
  pending.clear();
  if (t == "COMPUTE-SANITIZER" || t == "CUDA-MEMCHECK") {
    r.banner = true;
  } else if (std::regex_search(t, m, error_summary)) {
    r.error_summary = std::stoll(m[1]);
  } else if (std::regex_search(t, m, race_summary)) {
    r.race_displayed = std::stoll(m[1]), r.race_errors = std::stoll(m[2]);
    r.race_warnings = std::stoll(m[3]);
  } else if (std::regex_match(t, m, race)) {
    const bool warn = m[1].str()[0] == 'W';
    const std::string access = m[2], where = m[3];
    Finding& f = open("race between " + access, warn);
    f.detail = "shared memory";
    f.count = 0;  // the hazards of the "and ..." lines; 1 when they give none
    locate(where);
  } else if (std::regex_search(t, m, hazard)) {
    Finding& f = open(m[2].str() + " hazard", m[1].str()[0] == 'W');
    f.detail = m[3] == "__shared__" ? "shared memory" : m[3].str();
  } else if (std::regex_search(t, m, api)) {
    Finding& f = open("CUDA API error " + m[1].str() + " (" + m[2].str() + ")");
    f.detail = "in " + m[3].str();
    located = true;  // a host call: no kernel, no line
  } else if (t.starts_with("Barrier error") || t.starts_with("Invalid ") || t.starts_with("Uninitialized ") ||
             t.starts_with("Misaligned ") || t.starts_with("Out-of-range ") || t.starts_with("Malloc/Free") ||
             t.starts_with("Host API ") || t.starts_with("Warp ") || t.starts_with("Illegal ")) {
    open(trim_end(t, ".: "));
    if (t.starts_with("Host API ")) located = true;
  } else if (t.find("Internal Sanitizer Error") != std::string::npos || t.starts_with("Error:") ||
             t.starts_with("ERROR:")) {
    r.tool_messages.push_back(t);
  } else if (!t.starts_with("LEAK SUMMARY") && !t.starts_with("Process ID") &&
             !t.starts_with("Target application")) {
    pending = trim_end(t, ".: ");
  }
}

void Parser::detail(const std::string& t) {
  static const std::regex partner(R"(^and (\w+) access at (.+?)(?: \[(\d+) hazards?\])?$)");
  static const std::regex thread(R"(^(\w+) Thread \([^)]*\) at (.+)$)");
  static const std::regex after(
      R"(^and is (\d+) bytes? (after|before) the nearest allocation at \S+ of size (\d+) bytes?)");
  std::smatch m;
  if (t.starts_with("at ")) {
    if (cur < 0 && !pending.empty()) open(pending);
    pending.clear();
    locate(t.substr(3));
    return;
  }
  if (cur < 0) return;
  Finding& f = r.findings[static_cast<std::size_t>(cur)];
  if (f.kind.starts_with("race between") && std::regex_match(t, m, partner)) {
    const Location other = parse_location(m[2]);
    partners.push_back(m[1]);
    f.kind = f.kind.substr(0, f.kind.find(" and ")) + " and ";
    for (std::size_t i = 0; i < partners.size(); ++i) f.kind += (i ? "/" : "") + partners[i];
    f.kind += " access";
    if (!other.file.empty()) {
      const std::string at = other.file == f.file ? "line " + std::to_string(other.line)
                                                  : basename(other.file) + ":" + std::to_string(other.line);
      if (f.detail.find(at) == std::string::npos)
        f.detail +=
            (f.detail.find(", the ") == std::string::npos ? ", the " : " and ") + m[1].str() + " at " + at;
    }
    f.count += m[3].matched ? std::stoll(m[3]) : 0;
  } else if (std::regex_match(t, m, thread)) {
    locate(m[2]);
  } else if (std::regex_search(t, m, after)) {
    f.detail = m[1].str() + " bytes " + m[2].str() + " a " + m[3].str() + "-byte allocation";
  } else if (f.detail.empty() && t.starts_with("Address ") && t.find("out of bounds") != std::string::npos) {
    f.detail = "out of bounds";
  } else if (f.detail.empty() && t.starts_with("Address ") && t.find("misaligned") != std::string::npos) {
    f.detail = "misaligned";
  }
}

// The summary lines against the records read.
void cross_check(Report& r) {
  long long races = 0, race_errors = 0, others = 0;
  for (Finding& f : r.findings) {
    const bool is_race = f.kind.starts_with("race between") || f.kind.find(" hazard") != std::string::npos;
    if (is_race && f.count == 0) f.count = 1;
    if (is_race)
      ++races, race_errors += f.warning ? 0 : 1;
    else if (!f.warning)
      ++others;
  }
  auto say = [&](const std::string& what, long long said, long long read) {
    r.mismatches.push_back(
        what + " says " + std::to_string(said) + ", warplab read " + std::to_string(read) +
        (said > read ? " (the rest were not printed, or are of a kind warplab does not know)" : ""));
  };
  if (r.race_displayed && *r.race_displayed != races)
    say("RACECHECK SUMMARY (hazards displayed)", *r.race_displayed, races);
  else if (r.race_errors && *r.race_errors != race_errors)
    say("RACECHECK SUMMARY (errors)", *r.race_errors, race_errors);
  // racecheck may also print an ERROR SUMMARY of its race errors.
  if (r.error_summary && *r.error_summary != others && *r.error_summary != others + race_errors)
    say("ERROR SUMMARY", *r.error_summary, others);
}

}  // namespace

long long Report::errors() const {
  long long read = 0;
  for (const Finding& f : findings) read += f.warning ? 0 : 1;
  if (!has_summary()) return read;
  return std::max(error_summary.value_or(0), race_errors.value_or(0));
}

Report parse_log(std::string_view text) {
  Parser p;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    // A line longer than sys::regex_span is left out (std::regex recurses per character);
    // cross_check then says the table and the tool's summary disagree.
    if (const auto l = tool_line(text.substr(start, end - start)); l && l->text.size() <= sys::regex_span) {
      if (l->text.empty())
        p.cur = -1, p.pending.clear();  // a blank "=========" ends a record
      else if (l->indent <= 1)
        p.top(l->text);
      else
        p.detail(l->text);
    }
    start = end + 1;
  }
  cross_check(p.r);
  return p.r;
}

}  // namespace warplab::app::sanitize
