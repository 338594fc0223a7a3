// attrs/render.cpp: the text, CSV and diff outputs of `warplab attrs` (render.hpp). Values
// are shown with cu::format_value ("49152 (48 KiB)"); ANSI colour only when the caller says
// so.
#include "app/attrs/render.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cu/attributes.hpp"
#include "cu/driver.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

// Bold for headings, dim for the prose, yellow for B's side of a diff: the eye goes to
// names and values first. Used only when print_* are told the output is a terminal.
constexpr const char* kBold = "\033[1m";
constexpr const char* kDim = "\033[2m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kReset = "\033[0m";

std::string paint(const std::string& s, const char* code, bool color) {
  return color ? code + s + kReset : s;
}

// Left-aligned in `width` columns; longer text is never cut (names are what users grep).
std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

// Names a profile holds but our table lacks (a newer cuda.h) get their own last group.
std::string group_of(const std::string& name) {
  const cu::AttributeInfo* info = cu::find_attribute(name);
  return info ? std::string(info->group) : "other";
}

// The value as a person reads it: "unknown" when the profile says it does not know it (an
// architecture profile), "-" when the source does not report it.
std::string shown(const cu::DeviceSnapshot& s, const std::string& name) {
  const auto v = s.attr(name);
  if (!v) return s.is_unknown(name) ? "unknown" : "-";
  const cu::AttributeInfo* info = cu::find_attribute(name);
  return info ? cu::format_value(*info, *v) : std::to_string(*v);
}

// RFC 4180: quote a field holding a comma, quote or newline, doubling inner quotes.
// Meanings such as "(cuMemAddressReserve, cuMemCreate, cuMemMap)" need it.
std::string csv_field(std::string_view f) {
  if (f.find_first_of(",\"\n") == std::string_view::npos) return std::string(f);
  std::string out = "\"";
  for (char c : f) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string describe(const cu::DeviceSnapshot& s) {
  std::string out = s.summary() + " [" + s.source;
  if (!s.live() && !s.captured.empty()) out += ", captured " + s.captured;
  if (s.driver_version > 0) out += ", driver " + cu::version_string(s.driver_version);
  return out + "]";
}

void print_text(std::ostream& out, const cu::DeviceSnapshot& s, const std::vector<std::string>& names,
                bool color, bool quiet) {
  out << paint(describe(s), kBold, color) << "\n";
  // Column widths over what is actually shown, so `attrs warp` is not padded for the
  // longest name in the whole table.
  size_t name_w = 0, value_w = 0;
  std::vector<std::string> missing, unknown;
  for (const std::string& n : names) {
    if (!s.attr(n)) continue;
    name_w = std::max(name_w, n.size());
    value_w = std::max(value_w, shown(s, n).size());
  }
  std::string group;
  size_t count = 0;
  for (const std::string& n : names) {
    if (!s.attr(n)) {
      (s.is_unknown(n) ? unknown : missing).push_back(n);
      continue;
    }
    // `names` arrives sorted by group (select_attributes), so a heading per change suffices.
    if (const std::string g = group_of(n); g != group) {
      group = g;
      out << "\n" << paint(group, kBold, color) << "\n";
    }
    const cu::AttributeInfo* info = cu::find_attribute(n);
    const std::string meaning =
        info ? std::string(info->meaning) : "not in this warplab's table (newer CUDA?)";
    out << "  " << pad(n, name_w) << "  " << pad(shown(s, n), value_w) << "  " << paint(meaning, kDim, color)
        << "\n";
    ++count;
  }
  if (quiet) return;
  // The footer says what is absent, so a missing line is never mistaken for a 0: unknown
  // (the profile says it does not know: architecture limits give no L2 size) apart from
  // not reported (a capture by an older driver).
  out << "\n" << sys::plural(count, "attribute");
  if (!unknown.empty()) {
    out << "; unknown for this profile"
        << (s.architecture ? " (architecture limits, not a captured device)" : "") << ":";
    for (const std::string& n : unknown) out << " " << n;
  }
  if (!missing.empty()) {
    out << "; not reported by " << s.source << ":";
    for (const std::string& n : missing) out << " " << n;
  }
  out << "\n";
}

void print_csv(std::ostream& out, const std::vector<cu::DeviceSnapshot>& snaps,
               const std::vector<std::string>& names, bool device_column) {
  // Raw integers, not formatted values: the CSV is for spreadsheets and scripts.
  out << (device_column ? "device," : "") << "name,value,unit,group,meaning\n";
  for (const cu::DeviceSnapshot& s : snaps)
    for (const std::string& n : names) {
      const auto v = s.attr(n);
      if (!v) continue;
      const cu::AttributeInfo* info = cu::find_attribute(n);
      if (device_column) out << s.ordinal << ",";
      out << n << "," << *v << "," << csv_field(info ? info->unit : "") << "," << group_of(n) << ","
          << csv_field(info ? info->meaning : "") << "\n";
    }
}

namespace {

// One row per difference: the identity fields first, then attributes in display order.
// An attribute only one side reports counts apart from a changed value: an older driver
// lacking an attribute is a different story from a different GPU.
struct Diff {
  std::vector<std::string> rows;  // names that differ
  size_t equal = 0, only_a = 0, only_b = 0, differ = 0;
  bool same() const { return rows.empty(); }
};

Diff compare(const cu::DeviceSnapshot& a, const cu::DeviceSnapshot& b,
             const std::vector<std::string>& names) {
  Diff d;
  if (a.name != b.name) d.rows.push_back("name");
  const bool ua = a.is_unknown("total_memory"), ub = b.is_unknown("total_memory");
  if (ua != ub || (!ua && a.total_memory != b.total_memory)) d.rows.push_back("total_memory");
  for (const std::string& n : names) {
    const auto va = a.attr(n), vb = b.attr(n);
    if (!va && !vb) continue;
    if (va && vb && *va == *vb) {
      ++d.equal;
      continue;
    }
    ++(!vb ? d.only_a : !va ? d.only_b : d.differ);
    d.rows.push_back(n);
  }
  return d;
}

std::string shown_field(const cu::DeviceSnapshot& s, const std::string& row) {
  if (row == "name") return s.name;
  if (row == "total_memory")
    return s.is_unknown(row) ? "unknown"
                             : std::to_string(s.total_memory) + " (" + cu::format_bytes(s.total_memory) + ")";
  return shown(s, row);
}

nlohmann::ordered_json raw_field(const cu::DeviceSnapshot& s, const std::string& row) {
  if (row == "name") return s.name;
  if (row == "total_memory")
    return s.is_unknown(row) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.total_memory);
  const auto v = s.attr(row);
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

bool print_diff(std::ostream& out, const cu::DeviceSnapshot& a, const cu::DeviceSnapshot& b,
                const std::vector<std::string>& names, bool color) {
  out << paint("A: " + describe(a), kBold, color) << "\n" << paint("B: " + describe(b), kBold, color) << "\n";
  const Diff d = compare(a, b, names);
  size_t name_w = 1, a_w = 1;
  for (const std::string& r : d.rows) {
    name_w = std::max(name_w, r.size());
    a_w = std::max(a_w, shown_field(a, r).size());
  }
  if (!d.same()) {
    out << "\n  " << pad("", name_w) << "  " << paint(pad("A", a_w), kBold, color) << "  "
        << paint("B", kBold, color) << "\n";
    for (const std::string& r : d.rows)
      out << "  " << pad(r, name_w) << "  " << pad(shown_field(a, r), a_w) << "  "
          << paint(shown_field(b, r), kYellow, color) << "\n";
  }
  out << "\n"
      << sys::plural(d.differ, "attribute differs", "attributes differ") << ", " << d.equal << " equal";
  if (d.only_a) out << ", " << d.only_a << " only in A";
  if (d.only_b) out << ", " << d.only_b << " only in B";
  out << "\n";
  return !d.same();
}

bool print_diff_json(std::ostream& out, const cu::DeviceSnapshot& a, const cu::DeviceSnapshot& b,
                     const std::vector<std::string>& names) {
  const Diff d = compare(a, b, names);
  nlohmann::ordered_json j;
  j["a"] = {{"source", a.source}, {"summary", describe(a)}};
  j["b"] = {{"source", b.source}, {"summary", describe(b)}};
  j["same"] = d.same();
  j["rows"] = nlohmann::ordered_json::array();
  for (const std::string& r : d.rows) {
    const cu::AttributeInfo* info = cu::find_attribute(r);
    j["rows"].push_back({{"name", r},
                         {"a", raw_field(a, r)},
                         {"b", raw_field(b, r)},
                         {"unit", r == "total_memory" ? "bytes"
                                  : info              ? std::string(info->unit)
                                                      : ""}});
  }
  j["counts"] = {{"differ", d.differ}, {"equal", d.equal}, {"only_a", d.only_a}, {"only_b", d.only_b}};
  out << j.dump(2) << "\n";
  return !d.same();
}

}  // namespace warplab::app
