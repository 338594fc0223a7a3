// record.hpp: the record each Lua state keeps (in its registry, as redis keeps per-run
// state under a named key; found through the thread's extra space, so the launch path
// looks nothing up): the run (lab/run.hpp), what only Lua needs on the launch path, and
// the errors last raised with their kinds. Created by open_state (state.cpp).
#pragma once
#include <lua.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lab/run.hpp"
#include "sys/error.hpp"

namespace warplab::bind {

// An error value handed to Lua with its kind: the exact message guard() or warplab.raise
// raised, or a failed cuda.compile's (or m:reload's) diagnostics text (kind compile, with
// its one-line summary, "k.cu did not compile for sm_90 (2 errors)").
struct RaisedError {
  std::string message;
  ErrorKind kind = ErrorKind::failed;
  std::string summary;
};

// The last few userdata of one type that fast_testudata told by their metatable, by address:
// told again with a comparison or two, the metatable not read. Sound because a userdata's
// metatable never changes while it lives but in its own __gc (set_finalized; scripts get
// no debug.setmetatable), and its memory is reused only after that __gc, which forgets it
// (each type's __gc calls forget). memo_testudata (udata.hpp) reads it.
struct UdataMemo {
  static constexpr unsigned kSize = 8;
  const void* known[kSize] = {};
  unsigned next = 0;
  bool has(const void* p) const noexcept {
    for (const void* q : known)
      if (q == p) return true;
    return false;
  }
  void add(const void* p) noexcept {
    known[next] = p;
    next = (next + 1) % kSize;
  }
  void forget(const void* p) noexcept {
    for (const void*& q : known)
      if (q == p) q = nullptr;
  }
};

struct StateRecord {
  // `target`: a lab::Target, or a lab::TargetChooser for a target chosen on first use.
  template <class T>
  StateRecord(const lab::Options& opts, T target) : run(opts, std::move(target)) {}

  lab::Run run;
  // Metatables the launch path tells userdata by, at their registry addresses (udata.hpp).
  const void* array_meta = nullptr;
  const void* graph_meta = nullptr;
  const void* launch_keys[7] = {};  // the launch table's key strings (launch_args.cpp)
  // Kernel handles and arrays the launch path told by their metatables lately (udata.hpp;
  // kernel_gc and array_gc forget theirs).
  UdataMemo kernel_memo, array_memo;
  // During a capture, the arguments of the launch being read whose memory the capture does
  // not use yet, as marshal found them: an array (its stack index and the array) or a
  // tensor map (its index, no array: the map's array). Valid during that launch's call
  // only: once the launch was captured, keep_launch_args (graph.cpp) reports them to the
  // capture and keeps them alive with the graph. Grown to the widest kernel launched.
  struct NewUse {
    int idx = 0;
    lab::DeviceArray* array = nullptr;
  };
  std::vector<NewUse> new_uses;
  std::size_t new_use_count = 0;
  // The chunk name of the function that launched last, by the function's address: the
  // function is kept in the registry while it is remembered, so the address stays its.
  const void* source_fn = nullptr;
  char source[LUA_IDSIZE] = {};
  // The last kRaisedKept error values handed to Lua, a ring (however many errors a script
  // catches, it holds no more): run_file's message handler (state.cpp) finds the kind of
  // the error escaping a script by its value, exact or behind one "chunk:line: ".
  static constexpr std::size_t kRaisedKept = 8;
  std::array<RaisedError, kRaisedKept> raised;
  std::size_t raised_next = 0;
  // The kind of the error that ended the last run_file (the message handler's finding),
  // and for a call that needs a GPU, the line of the script's top level that was running.
  ErrorKind escaped = ErrorKind::failed;
  int escaped_top_line = 0;
  // Set by close_state (state.hpp) before lua_close: only then does the record's own
  // finalizer destroy it.
  bool closing = false;

  // Notes `message` (exactly as Lua holds it) and its kind; never throws (a note that
  // cannot be kept leaves the error without a kind, the script's own).
  void note_raised(std::string_view message, ErrorKind kind, std::string_view summary = {}) noexcept {
    RaisedError& r = raised[raised_next];
    try {
      r.message.assign(message);
      r.summary.assign(summary);
      r.kind = kind;
    } catch (...) {
      r = RaisedError{};
      return;
    }
    raised_next = (raised_next + 1) % kRaisedKept;
  }
  // The error noted with exactly this value, the newest first; null when none.
  const RaisedError* raised_as(std::string_view value) const noexcept {
    for (std::size_t i = 1; i <= kRaisedKept; ++i) {
      const RaisedError& r = raised[(raised_next + kRaisedKept - i) % kRaisedKept];
      if (!r.message.empty() && r.message == value) return &r;
    }
    return nullptr;
  }
};

// This state's record. open_state sets it before any binding can run, and it is the first
// object with a finalizer, so lua_close finalizes it last: every __gc still finds it.
inline StateRecord& record_of(lua_State* L) { return **static_cast<StateRecord**>(lua_getextraspace(L)); }

}  // namespace warplab::bind
