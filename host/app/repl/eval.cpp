// repl/eval.cpp: chunk evaluation in the REPL worker (eval.hpp): loading, the message
// handler that trims tracebacks, the interrupt hook.
#include "app/repl/eval.hpp"

#include "bind/cuda.hpp"
#include "bind/state.hpp"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "app/repl/attrs.hpp"
#include "app/repl/complete.hpp"

namespace warplab::app::repl {
namespace {

// The state being evaluated, for the signal handler. One evaluator per worker.
lua_State* volatile g_state = nullptr;
volatile sig_atomic_t g_evaluating = 0;

// The hook stays set until eval() clears it, so it fires again after any pcall that
// caught it, until the error reaches the REPL's own pcall.
void interrupt_hook(lua_State* L, lua_Debug*) { luaL_error(L, "interrupted"); }

// Message handler: the error plus a traceback, unless the traceback would only repeat
// where the error already points (an error raised directly in the typed chunk).
int message_handler(lua_State* L) {
  lua_sethook(L, nullptr, 0, 0);  // this error already unwinds to the top
  const char* msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));  // +1
  luaL_traceback(L, L, msg, 1);                                                             // +1
  std::string full = lua_tostring(L, -1);
  std::istringstream in(full);
  std::string line, out, frames;
  bool informative = false;
  for (int i = 0; std::getline(in, line); ++i) {
    if (line == "\t[C]: in ?") continue;  // the REPL's own pcall
    if (line.rfind("\t", 0) == 0) {
      // Only a frame in some file says more than the message: C frames and the
      // typed chunk's own frames repeat it.
      if (line.rfind("\trepl:", 0) != 0 && line.rfind("\t[C]:", 0) != 0) informative = true;
      frames += line + "\n";
    } else if (line == "stack traceback:") {
      frames += line + "\n";
    } else {
      out += (out.empty() ? "" : "\n") + line;
    }
  }
  if (informative && !frames.empty()) out += "\n" + frames.substr(0, frames.size() - 1);
  lua_pushlstring(L, out.data(), out.size());  // +1
  return 1;
}

// Runs under pcall: formats the n values below it into one string.
int format_values(lua_State* L) {
  const std::string out = bind::pretty_values(L, 1, lua_gettop(L));
  lua_pushlstring(L, out.data(), out.size());  // +1
  return 1;
}

bool is_incomplete(lua_State* L, int status) {
  if (status != LUA_ERRSYNTAX) return false;
  size_t n = 0;
  const char* msg = lua_tolstring(L, -1, &n);
  return msg && n >= 5 && std::strcmp(msg + n - 5, "<eof>") == 0;
}

}  // namespace

Evaluator::Evaluator(lua_State* L) : L_(L) {
  g_state = L;
  const int top = lua_gettop(L);
  if (luaL_loadstring(L, "dev = cuda.device()") != LUA_OK || lua_pcall(L, 0, 0, 0) != LUA_OK)
    std::fprintf(stderr, "warplab: `dev` is not set: %s\n", lua_tostring(L, -1));
  lua_settop(L, top);
}

Evaluator::~Evaluator() { g_state = nullptr; }

// The hook goes on the main thread and on every coroutine running now (a loop inside
// coroutine.wrap is stopped too: bind/state.hpp), each re-raising until the REPL's pcall.
void Evaluator::on_sigint(int) {
  lua_State* L = g_state;
  if (g_evaluating && L) bind::hook_running(L, interrupt_hook);
}

void Evaluator::install_sigint() {
  struct sigaction sa = {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

// Remembers which evaluation launched last; on a lost context, that one made the launch
// the fault's sentence names (the most recent: lab/fault.hpp), if it was still unfinished.
void Evaluator::note_launches(unsigned long long before, Reply& r) {
  const bind::Launches now = bind::launches(L_);
  if (now.total > before) last_launcher_ = evals_;
  if (r.status == Status::kLost && now.unfinished > 0 && last_launcher_ != 0)
    r.faulted.push_back(last_launcher_);
}

Reply Evaluator::eval(const std::string& chunk, bool final) {
  const unsigned long long before = bind::launches(L_).total;
  ++evals_;
  Reply r = run_chunk(chunk, final);
  note_launches(before, r);
  r.eval = evals_;
  return r;
}

Reply Evaluator::run_chunk(const std::string& chunk, bool final) {
  lua_State* L = L_;
  lua_settop(L, 0);
  lua_pushcfunction(L, message_handler);  // +1 handler (index 1)
  // `return <chunk>` first, so `1 + 1` and `dev.attr` print their values.
  const std::string ret = "return " + chunk + ";";
  int status = luaL_loadbufferx(L, ret.data(), ret.size(), kChunkName, "t");  // +1
  if (status != LUA_OK) {
    lua_pop(L, 1);                                                              // -1 its message
    status = luaL_loadbufferx(L, chunk.data(), chunk.size(), kChunkName, "t");  // +1
  }
  if (status != LUA_OK) {
    bool incomplete = is_incomplete(L, status);
    if (!incomplete) {  // "1 +" is an unfinished expression, not a bad statement
      const std::string open_ret = "return " + chunk;
      incomplete = is_incomplete(L, luaL_loadbufferx(L, open_ret.data(), open_ret.size(), kChunkName, "t"));
      lua_pop(L, 1);  // -1 its chunk or message
    }
    Reply r{incomplete && !final      ? Status::kIncomplete
            : status == LUA_ERRSYNTAX ? Status::kSyntax
                                      : Status::kError,
            lua_tostring(L, -1)};
    lua_settop(L, 0);
    return r;
  }

  Reply r;
  g_evaluating = 1;
  status = lua_pcall(L, 0, LUA_MULTRET, 1);  // -1 +n results
  // However many values came back, room for the formatter and its result (LUA_MULTRET
  // grows the stack for the results only); a stack that cannot grow is an error.
  if (status == LUA_OK && lua_gettop(L) > 1 && !lua_checkstack(L, 4)) {
    lua_settop(L, 1);
    lua_pushliteral(L, "too many values to print");  // +1 (room: settop freed it)
    status = LUA_ERRRUN;
  }
  if (status == LUA_OK && lua_gettop(L) > 1) {
    lua_pushcfunction(L, format_values);             // +1
    lua_insert(L, 2);                                // below the results
    status = lua_pcall(L, lua_gettop(L) - 2, 1, 1);  // -(n+1) +1 text
  }
  g_evaluating = 0;
  lua_sethook(L, nullptr, 0, 0);  // a Ctrl-C that came late
  if (status != LUA_OK) {
    r.status = bind::context_lost(L) ? Status::kLost : Status::kError;
    r.text = lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error object is not a string)";
  } else if (lua_gettop(L) > 1) {
    r.text = lua_tostring(L, -1);
  }
  lua_settop(L, 0);
  return r;
}

std::vector<std::string> Evaluator::complete(const std::string& line) {
  g_evaluating = 1;  // a looping __index can be interrupted too
  auto out = repl::complete(L_, line);
  g_evaluating = 0;
  lua_sethook(L_, nullptr, 0, 0);
  return out;
}

Reply Evaluator::attrs(const std::string& pattern) {
  const AttrListing l = list_attrs(L_, pattern);
  return {l.ok ? Status::kOk : Status::kError, l.text};
}

}  // namespace warplab::app::repl
