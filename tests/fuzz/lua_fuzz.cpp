// lua_fuzz.cpp: libFuzzer harness for Lua chunks run against the `cuda` API offline (the
// h100 profile, no driver), as `warplab run` would run them, in a fresh state per input
// with a precompiled module in globals (dev, M, K, H for a host array). Limits per input:
// an instruction count (a hook that, once the budget is spent, raises on every
// instruction so pcall cannot swallow it) with a wall-clock deadline, and a lua_Alloc
// that refuses past kMaxLuaBytes. What would reach outside the process or block (io,
// os.exit/execute/remove/rename/setlocale, loadfile, dofile, package.loadlib,
// debug.sethook) is removed; print is silent; __gc is dropped (finalizers run without
// hooks). A Lua error is a normal outcome; a crash, a sanitizer report or an input that
// outlives libFuzzer's -timeout is a finding.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "bind/state.hpp"
#include "cu/profile.hpp"
#include "fuzz_util.hpp"

using namespace warplab;
namespace fs = std::filesystem;

namespace {

constexpr long long kMaxLuaBytes = 256ll << 20;
constexpr long kMaxInstructions = 20'000'000;
constexpr auto kMaxTime = std::chrono::seconds(2);

struct Budget {
  lua_Alloc inner = nullptr;
  void* inner_ud = nullptr;
  long long used = 0;  // bytes allocated through this allocator, net (blocks of the
                       // prelude freed during the input make it negative: more room)
  long instructions = 0;
  std::chrono::steady_clock::time_point deadline;
};
Budget budget;

void* limited_alloc(void* ud, void* ptr, std::size_t osize, std::size_t nsize) {
  auto* b = static_cast<Budget*>(ud);
  const long long old = ptr ? static_cast<long long>(osize) : 0;
  const long long grow = static_cast<long long>(nsize) - old;
  if (grow > 0 && b->used + grow > kMaxLuaBytes) return nullptr;  // Lua: "not enough memory"
  void* p = b->inner(b->inner_ud, ptr, osize, nsize);
  if (p || nsize == 0) b->used += grow;
  return p;
}

void spent(lua_State* L, lua_Debug*) {
  budget.instructions += 1000;
  if (budget.instructions > kMaxInstructions || std::chrono::steady_clock::now() > budget.deadline) {
    lua_sethook(L, spent, LUA_MASKCOUNT, 1);  // from now on every instruction raises
    luaL_error(L, "fuzz: the input's time is up");
  }
}

// Runs trusted setup code; a failure here is the harness's, not the input's.
void setup(lua_State* L, const char* code) {
  if (luaL_dostring(L, code) != LUA_OK) fuzz::finding(std::string("setup failed: ") + lua_tostring(L, -1));
}

const char* kPrelude = R"lua(
  for _, f in ipairs{"exit", "execute", "remove", "rename", "setlocale", "tmpname"} do os[f] = nil end
  io, loadfile, dofile, package.loadlib, debug.sethook = nil, nil, nil, nil, nil
  package.loaded.io = nil
  print = function() end
  -- Lua runs finalizers with hooks off, so a __gc that loops could not be stopped: the
  -- fuzzer would report Lua's semantics as a hang. __gc is dropped from new metatables.
  local set_metatable = setmetatable
  setmetatable = function(t, mt)
    if type(mt) == "table" then rawset(mt, "__gc", nil) end
    return set_metatable(t, mt)
  end
  dev = cuda.device()
  M = assert(cuda.compile{source = [[
    #include <cuda_fp16.h>
    struct P { float a, b; };
    __global__ void k(float* x, const int* y, double a, int n, unsigned char u, bool b, __half h, P p) {
      if (threadIdx.x < n) x[threadIdx.x] = a + y[0] + u + b + __half2float(h) + p.a;
    }
    template <int N> __global__ void t(float* x) { __shared__ float s[N]; s[threadIdx.x] = 1; x[0] = s[0]; }
    extern "C" __global__ void c(float* x, int n) { x[n] = 0; }
    __global__ void __launch_bounds__(128) bounded(int* p) { __syncthreads(); p[0] = 1; }
  ]], name = "fuzz.cu", kernels = {"t<64>", "t<4096>"}})
  K = M.k
  H = cuda.host_array("f32", 16, {pinned = false})
  local host_array = cuda.host_array
  cuda.host_array = function(ty, n, ...)  -- keep pageable allocations within libFuzzer's RSS limit
    if math.type(n) == "integer" and n > (1 << 20) then error("fuzz: host array over 2^20 elements") end
    return host_array(ty, n, ...)
  end
)lua";

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("WARPLAB_NO_DRIVER", "1", 1);
  unsetenv("WARPLAB_PROFILE");
  // A private compile cache: the prelude's module is compiled once, then read back.
  std::string dir = (fs::temp_directory_path() / "warplab-lua-fuzz-XXXXXX").string();
  if (!mkdtemp(dir.data())) fuzz::finding("mkdtemp failed");
  setenv("WARPLAB_CACHE_DIR", dir.c_str(), 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const cu::DeviceSnapshot h100 = cu::load_profile("h100");
  lab::Options opts;
  opts.profile = "h100";
  opts.quiet = true;
  opts.color = false;
  bind::StatePtr state = bind::open_state(opts, h100, true, "fuzzing offline");
  lua_State* L = state.get();
  setup(L, kPrelude);
  budget = Budget{};
  budget.inner = lua_getallocf(L, &budget.inner_ud);
  budget.deadline = std::chrono::steady_clock::now() + kMaxTime;
  lua_setallocf(L, limited_alloc, &budget);
  lua_sethook(L, spent, LUA_MASKCOUNT, 1000);
  if (luaL_loadbufferx(L, reinterpret_cast<const char*>(data), size, "=fuzz", "t") == LUA_OK)
    (void)lua_pcall(L, 0, 0, 0);
  lua_settop(L, 0);
  // The allocator stays for lua_close: the blocks counted above are freed through it.
  state.reset();
  return 0;
}
