// state.cpp: opening a Lua state for warplab (libraries, package.path, the state's record,
// the `cuda` module) and running a script file with a traceback on error; the record's
// part of guard() (describe_error, the watchdog's hook, raise); and the hooks that stop Lua
// code on every running thread (the coroutines being resumed form a chain, a fixed array
// the wrappers push to before resuming and pop from after, which a signal handler can read
// at any moment; a thread in the chain is alive, the wrapper's own stack holds it). The
// library folders and the compile cache are lab's (lab/run.hpp).
#include "bind/state.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <string_view>

#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "bind/sandbox.hpp"
#include "lab/run.hpp"

namespace fs = std::filesystem;

namespace warplab::bind {
namespace {

constexpr const char* kRecordKey = "warplab.record";
// Script arguments: Lua's stack holds a million values (LUAI_MAXSTACK), and a vararg chunk
// keeps two copies of its arguments.
constexpr std::size_t kMaxScriptArgs = 400000;

// At lua_close only (close_state): a call by a script that reached the finalizer through
// the registry (debug.getregistry, WARPLAB_UNSAFE_DEBUG) does nothing.
int record_gc(lua_State* L) {
  auto* rec = static_cast<StateRecord*>(lua_touserdata(L, 1));
  if (!rec || rec != *static_cast<StateRecord**>(lua_getextraspace(L)) || !rec->closing) return 0;
  *static_cast<StateRecord**>(lua_getextraspace(L)) = nullptr;  // no dangling pointer at close
  rec->~StateRecord();
  return 0;
}

// The record, owned by the registry (its __gc destroys it); the thread's extra space holds
// a plain pointer to it. Coroutines start with a copy of the main thread's extra space, so
// they see it too. Made before any other object with a finalizer, so it is finalized last.
// `target`: a lab::Target, or a lab::TargetChooser for a target chosen on first use.
template <class T>
StateRecord& create_record(lua_State* L, const lab::Options& opts, T target) {
  constexpr const char* kRecordMeta = "warplab.state_record";  // a type scripts never see
  const luaL_Reg meta[] = {{"__gc", record_gc}, {nullptr, nullptr}};
  register_type(L, {.name = kRecordMeta, .meta = meta});
  void* mem = lua_newuserdatauv(L, sizeof(StateRecord), 0);  // +1 record
  auto* st = new (mem) StateRecord(opts, std::move(target));
  luaL_setmetatable(L, kRecordMeta);
  lua_setfield(L, LUA_REGISTRYINDEX, kRecordKey);  // -1
  *static_cast<StateRecord**>(lua_getextraspace(L)) = st;
  return *st;
}

// The watchdog fired: raised on every instruction count tick (arm_timeout_hook).
void timeout_hook(lua_State* L, lua_Debug*) { luaL_error(L, "%s", record_of(L).run.timeout_message.c_str()); }

// The leading "chunk:line: " of an error message (as luaL_error and error() prefix it),
// or "" when it does not start with one.
std::string position_of(std::string_view prefix) {
  const std::size_t colon = prefix.find(": ");
  if (colon == std::string_view::npos || colon == 0 || prefix.find('\n') < colon) return {};
  const std::size_t digits = prefix.find_last_of(':', colon - 1);
  if (digits == std::string_view::npos || digits == 0 || digits + 1 == colon) return {};
  for (std::size_t i = digits + 1; i < colon; ++i)
    if (prefix[i] < '0' || prefix[i] > '9') return {};
  return std::string(prefix.substr(0, colon + 2));
}

// The line the outermost chunk on the stack (the script's own top level) runs, or 0.
int top_level_line(lua_State* L) {
  int line = 0;
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); ++level)
    if (lua_getinfo(L, "Sl", &ar) && ar.what && std::strcmp(ar.what, "main") == 0) line = ar.currentline;
  return line;
}

// The message handler of run_file: the message plus a traceback, except for the endings
// RunResult (state.hpp) tells apart by the kind noted beside the escaping value (the value
// itself, or behind one leading position: error(e) and assert(v, e) add one), which get no
// traceback: a -p value the script's params refuses, a call that needs a GPU on a run
// without one, a value the profile does not know, and a failed compile's diagnostics (once,
// then where the script stopped). The kind goes to the record for run_file.
int traceback(lua_State* L) {
  StateRecord& rec = record_of(L);
  const bool text = lua_type(L, 1) == LUA_TSTRING;  // warplab's errors are strings
  std::size_t len = 0;
  const char* msg = lua_tolstring(L, 1, &len);
  if (!msg) msg = luaL_tolstring(L, 1, &len);  // +1 for a non-string error object
  const std::string_view m(msg, len);
  std::string position;
  const RaisedError* raised = text ? rec.raised_as(m) : nullptr;
  if (!raised && text) {
    position = position_of(m);
    if (!position.empty()) raised = rec.raised_as(m.substr(position.size()));
  }
  rec.escaped = raised ? raised->kind : ErrorKind::failed;
  switch (rec.escaped) {
    case ErrorKind::no_gpu:
      rec.escaped_top_line = top_level_line(L);
      [[fallthrough]];
    case ErrorKind::parameter:
    case ErrorKind::usage:  // the command line's fault (a forgotten -p): no traceback
    case ErrorKind::not_in_profile:
      lua_pushstring(L, msg);  // +1 the sentence alone
      return 1;
    case ErrorKind::compile: {
      std::string out = raised->message;  // the diagnostics once, then where the script stopped
      if (!out.empty() && out.back() != '\n') out += '\n';
      out += "warplab: " + position + raised->summary;
      lua_pushlstring(L, out.data(), out.size());  // +1
      return 1;
    }
    default:
      luaL_traceback(L, L, msg, 1);  // +1
      return 1;
  }
}

}  // namespace

// ---- hooks on every running thread: track_coroutines, hook_running (state.hpp) -------------
namespace {

// Resumes nest no deeper than Lua's C-call limit (LUAI_MAXCCALLS, 200); past this many
// the deepest are not hooked, though still counted so that the pops stay balanced.
constexpr int kMaxChain = 256;
lua_State* volatile g_chain[kMaxChain];
volatile sig_atomic_t g_depth = 0;

// Notes `co` as running for the duration of one resume, exceptions included (Lua built as
// C++ unwinds with exceptions).
struct Running {
  explicit Running(lua_State* co) {
    if (g_depth < kMaxChain) g_chain[g_depth] = co;
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the entry before the count
    g_depth = g_depth + 1;
  }
  ~Running() { g_depth = g_depth - 1; }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
};

// coroutine.resume(co, ...): the original (upvalue 1) with co noted while it runs. The
// original never raises for the coroutine's own errors (it returns false, msg); a bad
// argument is refused here, so the message names coroutine.resume as Lua's does.
int resume(lua_State* L) {
  lua_State* co = lua_tothread(L, 1);
  luaL_argexpected(L, co, 1, "coroutine");
  lua_pushvalue(L, lua_upvalueindex(1));  // +1 the original
  lua_insert(L, 1);                       // below the arguments
  Running running(co);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);  // -(n+1) +results
  return lua_gettop(L);
}

// A function coroutine.wrap returned: the original wrapper (upvalue 1) with its thread
// (upvalue 2) noted while it runs. Its error goes on with the caller's position in front,
// as Lua's own wrapper adds it (the original, called from here, finds no position).
int wrapped(lua_State* L) {
  lua_State* co = lua_tothread(L, lua_upvalueindex(2));
  lua_pushvalue(L, lua_upvalueindex(1));  // +1 the original wrapper
  lua_insert(L, 1);
  int status;
  {
    Running running(co);
    status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);  // -(n+1) +results or error
  }
  if (status == LUA_OK) return lua_gettop(L);
  if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
    luaL_where(L, 1);  // +1 the caller's "file:line: "
    lua_insert(L, -2);
    lua_concat(L, 2);  // -2 +1
  }
  return lua_error(L);
}

// coroutine.wrap(f): the original (upvalue 1) makes the function; its thread is its first
// upvalue (a C closure's upvalues are readable by number), kept beside it in ours.
int wrap(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_pushvalue(L, lua_upvalueindex(1));  // +1 the original coroutine.wrap
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);  // -(n+1) +1 its function
  // Not the shape this Lua makes: its function as it is (never hooked inside).
  if (!lua_getupvalue(L, -1, 1)) return 1;  // +1 the thread, when there is an upvalue
  if (!lua_isthread(L, -1)) {
    lua_pop(L, 1);
    return 1;
  }
  lua_pushcclosure(L, wrapped, 2);  // -2 +1 ours, over (its function, its thread)
  return 1;
}

// Replaces coroutine.resume and coroutine.wrap with the versions above. Called once, by
// open_state, before any script code.
void track_coroutines(lua_State* L) {
  lua_getglobal(L, "coroutine");  // +1
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  lua_getfield(L, -1, "resume");   // +1
  lua_pushcclosure(L, resume, 1);  // -1 +1
  lua_setfield(L, -2, "resume");   // -1
  lua_getfield(L, -1, "wrap");     // +1
  lua_pushcclosure(L, wrap, 1);    // -1 +1
  lua_setfield(L, -2, "wrap");     // -1
  lua_pop(L, 1);                   // -1 coroutine
}

lua_State* main_thread(lua_State* L) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);  // +1
  lua_State* main = lua_tothread(L, -1);
  lua_pop(L, 1);  // -1
  return main;
}

}  // namespace

void hook_running(lua_State* main, lua_Hook hook) {
  if (main) lua_sethook(main, hook, LUA_MASKCOUNT, 1);
  const int n = g_depth < kMaxChain ? static_cast<int>(g_depth) : kMaxChain;
  for (int i = 0; i < n; ++i)
    if (lua_State* co = g_chain[i]) lua_sethook(co, hook, LUA_MASKCOUNT, 1);
}

namespace {

// A state with its libraries, its record (made from `target`, as create_record), the
// warplab library on package.path and the cuda table.
template <class T>
StatePtr open_with(const lab::Options& opts, T target) {
  StatePtr state(luaL_newstate());
  if (!state) throw std::bad_alloc();
  lua_State* L = state.get();
  luaL_openlibs(L);
  harden_libs(L);
  track_coroutines(L);  // before any script code: every coroutine can be interrupted

  const StateRecord& st = create_record(L, opts, std::move(target));

  // package.path: the warplab library first, then Lua's defaults.
  std::string path;
  for (const auto& d : lab::lua_library_dirs(WARPLAB_SOURCE_DIR)) path += d + "/?.lua;" + d + "/?/init.lua;";
  lua_getglobal(L, "package");  // +1 package
  lua_getfield(L, -1, "path");  // +1 old path
  path += lua_tostring(L, -1);
  lua_pop(L, 1);                    // -1
  lua_pushstring(L, path.c_str());  // +1
  lua_setfield(L, -2, "path");      // -1
  lua_pop(L, 1);                    // -1 package

  lua_pushboolean(L, st.run.opts.color);      // +1
  lua_setglobal(L, "warplab_tty");            // -1
  lua_pushboolean(L, isatty(STDERR_FILENO));  // +1
  lua_setglobal(L, "warplab_tty_err");        // -1
  open_cuda(L);
  return state;
}

}  // namespace

StatePtr open_state(const lab::Options& opts, cu::DeviceSnapshot target, bool offline,
                    std::string offline_reason) {
  return open_with(opts, lab::Target{std::move(target), offline, std::move(offline_reason)});
}

StatePtr open_state(const lab::Options& opts, lab::TargetChooser choose) {
  return open_with(opts, std::move(choose));
}

void set_params(lua_State* L, const std::map<std::string, std::string>& params) {
  lua_createtable(L, 0, static_cast<int>(params.size()));  // +1 WARPLAB_PARAMS
  for (const auto& [k, v] : params) {
    lua_pushlstring(L, v.data(), v.size());  // +1
    lua_setfield(L, -2, k.c_str());          // -1
  }
  lua_setglobal(L, "WARPLAB_PARAMS");  // -1
}

RunResult run_file(lua_State* L, const std::string& path, const std::vector<std::string>& args) {
  RunResult out;
  // The script's folder goes first on package.path so it can require its neighbours.
  const std::string dir = fs::path(path).parent_path().string();
  lua_getglobal(L, "package");  // +1
  lua_getfield(L, -1, "path");  // +1
  const std::string old = lua_tostring(L, -1);
  lua_pop(L, 1);                                                             // -1
  lua_pushstring(L, ((dir.empty() ? "." : dir) + "/?.lua;" + old).c_str());  // +1
  lua_setfield(L, -2, "path");                                               // -1
  lua_pop(L, 1);                                                             // -1

  // The arguments go on the stack twice (the `arg` table's values one at a time, then all
  // at once as the chunk's varargs): room is asked for first, for as many as the command
  // line can carry, and more than a Lua stack holds is a sentence, never an overflow.
  if (args.size() > kMaxScriptArgs || !lua_checkstack(L, static_cast<int>(args.size()) + 4))
    throw Error(ErrorKind::bad_input, std::to_string(args.size()) +
                                          " script arguments are more than a Lua chunk can take (at most " +
                                          std::to_string(kMaxScriptArgs) + ")");
  lua_createtable(L, static_cast<int>(args.size()), 1);  // +1 arg
  lua_pushstring(L, path.c_str());                       // +1
  lua_rawseti(L, -2, 0);                                 // -1
  for (size_t i = 0; i < args.size(); ++i) {
    lua_pushstring(L, args[i].c_str());                   // +1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_setglobal(L, "arg");  // -1

  lua_pushcfunction(L, traceback);  // +1 handler
  const int handler = lua_gettop(L);
  if (!load_script(L, path)) {  // +1 chunk or message
    out.ok = false;
    out.error = lua_tostring(L, -1);
    lua_pop(L, 2);  // -2
    return out;
  }
  for (const auto& a : args) lua_pushstring(L, a.c_str());  // +n varargs
  StateRecord& rec = record_of(L);
  rec.escaped = ErrorKind::failed;  // (escaped_top_line is set with no_gpu, and read only then)
  if (lua_pcall(L, static_cast<int>(args.size()), 0, handler) != LUA_OK) {  // -(n+1), +1 msg
    out.ok = false;
    out.error = lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error object is not a string)";
    // The watchdog's verdict, whatever message escaped: the context is stuck.
    out.kind = rec.run.timed_out ? ErrorKind::timeout : rec.escaped;
    out.top_line = rec.escaped_top_line;
    lua_pop(L, 1);  // -1 msg
  }
  lua_pop(L, 1);  // -1 handler
  return out;
}

void close_state(lua_State* L) noexcept {
  if (!L) return;
  if (StateRecord* rec = *static_cast<StateRecord**>(lua_getextraspace(L))) rec->closing = true;
  // Closing finalizes the state's objects (modules unloaded, the context released last):
  // traced as one stage, so a failure at exit shows whether it came before or after.
  cu::trace("Lua state closing");
  lua_close(L);
  cu::trace("Lua state closed");
}

lab::Run& run_of(lua_State* L) { return record_of(L).run; }

bool context_lost(lua_State* L) { return record_of(L).run.lost(); }

Launches launches(lua_State* L) {
  const lab::FaultLog& f = record_of(L).run.faults;
  return {f.total, f.since_sync};
}

std::string describe_error(lua_State* L, const cu::Error& e) { return record_of(L).run.describe(e); }

void arm_timeout_hook(lua_State* L) {
  lua_sethook(L, timeout_hook, LUA_MASKCOUNT, 1);
  hook_running(main_thread(L), timeout_hook);  // and every thread that resumed this one
}

void raise_noted(lua_State* L, ErrorKind kind, const std::string& msg, int level) {
  if (level > 0)
    luaL_where(L, level);  // +1 "chunk:line: ", or "" from C
  else
    lua_pushliteral(L, "");        // +1
  lua_pushstring(L, msg.c_str());  // +1 (up to a NUL, as luaL_error's %s)
  lua_concat(L, 2);                // -2 +1 the message Lua will hold
  std::size_t n = 0;
  const char* s = lua_tolstring(L, -1, &n);
  record_of(L).note_raised(std::string_view(s, n), kind);
  lua_error(L);
  std::abort();  // lua_error does not return
}

void raise(lua_State* L, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char* msg = lua_pushvfstring(L, fmt, ap);  // +1
  va_end(ap);
  throw Error(ErrorKind::bad_input, msg);
}

void raise(lua_State* L, ErrorKind kind, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char* msg = lua_pushvfstring(L, fmt, ap);  // +1
  va_end(ap);
  throw Error(kind, msg);
}

}  // namespace warplab::bind
