// cuda.hpp: the `cuda` table, assembled by cuda.cpp from one add_* per Lua type (each in
// its type's file: device.cpp, array.cpp, ...; each type registered through
// metatable.hpp), and what those files share: push_timing (cuda.bench, k:bench).
// cuda.counters and k:counters share what counters.cpp defines, cuda.lines and k:lines
// what lines.cpp defines; the REPL and warplab.show the value printer of pretty.cpp.
#pragma once
#include <lua.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace warplab::lab {
struct KernelObj;
}

namespace warplab::bind {

// Registers the `cuda` global (the add_* below provide the pieces); open_state calls it.
void open_cuda(lua_State* L);

// Each registers its functions into the `cuda` table on top of the stack and creates the
// metatables of its userdata types.
void add_device(lua_State* L);      // cuda.device, cuda.devices (device.cpp)
void add_array(lua_State* L);       // cuda.array (array.cpp)
void add_host_array(lua_State* L);  // cuda.host_array (host_array.cpp)
void add_stream(lua_State* L);      // cuda.stream, cuda.synchronize (stream.cpp)
void add_event(lua_State* L);       // cuda.event (event.cpp)
void add_bench(lua_State* L);       // cuda.bench, cuda.clock (bench.cpp)
void add_graph(lua_State* L);       // cuda.graph (graph.cpp)
void add_tensor_map(lua_State* L);  // cuda.tensor_map (tensor_map.cpp)
void add_module(lua_State* L);      // cuda.compile (module.cpp)
void add_kernel(lua_State* L);      // kernel handles, no cuda.* function (kernel.cpp)
void add_json(lua_State* L);        // package.preload["warplab.json_c"]: decode (json.cpp)
void add_lines(lua_State* L);       // cuda.lines, cuda.lines_available (lines.cpp)
void add_counters(lua_State* L);  // cuda.counters, cuda.counter_sets, cuda.counters_available (counters.cpp)
// The global `warplab` table: mkdir(dir), write_file(path, bytes), now(), raise(...),
// show(...) (warplab_table.cpp).
void add_warplab_table(lua_State* L);

// Pushes the timing table of `ms` (bench.cpp): warplab.stats.summary of the samples
// (median, min, max, mean, stdev, n) plus the samples themselves.
void push_timing(lua_State* L, std::vector<double> ms);

// counters.cpp, for cuda.counters and k:counters: the counter names at idx (a list of set
// or metric names, or one "shared,memory" string), raising "<who>: ..." otherwise; and
// `body` run inside a counter session for them, then the rows pushed (one_row: the one
// row of a single launch). Offline the names are checked, then the GPU sentence raised.
std::vector<std::string> counter_words(lua_State* L, int idx, const char* who);
int push_counted(lua_State* L, const std::vector<std::string>& words, const char* who,
                 const std::function<void()>& body, bool one_row);

// lines.cpp, for cuda.lines and k:lines: `body` run inside a line session collecting the
// column sets `words` (as counter_words reads them; empty: the counts), then its rows
// pushed (raising "<who>: ..." for a set that is none, and the GPU sentence offline); and
// a kernel's map alone, pushed as rows (no GPU, no launch).
int push_collected(lua_State* L, const std::vector<std::string>& words, const char* who,
                   const std::function<void()>& body);
int push_kernel_lines(lua_State* L, const lab::KernelObj& k);

// pretty.cpp: how the REPL shows a Lua value, and warplab.show a script's: nested tables
// with sorted keys, cut at a depth and a width; strings quoted inside tables; warplab
// objects (userdata) and anything with __tostring through tostring.
struct PrettyOptions {
  int max_depth = 3;             // deeper tables show as {...}
  int max_items = 24;            // entries shown per table, then "... (N more)"
  std::size_t line_width = 72;   // a table that fits stays on one line
  std::size_t max_string = 200;  // longer strings inside tables are cut
};
// The value at `idx`, formatted. A string at top level is shown raw (as print does).
// May run __tostring metamethods, so call it inside a protected call.
std::string pretty(lua_State* L, int idx, const PrettyOptions& opts = {});
// The values at first..last, each formatted, separated by tabs (as print separates them):
// one answer of the REPL, one line of warplab.show.
std::string pretty_values(lua_State* L, int first, int last, const PrettyOptions& opts = {});
// `s` as a Lua string literal ("a\"b\n").
std::string quote(const std::string& s);
// True for a Lua identifier that is not a reserved word.
bool is_identifier(const std::string& s);

}  // namespace warplab::bind
