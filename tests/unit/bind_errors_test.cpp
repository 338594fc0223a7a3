// bind_errors_test.cpp: the kind of an error crosses the Lua boundary beside its message
// (bind/guard.hpp, bind/record.hpp): a warplab::Error thrown inside guard(), a
// warplab.raise and a failed compile's diagnostics end run_file with their kind, whatever
// their words; the escaping value is matched exactly or behind one leading position, never
// by a word of the message; the ring of raised errors stays bounded. Offline (profile h100).
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "bind/state.hpp"
#include "cu/profile.hpp"
#include "rtc_test_util.hpp"
#include "sys/error.hpp"

namespace {

using warplab::ErrorKind;
namespace bind = warplab::bind;

// throw_kind(kind, message): throws warplab::Error(kind, message) through guard(), as a
// binding does; an unknown kind throws a std::runtime_error (an exception not of ours).
int throw_kind(lua_State* L) {
  return bind::guard(L, [L]() -> int {
    const char* name = luaL_checkstring(L, 1);
    const std::string message = luaL_checkstring(L, 2);
    if (const auto kind = warplab::kind_named(name)) throw warplab::Error(*kind, message);
    throw std::runtime_error(message);
  });
}

// Runs `script` as t.lua, in its folder (so positions read "t.lua:1: "), in a fresh offline
// state with throw_kind as a global.
bind::RunResult run(const std::string& script) {
  warplab::lab::Options opts;
  opts.cache = false;
  bind::StatePtr state = bind::open_state(opts, warplab::cu::load_profile("h100"), true, "unit test");
  lua_register(state.get(), "throw_kind", throw_kind);
  const warplab::test::ScratchDir d;
  d.write("t.lua", script);
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(d.path());
  const bind::RunResult r = bind::run_file(state.get(), "t.lua", {});
  std::filesystem::current_path(before);
  return r;
}

TEST(BindErrors, EveryKindThrownInAGuardEndsTheRunWithIt) {
  for (const warplab::KindName& row : warplab::kErrorKinds) {
    const ErrorKind kind = row.kind;
    const std::string name(row.name);
    const bind::RunResult r = run("throw_kind('" + name + "', 'some new words, never said before')\n");
    EXPECT_FALSE(r.ok) << name;
    EXPECT_EQ(r.kind, kind) << name << ": " << r.error;
    EXPECT_EQ(r.error.rfind("t.lua:1: some new words, never said before", 0), 0u) << r.error;
  }
}

TEST(BindErrors, TheEndingsWithoutTracebackAreTheSentenceAlone) {
  for (const char* name : {"no_gpu", "not_in_profile", "parameter"}) {
    const bind::RunResult r = run(std::string("throw_kind('") + name + "', 'reworded')\n");
    EXPECT_EQ(r.error, "t.lua:1: reworded") << name;
  }
  const bind::RunResult r = run("throw_kind('bad_input', 'misuse')\n");
  EXPECT_NE(r.error.find("stack traceback"), std::string::npos) << "a script's error keeps its traceback";
}

TEST(BindErrors, ThePositionErrorAddsIsLookedBehindOnce) {
  // Caught and raised again with error(e): one more position in front, the kind kept.
  bind::RunResult r = run("local ok, e = pcall(function() throw_kind('no_gpu', 'gone') end)\nerror(e)\n");
  EXPECT_EQ(r.kind, ErrorKind::no_gpu) << r.error;
  EXPECT_EQ(r.error, "t.lua:2: t.lua:1: gone");
  // As it was (error(e, 0)), and from a pcall of the binding itself (no position at all).
  r = run("local ok, e = pcall(throw_kind, 'parameter', 'p')\nerror(e, 0)\n");
  EXPECT_EQ(r.kind, ErrorKind::parameter) << r.error;
  EXPECT_EQ(r.error, "p");
  // Two positions more: not the value raised, not its kind.
  r =
      run("local ok, e = pcall(function() throw_kind('no_gpu', 'gone') end)\n"
          "local ok2, e2 = pcall(function() error(e) end)\n"
          "error(e2)\n");
  EXPECT_EQ(r.kind, ErrorKind::failed) << r.error;
}

TEST(BindErrors, NoWordOfAMessageDecidesItsKind) {
  // A new message around the value is the script's own error, never a substring match.
  bind::RunResult r =
      run("local ok, e = pcall(throw_kind, 'no_gpu', 'gone')\nerror('while counting: ' .. e)\n");
  EXPECT_EQ(r.kind, ErrorKind::failed) << r.error;
  // The words warplab's own sentences use, raised by the script itself.
  for (const char* words :
       {"no CUDA device: a kernel launch needs a GPU", "params: -p block=x: expected an integer",
        "attribute 'x' is unknown for profile sm_86"}) {
    r = run(std::string("error(\"") + words + "\")\n");
    EXPECT_EQ(r.kind, ErrorKind::failed) << words;
    EXPECT_NE(r.error.find("stack traceback"), std::string::npos) << words;
  }
  // An exception not of warplab's: the script's error.
  r = run("throw_kind('no such kind', 'a bug')\n");
  EXPECT_EQ(r.kind, ErrorKind::failed) << r.error;
}

TEST(BindErrors, WarplabRaiseKeepsItsKind) {
  bind::RunResult r =
      run("local function check() warplab.raise('parameter', 'reworded refusal', 2) end\ncheck()\n");
  EXPECT_EQ(r.kind, ErrorKind::parameter) << r.error;
  EXPECT_EQ(r.error, "t.lua:2: reworded refusal") << "level 2: the caller's line, as error()";
  r = run("warplab.raise('no_gpu', 'x', 0)\n");
  EXPECT_EQ(r.error, "x");
  EXPECT_EQ(r.kind, ErrorKind::no_gpu);
  // compile and timeout are warplab's verdicts; an unknown kind is misuse.
  for (const char* bad : {"compile", "timeout", "nope"}) {
    r = run(std::string("warplab.raise('") + bad + "', 'x')\n");
    EXPECT_EQ(r.kind, ErrorKind::failed) << bad;
    EXPECT_NE(r.error.find("bad argument #1 to 'raise'"), std::string::npos) << r.error;
  }
}

TEST(BindErrors, TheRingHoldsTheLastFew) {
  const std::string kept = std::to_string(bind::StateRecord::kRaisedKept);
  // The first of kRaisedKept raises is still known; one more pushes it out.
  for (const auto& [more, want] : {std::pair{"0", ErrorKind::no_gpu}, std::pair{"1", ErrorKind::failed}}) {
    const bind::RunResult r =
        run("local first\n"
            "for i = 1, " +
            kept + " + " + more +
            " do\n"
            "  local ok, e = pcall(throw_kind, 'no_gpu', 'n' .. i)\n"
            "  first = first or e\n"
            "end\n"
            "error(first, 0)\n");
    EXPECT_EQ(r.kind, want) << "after " << kept << " + " << more << " raises: " << r.error;
  }
  // However many a loop raises, the record holds no more (run() checks the size too).
  const bind::RunResult r = run("for i = 1, 10000 do pcall(throw_kind, 'bad_input', ('x'):rep(i)) end\n");
  EXPECT_TRUE(r.ok) << r.error;
}

TEST(BindErrors, ARaisedCompileFailureIsACompileError) {
  bind::RunResult r =
      run("local m = assert(cuda.compile{source = '__global__ void k(int* p) { p[0] = q; }'})\n");
  EXPECT_EQ(r.kind, ErrorKind::compile) << r.error;
  EXPECT_NE(r.error.find("identifier \"q\" is undefined"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("\nwarplab: t.lua:1: t.lua did not compile for sm_90 (1 error)"), std::string::npos)
      << r.error;
  // Wrapped in a message of the script's own, it is the script's error.
  r =
      run("local m, diag = cuda.compile{source = '__global__ void k(int* p) { p[0] = q; }'}\n"
          "error('my runner: ' .. diag)\n");
  EXPECT_EQ(r.kind, ErrorKind::failed) << r.error;
}

}  // namespace
