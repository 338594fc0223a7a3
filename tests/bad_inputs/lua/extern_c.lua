-- extern_c.lua: extern "C" kernels whose parameter types warplab read from the source
-- (plain types, a template's extern "C" wrapper, a macro and a typedef in the list), given
-- wrong types and counts through every launch call, offline (the h100 profile): each is one
-- sentence naming the argument, its type and the kernel; a kernel whose types cannot be told
-- names its list as written; and any value as any argument is a sentence, never a crash.
local cases = require "support.cases"

local m = assert(cuda.compile{source = [[
  extern "C" __global__ void plain(const float* x, float* y, float a, unsigned int n) {}
  template <class T> __device__ void body(T* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 0; }
  extern "C" __global__ void wrap(double* x, int n) { body<double>(x, n); }
  #define REAL float
  typedef short small_t;
  extern "C" __global__ void macro(REAL* x, small_t s, bool on) {}
  namespace ns {
  #if 1
  typedef short tiny_t;
  #endif
  extern "C" __global__ void lost(REAL* x, tiny_t s) {}
  }
  struct S { int a; };
  extern "C" __global__ void member(int S::* f) {}
]]})
local f32, f64, i32 = cuda.array("f32", 4), cuda.array("f64", 4), cuda.array("i32", 4)

cases.errors{
  -- wrong counts
  {"plain: 3 of 4", "plain expects 4 arguments (plain(const float*, float*, float, unsigned int)), got 3", function() return m.plain:launch(1, 1, f32, f32, 1.0) end},
  {"plain: 5 of 4", "plain expects 4 arguments", function() return m.plain{grid = 1, block = 1, args = {f32, f32, 1.0, 4, 5}} end},
  {"wrap: none", "wrap expects 2 arguments (wrap(double*, int)), got 0", function() return m.wrap:launch(1, 1) end},
  {"macro: check 2 of 3", "macro expects 3 arguments (macro(float*, short, bool)), got 2", function() local ok, why = m.macro:check{grid = 1, block = 1, args = {f32, 1}}; assert(not ok); error(why) end},
  -- wrong types
  {"plain: an i32 array as const float*", "argument 1 (const float*) of plain: an i32 array cannot be passed as const float*", function() return m.plain:launch(1, 1, i32, f32, 1.0, 4) end},
  {"plain: a string as float", "argument 3 (float) of plain: expected a number, got string", function() return m.plain:launch(1, 1, f32, f32, "x", 4) end},
  {"plain: 2^32 as unsigned int", "argument 4 (unsigned int) of plain: 4294967296 is out of range (32-bit unsigned: 0..4294967295)", function() return m.plain:launch(1, 1, f32, f32, 1.0, 1 << 32) end},
  {"wrap: an f32 array as double*", "argument 1 (double*) of wrap: an f32 array cannot be passed as double*", function() return m.wrap{grid = 1, block = 1, args = {f32, 4}} end},
  {"wrap: 1.5 as int", "argument 2 (int) of wrap: expected an integer, got 1.5", function() return m.wrap:launch(1, 1, f64, 1.5) end},
  {"macro: an f64 array as REAL*", "argument 1 (float*) of macro: an f64 array cannot be passed as float*", function() return m.macro:launch(1, 1, f64, 1, true) end},
  {"macro: 40000 as small_t", "argument 2 (short) of macro: 40000 is out of range (16-bit signed: -32768..32767)", function() return m.macro:launch(1, 1, f32, 40000, true) end},
  {"macro: 1 as bool", "argument 3 (bool) of macro: expected a boolean, got number", function() return m.macro:launch(1, 1, f32, 1, 1) end},
  -- types that cannot be told: the list as written
  {"lost", 'kernel lost is extern "C" and its parameter types are unknown (NVRTC could not tell them): declare its parameters with m:kernel("lost", "REAL* x, tiny_t s")', function() return m.lost:launch(1, 1, f32, 1) end},
  {"member", "parameter 1's type, 'int S::*', is not one warplab can pass): declare its parameters with m:kernel(\"member\", \"int S::* f\")", function() return m.member:launch(1, 1, 0) end},
  -- a declaration still wins, and is checked against the kernel
  {"lost declared short", "kernel lost: the declared signature has 1 parameters but the kernel takes 2", function() return m:kernel("lost", "float* x") end},
}

cases.fine{
  {"lost declared", function() cases.eq(m:kernel("lost", "float* x, short s").signature, "lost(float*, short)") end},
  {"wrap checked fine", function() cases.eq(m.wrap:check{grid = 1, block = 1, args = {f64, 4}}, true) end},
}

-- Every value as each argument of each kernel: an error sentence, never a crash.
local sweep = {}
for i = 1, cases.nvalues do
  local v = cases.values[i]
  for _, name in ipairs{"plain", "wrap", "macro", "lost", "member"} do
    sweep[#sweep + 1] = {name .. "(values[" .. i .. "] x4)", function() return m[name]:launch(1, 1, v, v, v, v) end}
    sweep[#sweep + 1] = {name .. ":check(values[" .. i .. "])", function() return m[name]:check{grid = 1, block = 1, args = {v, v}} end}
  end
end
cases.survives(sweep)
cases.run()
