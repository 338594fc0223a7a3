// repl_test.cpp: the REPL engine without a terminal: the value printer, the completer
// (dev.attr.max_<Tab>, methods, keywords), evaluation (expressions first, incomplete
// chunks, errors, Ctrl-C as a hook that pcall cannot swallow), :attrs, the framing,
// and the worker process (state kept across requests, lost and replaced on a crash);
// :save's ~ and what a chunk typed line by line leaves open.
// The Lua state is a real warplab state on an offline device snapshot.
#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include "cu/profile.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "app/repl/attrs.hpp"
#include "app/repl/complete.hpp"
#include "app/repl/eval.hpp"
#include "app/repl/help.hpp"
#include "app/repl/open_chunk.hpp"
#include "app/repl/protocol.hpp"
#include "app/repl/save.hpp"
#include "app/repl/worker.hpp"
#include "bind/cuda.hpp"
#include "bind/state.hpp"
#include "sys/error.hpp"

using namespace warplab;
using namespace warplab::app::repl;
using namespace std::chrono_literals;

namespace {

bind::StatePtr test_state() {
  cu::DeviceSnapshot d;
  d.name = "Test GPU";
  d.cc_major = 9;
  d.source = "profile test";
  d.attributes = {{"warp_size", 32},
                  {"max_threads_per_block", 1024},
                  {"max_shared_memory_per_block", 49152},
                  {"max_block_dim_x", 1024},
                  {"multiprocessor_count", 132}};
  return bind::open_state(lab::Options{}, d, true, "unit test");
}

std::string show(lua_State* L, const char* expr, bind::PrettyOptions o = {}) {
  EXPECT_EQ(luaL_dostring(L, (std::string("return ") + expr).c_str()), LUA_OK) << lua_tostring(L, -1);
  std::string s = bind::pretty(L, -1, o);
  lua_settop(L, 0);
  return s;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// SIGINT to this thread after `delay`, from another thread (as a terminal would).
std::thread interrupt_later(std::chrono::milliseconds delay, int times = 1) {
  const pthread_t target = pthread_self();
  return std::thread([=] {
    for (int i = 0; i < times; ++i) {
      std::this_thread::sleep_for(delay);
      pthread_kill(target, SIGINT);
    }
  });
}

}  // namespace

TEST(ReplPretty, NestedTablesSortedQuotedAndCut) {
  auto st = test_state();
  lua_State* L = st.get();
  EXPECT_EQ(show(L, "{3, 2, b = 'x', a = {1, {2}}}"), "{3, 2, a = {1, {2}}, b = \"x\"}");
  EXPECT_EQ(show(L, "'top'"), "top") << "a top-level string prints raw, as print does";
  EXPECT_EQ(show(L, "{['a b'] = 1, [true] = 2, ['end'] = 3}"), "{[\"a b\"] = 1, [\"end\"] = 3, [true] = 2}");
  EXPECT_EQ(show(L, "{a = {b = {c = {d = 1}}}}"), "{a = {b = {c = {...}}}}");
  bind::PrettyOptions o;
  o.max_items = 3;
  EXPECT_EQ(show(L, "{1, 2, 3, 4, 5, x = 1}", o), "{1, 2, 3, ... (3 more)}");
  EXPECT_EQ(show(L, "{}"), "{}");
  luaL_dostring(L, "cyc = {}; cyc.self = cyc");
  EXPECT_EQ(show(L, "cyc"), "{self = <cycle>}");
  EXPECT_EQ(show(L, "setmetatable({}, {__tostring = function() return 'obj!' end})"), "obj!");
  EXPECT_EQ(show(L, "{'a\\nb'}"), "{\"a\\nb\"}");
  luaL_dostring(L, "dev = cuda.device()");
  const std::string dev = show(L, "dev");
  EXPECT_EQ(dev.rfind("Test GPU", 0), 0u) << "warplab objects print through tostring: " << dev;
  EXPECT_EQ(dev, show(L, "tostring(dev)"));
}

TEST(ReplPretty, LongTablesGoMultiLine) {
  auto st = test_state();
  const std::string s = show(st.get(), "{alpha = string.rep('a', 40), beta = string.rep('b', 40)}");
  EXPECT_EQ(s,
            "{\n  alpha = \"" + std::string(40, 'a') + "\",\n  beta = \"" + std::string(40, 'b') + "\",\n}");
}

TEST(ReplComplete, FindsTheWordBeforeTheCursor) {
  CompletionWord w = completion_word("print(dev.attr.max_");
  EXPECT_EQ(w.path, (std::vector<std::string>{"dev", "attr"}));
  EXPECT_EQ(w.sep, '.');
  EXPECT_EQ(w.partial, "max_");
  w = completion_word("x = s:up");
  EXPECT_EQ(w.path, (std::vector<std::string>{"s"}));
  EXPECT_EQ(w.sep, ':');
  EXPECT_EQ(w.partial, "up");
  w = completion_word("pri");
  EXPECT_TRUE(w.path.empty());
  EXPECT_EQ(w.partial, "pri");
  EXPECT_FALSE(completion_word("x = 1.5").valid);
  EXPECT_FALSE(completion_word("a:b.c").valid);
  EXPECT_FALSE(completion_word("a..b").valid);
}

// warplab's own objects answer through __index functions: their fields come from
// __fields (a module adds its kernels' names), their methods from the `methods` table.
TEST(ReplComplete, WarplabObjects) {
  auto st = bind::open_state(lab::Options{}, cu::load_profile("h200"), true, "unit test");
  lua_State* L = st.get();
  ASSERT_EQ(luaL_dostring(L, "km = cuda.compile{source = '__global__ void scale_all(float* x) {}'}"), LUA_OK);
  EXPECT_EQ(complete(L, "km.sc"), (std::vector<std::string>{"scale_all"})) << "kernel names";
  EXPECT_EQ(complete(L, "km:rel"), (std::vector<std::string>{"reload"}));
  EXPECT_EQ(complete(L, "km.scale_all:occ"), (std::vector<std::string>{"occupancy"}));
  EXPECT_TRUE(has(complete(L, "km.scale_all.re"), "regs"));
  EXPECT_TRUE(has(complete(L, "cuda.dev"), "device"));
}

TEST(ReplComplete, GlobalsFieldsAttributesAndMethods) {
  auto st = test_state();
  lua_State* L = st.get();
  Evaluator ev(L);  // binds dev
  const auto attrs = complete(L, "dev.attr.max_");
  EXPECT_EQ(attrs, (std::vector<std::string>{"max_block_dim_x", "max_shared_memory_per_block",
                                             "max_threads_per_block"}));
  EXPECT_EQ(complete(L, "x = dev.attr.wa"), (std::vector<std::string>{"warp_size"}));
  EXPECT_TRUE(has(complete(L, "pri"), "print"));
  EXPECT_TRUE(has(complete(L, "wh"), "while")) << "keywords complete at the start of a name";
  EXPECT_EQ(complete(L, "string.fo"), (std::vector<std::string>{"format"}));
  luaL_dostring(L, "s = 'text'; obj = setmetatable({own = 1}, {__index = {run = function() end, size = 2}})");
  EXPECT_EQ(complete(L, "s:up"), (std::vector<std::string>{"upper"}));
  EXPECT_EQ(complete(L, "obj:"), (std::vector<std::string>{"run"})) << "methods: functions only";
  EXPECT_EQ(complete(L, "obj."), (std::vector<std::string>{"own", "run", "size"}));
  // Objects whose __index is a function list their fields in the metatable's __fields.
  luaL_dostring(L,
                "ud = setmetatable({}, {__index = function() end, __fields = {'alpha', 'beta'}})\n"
                "m = setmetatable({}, {__index = function() end,\n"
                "                      __fields = function(o) return {'k_one', 'k_two', 'x'} end})");
  EXPECT_EQ(complete(L, "ud.a"), (std::vector<std::string>{"alpha"}));
  EXPECT_EQ(complete(L, "m.k_"), (std::vector<std::string>{"k_one", "k_two"}));
  EXPECT_TRUE(complete(L, "dev.attr.nonsense.x").empty()) << "a raising __index gives nothing";
  EXPECT_EQ(complete(L, "dev.sm_"), (std::vector<std::string>{"sm_count"})) << "device fields";
  EXPECT_TRUE(complete(L, "nothing_here.x").empty());
  EXPECT_EQ(lua_gettop(L), 0);
  EXPECT_EQ(common_prefix({"max_threads", "max_shared", "max_block"}), "max_");
}

TEST(ReplEval, ExpressionsStatementsAndIncompleteChunks) {
  auto st = test_state();
  Evaluator ev(st.get());
  EXPECT_EQ(ev.eval("1 + 1", false).text, "2");
  EXPECT_EQ(ev.eval("x = 5", false).text, "");
  EXPECT_EQ(ev.eval("x", false).text, "5") << "globals persist between chunks";
  EXPECT_EQ(ev.eval("dev.attr.warp_size", false).text, "32");
  EXPECT_EQ(ev.eval("return 1, 'two'", false).text, "1\ttwo");
  EXPECT_EQ(ev.eval("for i = 1, 2 do", false).status, Status::kIncomplete);
  EXPECT_EQ(ev.eval("for i = 1, 2 do\n y = i\nend", false).status, Status::kOk);
  EXPECT_EQ(ev.eval("y", false).text, "2");
  const Reply eof = ev.eval("for i = 1, 2 do", true);
  EXPECT_EQ(eof.status, Status::kSyntax) << "at end of input an open chunk is an error";
  EXPECT_NE(eof.text.find("<eof>"), std::string::npos);
  const Reply err = ev.eval("error('boom')", false);
  EXPECT_EQ(err.status, Status::kError);
  EXPECT_EQ(err.text, "repl:1: boom") << "no traceback that only repeats the typed line";
  EXPECT_EQ(ev.eval("1 +", false).status, Status::kIncomplete);
  EXPECT_EQ(ev.eval("1 + )", false).status, Status::kSyntax);
}

TEST(ReplEval, AnErrorInsideAFileShowsItsTraceback) {
  auto st = test_state();
  Evaluator ev(st.get());
  const std::string file = ::testing::TempDir() + "/warplab_repl_mod.lua";
  FILE* f = std::fopen(file.c_str(), "w");
  std::fputs("local function inner() error('deep') end\nreturn function() inner() end\n", f);
  std::fclose(f);
  const Reply r = ev.eval("dofile('" + file + "')()", false);
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_NE(r.text.find("warplab_repl_mod.lua:1: deep"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("stack traceback"), std::string::npos) << r.text;
}

TEST(ReplEval, CtrlCStopsALoopEvenThroughPcall) {
  auto st = test_state();
  Evaluator ev(st.get());
  Evaluator::install_sigint();
  auto t = interrupt_later(200ms);
  const Reply r = ev.eval("while true do end", false);
  t.join();
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_NE(r.text.find("interrupted"), std::string::npos) << r.text;
  auto t2 = interrupt_later(200ms);
  const Reply r2 = ev.eval("while true do pcall(function() while true do end end) end", false);
  t2.join();
  EXPECT_NE(r2.text.find("interrupted"), std::string::npos) << "the hook re-arms after pcall";
  // A Ctrl-C while idle does not poison the next chunk.
  ::raise(SIGINT);
  EXPECT_EQ(ev.eval("40 + 2", false).text, "42");
  std::signal(SIGINT, SIG_DFL);
}

TEST(ReplAttrs, ListsMatchingAttributesOrSaysWhy) {
  auto st = test_state();
  Evaluator ev(st.get());
  const Reply r = ev.attrs("max_*");
  EXPECT_EQ(r.status, Status::kOk);
  EXPECT_NE(r.text.find("max_threads_per_block"), std::string::npos);
  EXPECT_EQ(r.text.find("warp_size"), std::string::npos);
  EXPECT_EQ(r.text.rfind("max_block_dim_x", 0), 0u) << "sorted by name";
  EXPECT_NE(ev.attrs("").text.find("warp_size"), std::string::npos);
  const Reply none = ev.attrs("zzz");
  EXPECT_EQ(none.status, Status::kError);
  EXPECT_EQ(none.text, "no attribute matches 'zzz' (a glob like max_*, or part of a name)");
  EXPECT_EQ(ev.attrs("max_thread_per_block").text,
            "no attribute matches 'max_thread_per_block': did you mean 'max_threads_per_block'?");
  EXPECT_TRUE(attr_matches("WARP", "warp_size"));
  EXPECT_TRUE(attr_matches("*_dim_?", "max_block_dim_x"));
  EXPECT_FALSE(attr_matches("max_*", "warp_size"));
  ev.eval("dev = nil", false);
  EXPECT_EQ(ev.attrs("").status, Status::kError);
}

TEST(ReplProtocol, FramesRoundTrip) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  const std::string big(1 << 20, 'x');
  std::thread writer([&] {
    write_message(sv[0], kEval, "");
    write_message(sv[0], kComplete, big);
    ::write(sv[0], "E\xff\xff\xff\xff", 5);  // a length past the limit
  });
  auto a = read_message(sv[1]);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->type, kEval);
  EXPECT_EQ(a->payload, "");
  auto b = read_message(sv[1]);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->payload, big);
  EXPECT_FALSE(read_message(sv[1])) << "an oversized frame is refused";
  writer.join();
  ::close(sv[0]);
  ::close(sv[1]);
}

TEST(ReplWorker, KeepsStateAndReplacesACrashedWorker) {
  Worker w(test_state);
  w.start();
  EXPECT_EQ(w.eval("x = 41", false).status, Status::kOk);
  EXPECT_EQ(w.eval("x + 1", false).text, "42");
  EXPECT_TRUE(has(w.complete("dev.attr.max_t"), "max_threads_per_block"));
  EXPECT_EQ(w.attrs("warp").text.rfind("warp_size  32", 0), 0u) << "name, value (and unit)";
  const Reply died = w.eval("os.execute('kill -SEGV ' .. io.open('/proc/self/stat'):read('n'))", false);
  EXPECT_EQ(died.status, Status::kDied);
  EXPECT_EQ(died.text, "worker died (signal 11)");
  EXPECT_FALSE(w.alive());
  w.restart();
  EXPECT_EQ(w.eval("x", false).text, "nil") << "the state went with the worker";
  EXPECT_EQ(w.eval("dev.attr.warp_size", false).text, "32") << "dev is bound again";
}

TEST(ReplWorker, StartFailureCarriesKindAndMessage) {
  // Each kind crosses the socket as it was thrown in the worker, whatever the words.
  for (const warplab::KindName& row : warplab::kErrorKinds) {
    const warplab::ErrorKind kind = row.kind;
    Worker w([kind]() -> bind::StatePtr { throw warplab::Error(kind, "some new words:\nover two lines"); });
    try {
      w.start();
      FAIL() << "start() should throw";
    } catch (const warplab::Error& e) {
      EXPECT_EQ(e.kind(), kind) << row.name;
      EXPECT_STREQ(e.what(), "some new words:\nover two lines");
    }
  }
  // Anything else thrown there is internal.
  Worker w([]() -> bind::StatePtr { throw std::logic_error("a bug"); });
  try {
    w.start();
    FAIL() << "start() should throw";
  } catch (const warplab::Error& e) {
    EXPECT_EQ(e.kind(), warplab::ErrorKind::internal);
    EXPECT_STREQ(e.what(), "a bug");
  }
}

TEST(ReplWorker, CtrlCInterruptsThenKills) {
  Worker w(test_state);
  w.start();
  install_interrupt_handler();
  auto t = interrupt_later(300ms);
  const Reply r = w.eval("while true do end", false);
  t.join();
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_NE(r.text.find("interrupted"), std::string::npos) << r.text;
  EXPECT_EQ(w.eval("1", false).text, "1") << "the worker survived the first Ctrl-C";
  // A C call that ignores SIGINT (system() does): the second Ctrl-C kills the worker.
  auto t2 = interrupt_later(300ms, 2);
  const Reply k = w.eval("os.execute('sleep 20')", false);
  t2.join();
  EXPECT_EQ(k.status, Status::kDied);
  EXPECT_EQ(k.text, "worker died (signal 9)");
  std::signal(SIGINT, SIG_DFL);
}

// Ctrl-C reaches a loop inside a coroutine (coroutine.wrap, coroutine.resume, one
// coroutine resuming another), each caught by pcall in a loop: the hook is set on every
// running thread and re-arms until the REPL's own pcall.
TEST(ReplEval, CtrlCStopsLoopsInsideCoroutines) {
  auto st = test_state();
  Evaluator ev(st.get());
  Evaluator::install_sigint();
  for (const char* chunk :
       {"while true do local co = coroutine.wrap(function() while true do end end) pcall(co) end",
        "local co = coroutine.create(function() while true do end end) while true do coroutine.resume(co) "
        "end",
        "coroutine.wrap(function() while true do pcall(coroutine.wrap(function() "
        "while true do pcall(function() while true do end end) end end)) end end)()",
        "local gen = coroutine.wrap(function() while true do coroutine.yield(1) end end) while true do gen() "
        "end"}) {
    auto t = interrupt_later(200ms);
    const Reply r = ev.eval(chunk, false);
    t.join();
    EXPECT_EQ(r.status, Status::kError) << chunk;
    EXPECT_NE(r.text.find("interrupted"), std::string::npos) << chunk << "\n" << r.text;
    EXPECT_EQ(ev.eval("40 + 2", false).text, "42") << "the state goes on after: " << chunk;
  }
  std::signal(SIGINT, SIG_DFL);
}

// The wrapped coroutine functions behave as Lua's own: values, yields, errors with the
// caller's position, a dead coroutine, bad arguments naming the function.
TEST(ReplEval, TrackedCoroutinesBehaveAsLuas) {
  auto st = test_state();
  Evaluator ev(st.get());
  EXPECT_EQ(ev.eval("local g = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end) "
                    "return g(1), g(5)",
                    false)
                .text,
            "2\t10");
  EXPECT_EQ(ev.eval("local co = coroutine.create(function(...) return select('#', ...), ... end) "
                    "return coroutine.resume(co, 1, nil, 3)",
                    false)
                .text,
            "true\t3\t1\tnil\t3");
  EXPECT_EQ(ev.eval("return coroutine.wrap(function() error('x') end)()", false).text, "repl:1: repl:1: x");
  EXPECT_EQ(ev.eval("return pcall(coroutine.wrap(function() error({}) end))", false).text.rfind("false\t", 0),
            0u);
  EXPECT_EQ(ev.eval("local g = coroutine.wrap(function() end) g() return pcall(g)", false).text,
            "false\tcannot resume dead coroutine")
      << "called from pcall, a C function: no position to add, as in Lua";
  EXPECT_EQ(ev.eval("local g = coroutine.wrap(function() end) g() return pcall(function() local r = g() "
                    "return r end)",
                    false)
                .text,
            "false\trepl:1: cannot resume dead coroutine");
  EXPECT_NE(
      ev.eval("coroutine.resume(5)", false).text.find("bad argument #1 to 'resume' (coroutine expected"),
      std::string::npos);
  EXPECT_NE(ev.eval("coroutine.wrap(5)", false).text.find("bad argument #1 to 'wrap'"), std::string::npos);
  EXPECT_EQ(ev.eval("return coroutine.running() ~= nil, coroutine.isyieldable()", false).text, "true\tfalse");
}

// Values and paths of any length: completion of a path with thousands of segments (each
// used to be pushed at once) and a chunk returning 100000 values leave a working state.
TEST(ReplEval, CallerSizedPushesAskForRoom) {
  auto st = test_state();
  lua_State* L = st.get();
  std::string path;
  for (int i = 0; i < 5000; ++i) path += "a.";
  luaL_dostring(L, "a = setmetatable({}, {__index = function(t) return t end}) a.b_one = 1");
  lua_settop(L, 0);
  EXPECT_EQ(complete(L, path + "b_"), (std::vector<std::string>{"b_one"}));
  EXPECT_EQ(lua_gettop(L), 0);
  Evaluator ev(L);
  const Reply many = ev.eval("return table.unpack({}, 1, 100000)", false);
  EXPECT_EQ(many.status, Status::kOk);
  EXPECT_EQ(many.text.size(), 100000u * 4 - 1) << "nil, tab-separated";
  EXPECT_EQ(ev.eval("1 + 1", false).text, "2");
}

TEST(ReplProtocol, LostRepliesCarryTheFaultedEvaluations) {
  Reply r{Status::kLost, "kernel 'k' launched at repl:1 faulted\nsecond line", 0, {3, 5}};
  const Reply back = lost_reply(lost_payload(r));
  EXPECT_EQ(back.status, Status::kLost);
  EXPECT_EQ(back.text, r.text);
  EXPECT_EQ(back.faulted, (std::vector<unsigned long long>{3, 5}));
  r.faulted.clear();
  EXPECT_TRUE(lost_reply(lost_payload(r)).faulted.empty());
  EXPECT_EQ(lost_reply(lost_payload(r)).text, r.text);
}

// The lines `print` and warplab.show wrote in `L` since the last call (print is replaced by
// one that keeps them), each print one entry.
void keep_prints(lua_State* L) {
  ASSERT_EQ(luaL_dostring(L,
                          "printed = {} print = function(...) local t = table.pack(...) "
                          "for i = 1, t.n do t[i] = tostring(t[i]) end printed[#printed + 1] = "
                          "table.concat(t, '\t') end"),
            LUA_OK);
}
std::vector<std::string> take_prints(lua_State* L) {
  std::vector<std::string> out;
  lua_getglobal(L, "printed");
  for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; ++i) {
    out.push_back(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  EXPECT_EQ(luaL_dostring(L, "printed = {}"), LUA_OK);
  return out;
}

// What :save writes runs and prints what the session printed: `dev` is bound; a value the
// REPL showed (a table nested, a multi-line expression, `return` of statements) is shown
// the same way; a local lasts for its input, as at the prompt; a statement starting with
// '(' is not read as a call of the input before it.
TEST(ReplSave, TheScriptPrintsWhatTheSessionPrinted) {
  const std::vector<std::string> inputs = {"x = 41",
                                           "x -- the answer",
                                           "{b = x, a = {1, 2}}",
                                           "t = {\n  n = 3,\n}",
                                           "{\n  t.n,\n  'two'\n}",
                                           "local hidden = 1",
                                           "hidden",
                                           "for i = 1, t.n do print(i) end",
                                           "f = print",
                                           "(f)('paren')",
                                           "select(2, 'a', 'b')",
                                           "print('p')",
                                           "return x + 1, 'r'",
                                           "dev.name, nil",
                                           "::top:: y = 1",
                                           "::top:: y = 2",
                                           "y"};
  auto repl_state = test_state();
  lua_State* L = repl_state.get();
  keep_prints(L);
  std::vector<std::string> session;
  std::vector<SavedInput> saved;
  {
    Evaluator ev(L);
    for (const std::string& in : inputs) {
      const Reply r = ev.eval(in, true);
      ASSERT_EQ(r.status, Status::kOk) << in << ": " << r.text;
      for (const std::string& line : take_prints(L)) session.push_back(line);
      if (!r.text.empty()) session.push_back(r.text);
      saved.push_back({in, !r.text.empty()});
    }
  }
  ASSERT_GE(session.size(), 10u);
  EXPECT_EQ(session[1], "{a = {1, 2}, b = 41}") << "a table, nested";
  const std::string script = session_script(saved);
  EXPECT_EQ(script.find("print(x"), std::string::npos) << script;
  EXPECT_NE(script.find("\ndev = cuda.device()"), std::string::npos) << script;
  EXPECT_NE(script.find("\nwarplab.show({\n  t.n,\n  'two'\n})\n"), std::string::npos) << script;
  EXPECT_NE(script.find("\nwarplab.show(x -- the answer\n)\n"), std::string::npos) << script;
  EXPECT_NE(script.find("\ndo\nlocal hidden = 1\nend\n"), std::string::npos) << script;
  EXPECT_NE(script.find("\n;(f)('paren')\n"), std::string::npos) << script;
  EXPECT_NE(script.find("\nwarplab.show(select(2, 'a', 'b'))\n"), std::string::npos)
      << "a call the REPL printed";
  EXPECT_NE(script.find("\nprint('p')\n"), std::string::npos) << "a call that printed no value: as typed";

  auto run_state = test_state();  // a fresh state, as `warplab run` opens one
  lua_State* R = run_state.get();
  keep_prints(R);
  ASSERT_EQ(luaL_loadbufferx(R, script.data(), script.size(), "=session.lua", "t"), LUA_OK)
      << lua_tostring(R, -1) << "\n"
      << script;
  ASSERT_EQ(lua_pcall(R, 0, 0, 0), LUA_OK) << lua_tostring(R, -1) << "\n" << script;
  EXPECT_EQ(take_prints(R), session) << script;
}

// The chunks of :counters and :lines go inside cuda.counters and cuda.lines with their
// sets; a faulted launch is a comment; the script parses.
TEST(ReplSave, CountedChunksAndFaults) {
  const std::string script =
      session_script({{"x = 41"},
                      {"m.poke:launch(1, 1, 16)", false, true},
                      {"k:launch(1, 32, a)", true, false, Via::kCounters, "shared,memory"},
                      {"k:launch(1, 32, a)", true, false, Via::kLines, ""},
                      {"k:launch(1, 32, a)", true, false, Via::kLines, "stalls"},
                      {"k:occupancy(256)", true},
                      {"k:launch(1, 32, a)"}});
  EXPECT_EQ(script,
            "-- saved from warplab repl: the session's successful inputs, in order (warplab run FILE\n"
            "-- runs it). warplab.show prints a value as the REPL printed it.\n"
            "dev = cuda.device()  -- as the REPL binds it\n"
            "x = 41\n"
            "-- left out: this input launched a kernel that faulted\n"
            "-- m.poke:launch(1, 1, 16)\n"
            "warplab.show(cuda.counters(function()\nk:launch(1, 32, a)\nend, \"shared,memory\"))\n"
            "warplab.show(cuda.lines(function()\nk:launch(1, 32, a)\nend))\n"
            "warplab.show(cuda.lines(function()\nk:launch(1, 32, a)\nend, \"stalls\"))\n"
            "warplab.show(k:occupancy(256))\n"
            "k:launch(1, 32, a)\n");
  EXPECT_TRUE(is_bare_expression("m.k"));
  EXPECT_TRUE(is_bare_expression("1, 2 -- two values"));
  EXPECT_FALSE(is_bare_expression("x = 1"));
  EXPECT_FALSE(is_bare_expression("print(1)")) << "a call is a statement too";
  EXPECT_FALSE(is_bare_expression("m.k:launch(1, 32, a)"));
  auto st = test_state();
  EXPECT_EQ(luaL_loadstring(st.get(), script.c_str()), LUA_OK) << lua_tostring(st.get(), -1);
}

// warplab.show prints as the REPL shows: one print of the values, tab separated; nothing
// for no values.
TEST(ReplSave, WarplabShowPrintsAsTheRepl) {
  auto st = test_state();
  lua_State* L = st.get();
  keep_prints(L);
  ASSERT_EQ(luaL_dostring(L, "warplab.show({b = 'x', a = {1}}, 2, nil) warplab.show() warplab.show('raw')"),
            LUA_OK)
      << lua_tostring(L, -1);
  EXPECT_EQ(take_prints(L), (std::vector<std::string>{"{a = {1}, b = \"x\"}\t2\tnil", "raw"}));
}

// :help prints terminal text: a link as its text and where it leads, no "(below)", no
// backticks, no HTML comments.
TEST(ReplHelp, CellsAsTerminalText) {
  EXPECT_EQ(terminal_text("returns the graph ([Graphs](#graphs))", "lua-api.md"),
            "returns the graph (Graphs in docs/lua-api.md)");
  EXPECT_EQ(terminal_text("read by `params{}` ([lua-library.md](lua-library.md))", "lua-api.md"),
            "read by params{} (docs/lua-library.md)");
  EXPECT_EQ(terminal_text("the [script arguments](cli.md#script-arguments) too", "lua-api.md"),
            "the script arguments in docs/cli.md too");
  EXPECT_EQ(terminal_text("the occupancy table (below); also `k:occupancy(256)`", "lua-api.md"),
            "the occupancy table; also k:occupancy(256)");
  EXPECT_EQ(terminal_text("launches with a table (fields below)", "lua-api.md"), "launches with a table");
  EXPECT_EQ(terminal_text("`x.lua` <!-- check: gpu -->", "lua-api.md"), "x.lua");
  EXPECT_EQ(terminal_text("`m[\"f(x)\"]` and `[[s]]` (kept below 2^40)", "lua-api.md"),
            "m[\"f(x)\"] and [[s]] (kept below 2^40)")
      << "code is kept as written; a parenthesis that says more than where stays";
  EXPECT_EQ(terminal_text("see [the site](https://example.org/x)", "lua-api.md"),
            "see the site (https://example.org/x)");
}

// `:save ~/x` is the home folder's x, as a shell reads it (it was a folder named "~").
TEST(ReplSave, TildeIsTheHomeFolder) {
  const char* old = std::getenv("HOME");
  const std::string saved = old ? old : "";
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(save_path("~/s.lua"), "/home/someone/s.lua");
  EXPECT_EQ(save_path("~"), "/home/someone");
  EXPECT_EQ(save_path("x/~/s.lua"), "x/~/s.lua") << "only at the start";
  EXPECT_EQ(save_path("s.lua"), "s.lua");
  EXPECT_EQ(save_path("~no-such-user-here/s.lua"), "~no-such-user-here/s.lua")
      << "left as the shell leaves it";
  if (old)
    ::setenv("HOME", saved.c_str(), 1);
  else
    ::unsetenv("HOME");
}

// A chunk typed or pasted line by line: "surely incomplete" only when Lua would say <eof>,
// so a paste of many lines is parsed once, when it may be complete.
TEST(ReplOpenChunk, SaysWhatIsStillOpen) {
  auto open_after = [](std::initializer_list<const char*> lines) {
    OpenChunk c;
    for (const char* l : lines) c.add_line(l);
    return c.surely_incomplete();
  };
  EXPECT_TRUE(open_after({"t = {"}));
  EXPECT_TRUE(open_after({"t = {", "1,", "2,"}));
  EXPECT_FALSE(open_after({"t = {", "1,", "}"}));
  EXPECT_TRUE(open_after({"for i = 1, 2 do"}));
  EXPECT_FALSE(open_after({"for i = 1, 2 do", "print(i)", "end"}));
  EXPECT_TRUE(open_after({"if a then", "elseif b then"}));
  EXPECT_FALSE(open_after({"if a then", "elseif b then", "else", "end"}));
  EXPECT_FALSE(open_after({"repeat", "until x"}));
  EXPECT_TRUE(open_after({"local f = function(x)"}));
  EXPECT_TRUE(open_after({"s = [==[", "]]", "still inside"}));
  EXPECT_FALSE(open_after({"s = [==[", "]]", "]==]"}));
  EXPECT_TRUE(open_after({"--[[ a comment", "{ ("}));
  EXPECT_FALSE(open_after({"--[[ a comment", "]] x = 1"}));
  EXPECT_FALSE(open_after({"x = '(' -- (", "y = \"[[\""})) << "brackets in strings and comments";
  EXPECT_TRUE(open_after({"s = 'a\\"})) << "a backslash carries a string to the next line";
  EXPECT_FALSE(open_after({"x = 1 +"})) << "an open expression: only Lua can tell";
  EXPECT_FALSE(open_after({"end", "do"})) << "a closer too many: only Lua can tell";
  EXPECT_FALSE(open_after({"s = 'unfinished", "{"})) << "a string left open: broken";
  EXPECT_FALSE(open_after({"t = {x.end}"}));
}
