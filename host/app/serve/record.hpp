// serve/record.hpp: the runs a page shows, as records: each run's output lines, what its
// Lua library sent (checks, tables, pictures, files written, counters) and what the watcher
// said about it, in the order they came; a short history of runs, bounded in count and in
// bytes, so a page left open across any number of saves holds a fixed amount. Written by the
// watcher's thread, read by the server's (one lock). The page's data model is the JSON here:
//   state: {"script", "version", "runs": [{"run", "header", "started", "outcome", "line",
//           "count"}]}; outcome null while the run goes, else "ok", "failed", "stopped",
//           "cancelled".
//   run:   {"run", "header", "started", "outcome", "line", "from", "count", "items": [...],
//           "tail": {"out", "err"} (a line not ended yet), "lines"}.
//   items: {"kind": "text", "stream": "out"|"err", "text"} (whole lines, as printed, ANSI
//          colours kept); "check" {"ok", "what", "evidence", "name"}; "summary" {"name",
//          "passed", "failed"}; "table" {"title", "columns" (null: no header), "rows" (cells
//          as text), "numeric" (per column), "more" (rows left out)}; "svg" {"name", "id",
//          "bytes", "width", "height" (0: not given), "hash"} (the picture by its id; in a file
//          also "src", a data: URI);
//          "file" {"name", "bytes"}; "note" {"text"} (the watcher's lines); "counters"
//          {"counters"} (lab/counter_report.hpp's JSON); "cut" {"text"} (what a limit left
//          out).
//   lines: the kernel source annotated line by line (`--lines`): null until a run sends
//          {"kind": "lines", "lines": {"columns": [...], "files": [{"path", "rows": [{"line",
//          "source", "values": [...]}]}]}}; the page shows it when present.
// Every string is the run's own and is shown as text by the page, never as markup.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::app::serve {

// What the records may hold; past a run's limits the run says what it left out (the
// terminal still shows everything), past the history's the oldest runs go.
struct Limits {
  std::size_t runs = 10;                 // runs kept
  std::size_t bytes = 96u << 20;         // the runs kept, together
  std::size_t run_text = 4u << 20;       // one run's output lines
  std::size_t run_items = 20000;         // one run's items
  std::size_t run_pictures = 32u << 20;  // one run's SVGs
  std::size_t picture = 8u << 20;        // one SVG
  std::size_t table_rows = 5000;         // one table's rows
};

class Runs {
 public:
  explicit Runs(std::string script, Limits limits = {});

  void begin(int run, const std::string& header);
  // Output of the current run: stream 0 stdout, 1 stderr. Whole lines become items; the
  // rest waits for its end (shown meanwhile as the run's tail).
  void text(int stream, std::string_view bytes);
  // An event from the run's library (record.cpp reads only the fields each kind has).
  void event(const nlohmann::json& ev);
  void note(const std::string& text);
  void counters(const nlohmann::json& counters);
  void end(const std::string& outcome, const std::string& line);
  // Called after every change, outside the lock (the server wakes its pages).
  void on_change(std::function<void()> f);

  std::uint64_t version() const;
  std::string state_json() const;
  // Run `run`'s items from `from` on; "" when that run is no longer kept.
  std::string run_json(int run, std::size_t from) const;
  // A picture of a kept run by its id; null when gone.
  std::shared_ptr<const std::string> picture(int run, std::size_t id) const;
  // Every run kept, whole, pictures inline as data: URIs: the data of a page file.
  std::string all_json() const;
  // Bytes held by the runs kept (what the limits bound).
  std::size_t bytes() const;

 private:
  struct Run {
    int number = 0;
    std::string header, started, outcome, line;
    std::vector<nlohmann::json> items;
    std::string tail[2];
    std::vector<std::shared_ptr<const std::string>> pictures;
    nlohmann::json lines;  // null: no annotated source
    std::size_t bytes = 0, text = 0, picture_bytes = 0;
    bool cut_text = false, cut_items = false, cut_pictures = false;
  };
  Run* current();
  void add(Run& r, nlohmann::json item, std::size_t bytes);
  void take_lines(Run& r, int stream, bool all);
  void trim();
  nlohmann::json run_object(const Run& r, std::size_t from, bool inline_pictures) const;
  void changed(std::unique_lock<std::mutex>& lock);

  mutable std::mutex mu_;
  std::string script_;
  Limits limits_;
  std::deque<Run> runs_;
  std::uint64_t version_ = 0;
  std::function<void()> listener_;
};

// "data:image/svg+xml;base64,...".
std::string svg_data_uri(const std::string& svg);
// The JSON text of `j`, any bytes that are not UTF-8 replaced (a run may print anything).
std::string dump(const nlohmann::json& j);

}  // namespace warplab::app::serve
