// serve/record.cpp: Runs (record.hpp). An event's fields are read one by one, each as the
// type its kind has, and copied into a new item: nothing else a run sends reaches the page.
#include "app/serve/record.hpp"

#include <cstdlib>
#include <ctime>
#include <utility>

namespace warplab::app::serve {
namespace {

using json = nlohmann::json;

std::string wall_clock() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

// A field as text (a string, or a number or boolean written out), or null.
json text_field(const json& ev, const char* key, std::size_t max = 64 * 1024) {
  const auto it = ev.find(key);
  if (it == ev.end()) return nullptr;
  if (it->is_string()) {
    const std::string& s = it->get_ref<const std::string&>();
    return s.size() > max ? s.substr(0, max) + "..." : s;
  }
  if (it->is_number() || it->is_boolean()) return it->dump();
  return nullptr;
}

long long count_field(const json& ev, const char* key) {
  const auto it = ev.find(key);
  return it != ev.end() && it->is_number_integer() ? it->get<long long>() : 0;
}

// A table's cells: every row a list of texts, at most `max_rows` rows and 200 columns.
json table_item(const json& ev, std::size_t max_rows) {
  json item = {{"kind", "table"}, {"title", text_field(ev, "title")}, {"columns", nullptr}};
  const auto cols = ev.find("columns");
  if (cols != ev.end() && cols->is_array()) {
    item["columns"] = json::array();
    for (const json& c : *cols)
      if (item["columns"].size() < 200) item["columns"].push_back(c.is_string() ? c : json(c.dump()));
  }
  json rows = json::array();
  long long more = count_field(ev, "more");
  const auto in = ev.find("rows");
  if (in != ev.end() && in->is_array()) {
    for (const json& row : *in) {
      if (rows.size() >= max_rows) {
        ++more;
        continue;
      }
      json cells = json::array();
      if (row.is_array())
        for (const json& c : row)
          if (cells.size() < 200) cells.push_back(c.is_string() ? c : json(c.is_null() ? "" : c.dump()));
      rows.push_back(std::move(cells));
    }
  }
  json numeric = json::array();
  const auto num = ev.find("numeric");
  if (num != ev.end() && num->is_array())
    for (const json& b : *num)
      if (numeric.size() < 200) numeric.push_back(b.is_boolean() && b.get<bool>());
  item["rows"] = std::move(rows);
  item["numeric"] = std::move(numeric);
  item["more"] = more;
  return item;
}

// The counters JSON as lab::counters_json writes it, reduced to what the page shows.
json counters_item(const json& c) {
  json out = {{"chip", text_field(c, "chip")},
              {"counters", json::array()},
              {"rows", json::array()},
              {"note", text_field(c, "note")}};
  if (const auto cs = c.find("counters"); cs != c.end() && cs->is_array())
    for (const json& x : *cs)
      if (x.is_object())
        out["counters"].push_back({{"name", text_field(x, "name")},
                                   {"unit", text_field(x, "unit")},
                                   {"meaning", text_field(x, "meaning")}});
  if (const auto rs = c.find("rows"); rs != c.end() && rs->is_array())
    for (const json& r : *rs) {
      if (!r.is_object() || out["rows"].size() >= 5000) continue;
      json values = json::object();
      if (const auto v = r.find("values"); v != r.end() && v->is_object())
        for (const auto& [k, x] : v->items()) values[k] = x.is_number() ? x : json(nullptr);
      out["rows"].push_back({{"kernel", text_field(r, "kernel")},
                             {"site", text_field(r, "site")},
                             {"launches", count_field(r, "launches")},
                             {"values", std::move(values)}});
    }
  return {{"kind", "counters"}, {"counters", std::move(out)}};
}

// The width and height the root <svg> element gives (whole pixels), for the page to keep
// the picture's place before it loads; 0 when it gives none.
std::pair<long, long> svg_size(const std::string& svg) {
  const std::size_t open = svg.find("<svg");
  const std::size_t close = open == std::string::npos ? open : svg.find('>', open);
  if (close == std::string::npos) return {0, 0};
  const std::string root = svg.substr(open, close - open);
  auto attr = [&](const char* name) -> long {
    const std::string key = std::string(" ") + name + "=\"";
    const std::size_t at = root.find(key);
    if (at == std::string::npos) return 0;
    char* end = nullptr;
    const long v = std::strtol(root.c_str() + at + key.size(), &end, 10);
    return v > 0 && v < 100000 && end && (*end == '"' || *end == '.') ? v : 0;
  };
  return {attr("width"), attr("height")};
}

}  // namespace

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string svg_data_uri(const std::string& svg) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out = "data:image/svg+xml;base64,";
  out.reserve(out.size() + (svg.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < svg.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(svg[i]) << 16) |
                       (static_cast<unsigned char>(svg[i + 1]) << 8) | static_cast<unsigned char>(svg[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += abc[(v >> s) & 63];
  }
  if (i < svg.size()) {
    unsigned v = static_cast<unsigned char>(svg[i]) << 16;
    if (i + 1 < svg.size()) v |= static_cast<unsigned char>(svg[i + 1]) << 8;
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += i + 1 < svg.size() ? abc[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Runs::Runs(std::string script, Limits limits) : script_(std::move(script)), limits_(limits) {}

Runs::Run* Runs::current() {
  return runs_.empty() || !runs_.back().outcome.empty() ? nullptr : &runs_.back();
}

void Runs::on_change(std::function<void()> f) {
  std::lock_guard<std::mutex> lock(mu_);
  listener_ = std::move(f);
}

void Runs::changed(std::unique_lock<std::mutex>& lock) {
  ++version_;
  const std::function<void()> f = listener_;
  lock.unlock();
  if (f) f();
}

void Runs::begin(int run, const std::string& header) {
  std::unique_lock<std::mutex> lock(mu_);
  if (Run* r = current()) r->outcome = "cancelled";  // never ended: it is over now
  Run r;
  r.number = run;
  r.header = header;
  r.started = wall_clock();
  runs_.push_back(std::move(r));
  trim();
  changed(lock);
}

// Whole lines (all of the tail with `all`) become one text item; a run past its text limit
// says so once and keeps no more.
void Runs::take_lines(Run& r, int stream, bool all) {
  std::string& tail = r.tail[stream];
  const std::size_t end = all ? tail.size() : tail.rfind('\n') + 1;  // npos + 1 == 0
  if (end == 0) return;
  std::string lines = tail.substr(0, end);
  tail.erase(0, end);
  if (r.cut_text) return;
  if (r.text + lines.size() > limits_.run_text) {
    r.cut_text = true;
    add(r,
        {{"kind", "cut"}, {"text", "the rest of the output is not kept here (the terminal shows all of it)"}},
        0);
    return;
  }
  r.text += lines.size();
  const std::size_t n = lines.size();
  add(r, {{"kind", "text"}, {"stream", stream == 0 ? "out" : "err"}, {"text", std::move(lines)}}, n);
}

void Runs::text(int stream, std::string_view bytes) {
  if (bytes.empty() || stream < 0 || stream > 1) return;
  std::unique_lock<std::mutex> lock(mu_);
  Run* r = current();
  if (!r) return;
  r->tail[stream].append(bytes);
  // A line that never ends is shown in pieces rather than held without bound.
  take_lines(*r, stream, r->tail[stream].size() > 64 * 1024);
  changed(lock);
}

void Runs::add(Run& r, json item, std::size_t bytes) {
  if (r.items.size() >= limits_.run_items) {
    if (!r.cut_items) {
      r.cut_items = true;
      r.items.push_back(
          {{"kind", "cut"},
           {"text", "more than " + std::to_string(limits_.run_items) + " items: the rest is not kept here"}});
    }
    return;
  }
  r.items.push_back(std::move(item));
  r.bytes += bytes + 64;
}

void Runs::event(const json& ev) {
  if (!ev.is_object()) return;
  const std::string kind = ev.value("kind", "");
  std::unique_lock<std::mutex> lock(mu_);
  Run* r = current();
  if (!r) return;
  // What was printed before the event comes before it on the page.
  for (int s = 0; s < 2; ++s) take_lines(*r, s, false);
  if (kind == "check") {
    const auto ok = ev.find("ok");
    add(*r,
        {{"kind", "check"},
         {"ok", ok != ev.end() && ok->is_boolean() && ok->get<bool>()},
         {"what", text_field(ev, "what")},
         {"evidence", text_field(ev, "evidence")},
         {"name", text_field(ev, "name")}},
        256);
  } else if (kind == "summary") {
    add(*r,
        {{"kind", "summary"},
         {"name", text_field(ev, "name")},
         {"passed", count_field(ev, "passed")},
         {"failed", count_field(ev, "failed")}},
        64);
  } else if (kind == "table") {
    json item = table_item(ev, limits_.table_rows);
    const std::size_t n = dump(item).size();
    add(*r, std::move(item), n);
  } else if (kind == "svg" || kind == "file") {
    const json name = text_field(ev, "name", 4096);
    const auto svg = ev.find("svg");
    if (kind == "svg" && svg != ev.end() && svg->is_string()) {
      const std::string& text = svg->get_ref<const std::string&>();
      if (text.size() <= limits_.picture && r->picture_bytes + text.size() <= limits_.run_pictures) {
        r->picture_bytes += text.size();
        r->pictures.push_back(std::make_shared<const std::string>(text));
        const auto [w, h] = svg_size(text);
        add(*r,
            {{"kind", "svg"},
             {"name", name},
             {"id", r->pictures.size() - 1},
             {"bytes", text.size()},
             {"width", w},
             {"height", h},
             {"hash", std::to_string(std::hash<std::string>{}(text))}},
            text.size());
      } else {
        add(*r,
            {{"kind", "file"}, {"name", name}, {"bytes", text.size()}, {"note", "too large to show here"}},
            64);
      }
    } else {
      add(*r, {{"kind", "file"}, {"name", name}, {"bytes", count_field(ev, "bytes")}}, 64);
    }
  } else if (kind == "counters" && ev.contains("counters") && ev["counters"].is_object()) {
    json item = counters_item(ev["counters"]);
    const std::size_t n = dump(item).size();
    add(*r, std::move(item), n);
  } else if (kind == "lines" && ev.contains("lines") && ev["lines"].is_object()) {
    r->lines = ev["lines"];
    r->bytes += dump(r->lines).size();
  } else {
    return;  // not a kind the page knows: nothing changed
  }
  trim();
  changed(lock);
}

void Runs::note(const std::string& text) {
  if (text.empty()) return;
  std::unique_lock<std::mutex> lock(mu_);
  if (runs_.empty()) return;
  Run& r = runs_.back();  // notes come after the run's end too (resource lines, counters)
  for (int s = 0; s < 2; ++s) take_lines(r, s, false);
  add(r, {{"kind", "note"}, {"text", text}}, text.size());
  changed(lock);
}

void Runs::counters(const json& counters) {
  if (!counters.is_object()) return;
  std::unique_lock<std::mutex> lock(mu_);
  if (runs_.empty()) return;
  json item = counters_item(counters);
  const std::size_t n = dump(item).size();
  add(runs_.back(), std::move(item), n);
  trim();
  changed(lock);
}

void Runs::end(const std::string& outcome, const std::string& line) {
  std::unique_lock<std::mutex> lock(mu_);
  Run* r = current();
  if (!r) return;
  for (int s = 0; s < 2; ++s) take_lines(*r, s, true);
  r->outcome = outcome.empty() ? "failed" : outcome;
  r->line = line;
  changed(lock);
}

// The oldest runs go while more are kept than the limits allow; the newest always stays.
void Runs::trim() {
  std::size_t total = 0;
  for (const Run& r : runs_) total += r.bytes;
  while (runs_.size() > 1 && (runs_.size() > limits_.runs || total > limits_.bytes)) {
    total -= runs_.front().bytes;
    runs_.pop_front();
  }
}

std::uint64_t Runs::version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

std::size_t Runs::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t total = 0;
  for (const Run& r : runs_) total += r.bytes + r.tail[0].size() + r.tail[1].size();
  return total;
}

json Runs::run_object(const Run& r, std::size_t from, bool inline_pictures) const {
  json items = json::array();
  for (std::size_t i = from; i < r.items.size(); ++i) {
    items.push_back(r.items[i]);
    if (inline_pictures && r.items[i].value("kind", "") == "svg")
      items.back()["src"] = svg_data_uri(*r.pictures.at(r.items[i]["id"].get<std::size_t>()));
  }
  return {{"run", r.number},
          {"header", r.header},
          {"started", r.started},
          {"outcome", r.outcome.empty() ? json(nullptr) : json(r.outcome)},
          {"line", r.line},
          {"from", from},
          {"count", r.items.size()},
          {"items", std::move(items)},
          {"tail", {{"out", r.tail[0]}, {"err", r.tail[1]}}},
          {"lines", r.lines}};
}

std::string Runs::state_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  json runs = json::array();
  for (const Run& r : runs_)
    runs.push_back({{"run", r.number},
                    {"header", r.header},
                    {"started", r.started},
                    {"outcome", r.outcome.empty() ? json(nullptr) : json(r.outcome)},
                    {"line", r.line},
                    {"count", r.items.size()}});
  return dump({{"script", script_}, {"version", version_}, {"runs", std::move(runs)}});
}

std::string Runs::run_json(int run, std::size_t from) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Run& r : runs_)
    if (r.number == run) return dump(run_object(r, std::min(from, r.items.size()), false));
  return "";
}

std::shared_ptr<const std::string> Runs::picture(int run, std::size_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Run& r : runs_)
    if (r.number == run) return id < r.pictures.size() ? r.pictures[id] : nullptr;
  return nullptr;
}

std::string Runs::all_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  json runs = json::array();
  for (const Run& r : runs_) runs.push_back(run_object(r, 0, true));
  return dump({{"script", script_}, {"version", version_}, {"runs", std::move(runs)}});
}

}  // namespace warplab::app::serve
