-- api_externc.lua: extern "C" kernels launched by name, their parameter types read from
-- the source with no m:kernel declaration, in three styles: CuPy RawKernel code (plain
-- types, inline), a template behind extern "C" wrappers, and macros and typedefs in the
-- parameter lists (a header's, one chosen by #ifdef and -D, a kernel made by a macro:
-- tests/data/kernels/extern_c.cu). Where the types cannot be told, the launch names the
-- list as the source writes it. Offline the arguments are checked and a valid launch stops
-- at "no CUDA device"; live (lua.api_externc.gpu) every kernel runs and its result is checked.
local t = require "warplab.test"

local live = cuda.device().live
local NO_GPU = "no CUDA device: a kernel launch needs a GPU"

local raw = assert(cuda.compile{source = [[
extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
]]})
local file = assert(cuda.compile{file = "../data/kernels/extern_c.cu"})
local wide = assert(cuda.compile{file = "../data/kernels/extern_c.cu", defines = {ACC_DOUBLE = 1}})
local odd = assert(cuda.compile{source = [[
namespace lib {
#ifdef WIDE
typedef double real;
#else
typedef float real;
#endif
extern "C" __global__ void hidden(real* p, int n) { if (threadIdx.x < n) p[threadIdx.x] = 2 * n; }
}
struct S { int a; };
extern "C" __global__ void member(int S::* f, S* s, int* out) { out[0] = s->*f; }
]]})

-- A launch that must pass its checks: offline it stops at the GPU, live it runs.
local function launches(f, ...)
  if live then
    f(...)
  else
    t.checkerror(NO_GPU, f, ...)
  end
end

t.case("signatures read from the source in three styles", function()
  t.eq(raw.saxpy.signature, "saxpy(const float*, float*, float, unsigned int)")
  t.eq(raw.saxpy.params, {"const float*", "float*", "float", "unsigned int"})
  t.eq(file.axpy.signature, "axpy(float, const float*, float*, unsigned int)")  -- a header's typedef and macro
  t.eq(file.scale_f32.signature, "scale_f32(float*, float, unsigned int)")      -- template wrappers
  t.eq(file.scale_f64.signature, "scale_f64(double*, double, unsigned int)")
  t.eq(file.iota_i32.signature, "iota_i32(int*, int)")                          -- made by a macro
  t.eq(file.widen.signature, "widen(const float*, float*, int)")                -- #ifdef, without -D
  t.eq(wide.widen.signature, "widen(const float*, double*, int)")               -- and with it
  t.eq(file["scale_f32(float*, float, unsigned int)"].name, "scale_f32")        -- found by signature
end)

t.case("the arguments are checked as for C++ kernels, k{...} and k:launch alike", function()
  local x, y, d = cuda.array("f32", 64), cuda.array("f32", 64), cuda.array("f64", 64)
  local k = raw.saxpy
  t.checkerror("saxpy expects 4 arguments (saxpy(const float*, float*, float, unsigned int)), got 3",
               k.launch, k, 1, 64, x, y, 2.0)
  t.checkerror("saxpy expects 4 arguments", k, {grid = 1, block = 64, args = {x, y, 2.0, 64, 1}})
  t.checkerror("argument 2 (float*) of saxpy: an f64 array cannot be passed as float*", k.launch, k, 1, 64, x, d, 2.0, 64)
  t.checkerror("argument 3 (float) of saxpy: expected a number, got boolean", k, {grid = 1, block = 64, args = {x, y, true, 64}})
  t.checkerror("argument 4 (unsigned int) of saxpy: -1 is out of range (32-bit unsigned: 0..4294967295)",
               k.launch, k, 1, 64, x, y, 2.0, -1)
  t.eq({file.scale_f64:check{grid = 1, block = 64, args = {x, 2.0, 64}}},
       {false, "argument 1 (double*) of scale_f64: an f32 array cannot be passed as double*"})
  t.eq(file.scale_f64:check{grid = 1, block = 64, args = {d, 2.0, 64}}, true)
  t.eq({wide.widen:check{grid = 1, block = 64, args = {x, x, 64}}},
       {false, "argument 2 (double*) of widen: an f32 array cannot be passed as double*"})
  launches(k.launch, k, 1, 64, x, y, 2.0, 64)
  launches(k, {grid = 1, block = 64, args = {x, y, 2.0, 64}})
end)

t.case("types that cannot be told: the hint names the list as written", function()
  local h = odd.hidden
  t.eq(h.signature, 'hidden(?)  -- extern "C", types unknown: declare them with m:kernel("hidden", "real* p, int n")')
  t.eq(h.params, {})
  t.checkerror('kernel hidden is extern "C" and its parameter types are unknown (NVRTC could not tell them): '
               .. 'declare its parameters with m:kernel("hidden", "real* p, int n")', h.launch, h, 1, 32, nil, 1)
  t.checkerror("parameter 1's type, 'int S::*', is not one warplab can pass): declare its parameters with "
               .. 'm:kernel("member", "int S::* f, S* s, int* out")', odd.member, {grid = 1, block = 1, args = {}})
  -- Declared, it launches as any kernel.
  local d = odd:kernel("hidden", "float* p, int n")
  t.eq(d.signature, "hidden(float*, int)")
  local p = cuda.array("f32", 32):fill(0)
  launches(d.launch, d, 1, 32, p, 32)
  if live then t.eq(p[1], 64.0) end
end)

t.case("live: every kernel runs and computes what its file says", function()
  if not live then return end
  local n = 1000
  local xs, ys = {}, {}
  for i = 1, n do xs[i], ys[i] = i, 2 * i end
  local x, y = cuda.array("f32", xs), cuda.array("f32", ys)
  raw.saxpy{grid = (n + 255) // 256, block = 256, args = {x, y, 3.0, n}}
  local got = y:get()
  for i = 1, n do assert(got[i] == 3 * i + 2 * i, "saxpy at " .. i .. ": " .. got[i]) end
  file.axpy:launch((n + 255) // 256, 256, 0.5, x, y, n)
  got = y:get()
  for i = 1, n do assert(got[i] == 0.5 * i + 5 * i, "axpy at " .. i .. ": " .. got[i]) end
  local f = cuda.array("f32", xs)
  file.scale_f32:launch((n + 255) // 256, 256, f, 4.0, n)
  got = f:get()
  for i = 1, n do assert(got[i] == 4 * i, "scale_f32 at " .. i) end
  local d = cuda.array("f64", xs)
  file.scale_f64{grid = (n + 255) // 256, block = 256, args = {d, 0.25, n}}
  got = d:get()
  for i = 1, n do assert(got[i] == i / 4, "scale_f64 at " .. i) end
  local ints = cuda.array("i32", n):fill(-1)
  file.iota_i32:launch((n + 255) // 256, 256, ints, n - 1)  -- the last one left alone
  got = ints:get()
  for i = 1, n - 1 do assert(got[i] == i - 1, "iota_i32 at " .. i) end
  t.eq(got[n], -1)
  local w = cuda.array("f64", n)
  wide.widen:launch((n + 255) // 256, 256, x, w, n)
  got = w:get()
  for i = 1, n do assert(got[i] == 2 * xs[i], "widen at " .. i) end
end)

t.run()
