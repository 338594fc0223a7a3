-- launch.lua (GPU): launches with verified output: saxpy in both call forms, every
-- scalar parameter type read back by the kernel (the parameter layout from
-- cuFuncGetParamInfo), every array type as its pointer type, a struct by value, views as
-- pointers, thread_ids.cu on 1-3-D shapes, streams (blocking by default, so a:get()
-- waits; non_blocking on request); and the argument errors a launch raises first.
local t = require "warplab.test"

assert(cuda.device().live, "needs a GPU")

local m = assert(cuda.compile{source = [[
#include <cuda_fp16.h>
#include <warplab/ids.cuh>
struct Quad { float a, b, c, d; };
__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void fill_i32(int* out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + i;
}
__global__ void scalars(signed char a, unsigned char b, short c, unsigned short d, int e,
                        unsigned int f, long long g, unsigned long long h, float i, double j,
                        __half k, bool l, long long* iout, double* fout) {
  iout[0] = a; iout[1] = b; iout[2] = c; iout[3] = d; iout[4] = e; iout[5] = f;
  iout[6] = g; iout[7] = static_cast<long long>(h); iout[8] = l;
  fout[0] = i; fout[1] = j; fout[2] = __half2float(k);
}
__global__ void quad(Quad q, float* out) { out[0] = q.a; out[1] = q.b; out[2] = q.c; out[3] = q.d; }
template <class T>
__global__ void to_double(const T* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<double>(in[i]);
}
__global__ void half_to_double(const __half* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __half2float(in[i]);
}
__global__ void zero_bytes(void* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) static_cast<unsigned char*>(p)[i] = 0;
}
__global__ void maybe_null(int* p, int* flag) { flag[0] = p == nullptr ? 1 : 2; }
// Spins for `ns` nanoseconds of the global timer, then writes `value`.
__global__ void slow_write(int* out, int value, unsigned long long ns) {
  const unsigned long long t0 = warplab::global_timer();
  while (warplab::global_timer() - t0 < ns) {}
  out[threadIdx.x] = value;
}
]], kernels = {"to_double<signed char>", "to_double<unsigned char>", "to_double<short>",
               "to_double<unsigned short>", "to_double<int>", "to_double<unsigned int>",
               "to_double<long long>", "to_double<unsigned long long>", "to_double<float>",
               "to_double<double>"}})

t.case("saxpy, k:launch and k{...}: the output checks out", function()
  local n = 1000  -- not a multiple of the block: the tail is guarded
  local x = cuda.array("f32", n):iota()
  local y = cuda.array("f32", n):fill(1)
  m.saxpy:launch((n + 255) // 256, 256, 2.0, x, y, n)
  local got = y:get()
  for i = 1, n do
    if got[i] ~= 2 * (i - 1) + 1 then error(string.format("y[%d] = %g, want %g", i, got[i], 2 * (i - 1) + 1)) end
  end
  m.saxpy{grid = {4, 1}, block = {256}, args = {-1.0, x, y, n}}  -- y = -x + y = 1 + x
  got = y:get()
  for i = 1, n do assert(got[i] == i, i) end
end)

t.case("every scalar parameter type arrives as passed", function()
  local iout, fout = cuda.array("i64", 9):fill(-99), cuda.array("f64", 3)
  m.scalars:launch(1, 1, -128, 255, -32768, 65535, -2147483648, 4294967295, math.mininteger,
                   math.maxinteger, 1.5, math.pi, 0.333251953125, true, iout, fout)
  t.eq(iout:get(), {-128, 255, -32768, 65535, -2147483648, 4294967295, math.mininteger, math.maxinteger, 1})
  t.eq(fout:get(), {1.5, math.pi, 0.333251953125})
end)

t.case("a struct by value as its raw bytes", function()
  local out = cuda.array("f32", 4)
  m.quad:launch(1, 1, string.pack("ffff", 1.5, -2, 3, 4.25), out)
  t.eq(out:get(), {1.5, -2.0, 3.0, 4.25})
end)

t.case("every array type passes as its pointer type", function()
  local cases = {
    {"i8", "signed char", {-1, 2, -128}}, {"u8", "unsigned char", {1, 2, 255}},
    {"i16", "short", {-1, 2, -32768}}, {"u16", "unsigned short", {1, 2, 65535}},
    {"i32", "int", {-1, 2, -2147483648}}, {"u32", "unsigned int", {1, 2, 4294967295}},
    {"i64", "long long", {-1, 2, -(1 << 40)}}, {"u64", "unsigned long long", {1, 2, 1 << 40}},
    {"f32", "float", {0.5, -2.25, 3.0}}, {"f64", "double", {0.1, -2.25, 1e300}},
  }
  local out = cuda.array("f64", 3)
  for _, c in ipairs(cases) do
    local a = cuda.array(c[1], c[3])
    out:zero()
    m["to_double<" .. c[2] .. ">"]:launch(1, 32, a, out, 3)
    t.eq(out:get(), c[3], c[1])
  end
  local h = cuda.array("f16", {0.5, -2.25, 65504})
  m.half_to_double:launch(1, 32, h, out, 3)
  t.eq(out:get(), {0.5, -2.25, 65504.0})
  -- void* takes any array; nil is a null pointer.
  local any = cuda.array("f64", 2):fill(1)
  m.zero_bytes:launch(1, 32, any, 16)
  t.eq(any:get(), {0.0, 0.0})
  local flag = cuda.array("i32", 1)
  m.maybe_null:launch(1, 1, nil, flag)
  t.eq(flag[1], 1)
  m.maybe_null:launch(1, 1, flag, flag)
  t.eq(flag[1], 2)
end)

t.case("a view passes its own first element", function()
  local a = cuda.array("i32", 10):zero()
  m.fill_i32:launch(1, 32, a:view(4, 3), 100, 3)
  t.eq(a:get(), {0, 0, 0, 100, 101, 102, 0, 0, 0, 0})
end)

t.case("argument errors: types, integers, count, freed arrays", function()
  local k = m.fill_i32
  local f = cuda.array("f32", 4)
  t.checkerror("argument 1 (int*) of fill_i32: an f32 array cannot be passed as int*", k.launch, k, 1, 4, f, 0, 4)
  t.checkerror("argument 1 (int*) of fill_i32: a u32 array cannot be passed as int*", k.launch, k, 1, 4,
               cuda.array("u32", 4), 0, 4)
  t.checkerror("argument 2 (const float*) of saxpy: an f64 array cannot be passed as const float*",
               m.saxpy.launch, m.saxpy, 1, 4, 1.0, cuda.array("f64", 4), f, 4)
  local i = cuda.array("i32", 4)
  t.checkerror("argument 2 (int) of fill_i32: expected an integer, got 3.5", k.launch, k, 1, 4, i, 3.5, 4)
  t.checkerror("argument 2 (int) of fill_i32: 1099511627776 is out of range (32-bit signed: "
               .. "-2147483648..2147483647)", k.launch, k, 1, 4, i, 2^40, 4)
  t.checkerror("fill_i32 expects 3 arguments (fill_i32(int*, int, int)), got 2", k.launch, k, 1, 4, i, 0)
  t.checkerror("fill_i32 expects 3 arguments (fill_i32(int*, int, int)), got 4", k.launch, k, 1, 4, i, 0, 4, 5)
  local gone = cuda.array("i32", 4)
  gone:free()
  t.checkerror("argument 1 (int*) of fill_i32: attempt to use a freed array", k.launch, k, 1, 4, gone, 0, 4)
  -- Nothing above reached the GPU: the array is as it was, the context is fine.
  t.eq(i:zero():get(), {0, 0, 0, 0})
  k:launch(1, 4, i, 5, 4)
  t.eq(i:get(), {5, 6, 7, 8})
end)

t.case("thread_ids.cu: row-major numbering, warps of consecutive threads", function()
  local ids = assert(cuda.compile("warps/thread_ids.cu")).thread_ids
  local F = 16  -- u32 fields per record
  for _, shape in ipairs({{grid = {2, 1, 1}, block = {16, 8, 1}}, {grid = {2, 2, 2}, block = {4, 4, 2}},
                          {grid = 3, block = 28}}) do
    local g = type(shape.grid) == "table" and shape.grid or {shape.grid, 1, 1}
    local b = type(shape.block) == "table" and shape.block or {shape.block, 1, 1}
    local tpb, blocks = b[1] * b[2] * b[3], g[1] * g[2] * g[3]
    local n = tpb * blocks
    local out = cuda.array("u32", n * F)
    ids{grid = shape.grid, block = shape.block, args = {out, n}}
    local r = out:get()
    for gid = 0, n - 1 do
      local base = gid * F
      local tib, bib = gid % tpb, gid // tpb
      local want = {tib % b[1], (tib // b[1]) % b[2], tib // (b[1] * b[2]),
                    bib % g[1], (bib // g[1]) % g[2], bib // (g[1] * g[2]), tib, bib, gid,
                    gid // 32, gid % 32, tib // 32, tib % 32}
      for f = 1, 13 do
        if r[base + f] ~= want[f] then
          error(string.format("block %s, thread %d: field %d = %d, want %d", table.concat(b, "x"), gid, f - 1,
                              r[base + f], want[f]))
        end
      end
      t.eq(r[base + 14], tib % 32, "hardware lane = thread in block % 32")
    end
  end
end)

t.case("streams: blocking by default (a:get() waits), non_blocking on request", function()
  local out = cuda.array("i32", 32):zero()
  local s = cuda.stream()
  m.slow_write{grid = 1, block = 32, stream = s, args = {out, 7, 20000000}}  -- 20 ms
  t.eq(s:query(), false)
  t.eq(out:get()[32], 7)  -- the legacy-stream copy waited for the blocking stream
  t.eq(s:query(), true)
  local nb = cuda.stream{non_blocking = true}
  m.slow_write{grid = 1, block = 32, stream = nb, args = {out, 9, 1000000}}
  nb:synchronize()
  t.eq(out:get()[1], 9)
  s:free()
  s:free()
  t.checkerror("attempt to use a destroyed stream", s.synchronize, s)
  t.checkerror("attempt to use a destroyed stream", function() m.slow_write{grid = 1, block = 1, stream = s, args = {out, 1, 0}} end)
  local escaped
  do
    local c <close> = cuda.stream()
    escaped = c
  end
  t.checkerror("attempt to use a destroyed stream", escaped.query, escaped)
end)

t.run{exit = true}
