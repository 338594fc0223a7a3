-- api_kernel.lua: kernel handles: lookup (base name, full name, signature, mangled name,
-- ambiguous, missing), extern "C" kernels with their types read and declared, the
-- fields and tostring, and argument checking (count, integer ranges, types), which
-- happens before the driver is involved, so it is tested offline. Runs offline
-- (CTest lua.NAME) and live (gpu-check): every launch here is rejected before it runs,
-- except where `live` is false, where it must stop at "no CUDA device".
local t = require "warplab.test"

local live = cuda.device().live
local THIS = debug.getinfo(1, "S").source:sub(2)

local m = assert(cuda.compile{source = [[
#include <cuda_fp16.h>
struct Quad { float a, b, c, d; };
__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void over(const float* a, float* b, int n) { b[0] = a[0] + n; }
__global__ void over(double* a) { a[0] = 1; }
__global__ void __launch_bounds__(128) bounded(float* a) { a[threadIdx.x] = 1; }
__global__ void with_shared(float* a) {
  __shared__ float s[1024];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[1023 - threadIdx.x];
}
__global__ void all_types(signed char a, unsigned char b, short c, unsigned short d, int e,
    unsigned int f, long long g, unsigned long long h, float i, double j, __half k, bool l,
    const int* m, Quad q) {}
extern "C" __global__ void ec(float* a, int n) { a[n] = 0; }
]]})

t.case("lookup by base name, full name, signature, mangled name, m:kernel", function()
  t.eq(m.saxpy.name, "saxpy")
  t.eq(m["saxpy"].mangled, "_Z5saxpyfPKfPfi")
  t.eq(m:kernel("saxpy").mangled, "_Z5saxpyfPKfPfi")
  t.eq(m._Z5saxpyfPKfPfi.name, "saxpy")
  t.eq(m:kernel("over(double*)").signature, "over(double*)")
  t.eq(m["over(const float*, float*, int)"].params, {"const float*", "float*", "int"})
  assert(rawequal(m.saxpy, m.saxpy), "m.<name> is cached")
end)

t.case("an ambiguous or missing name raises and lists what there is", function()
  t.checkerror("'over' is ambiguous in module " .. THIS .. ": 2 kernels match: over(const float*, float*, int), "
               .. "over(double*) (name one of them, with its signature for overloads)", function() return m.over end)
  local msg = t.checkerror("module " .. THIS .. " has no kernel 'saxpi' (kernels: saxpy, over, over, bounded, "
                           .. "with_shared, all_types, ec)", m.kernel, m, "saxpi")
  t.checkerror("has no kernel 'nope'", function() return m.nope end)
  assert(msg:find("has no kernel"), msg)
end)

t.case("kernel fields", function()
  local k = m.saxpy
  t.eq(k.signature, "saxpy(float, const float*, float*, int)")
  t.eq(k.params, {"float", "const float*", "float*", "int"})
  assert(math.type(k.regs) == "integer" and k.regs > 0 and k.regs <= 32, k.regs)
  t.eq({k.shared_bytes, k.local_bytes, k.spill_bytes, k.barriers}, {0, 0, 0, 0})
  t.eq(k.const_bytes, 0)  -- ptxas reports no user constant bank for sm_90
  t.eq(k.max_threads, 1024)
  t.eq({k.ptx_version, k.binary_version, k.arch}, {90, 90, "sm_90"})
  local s = m.with_shared
  t.eq({s.shared_bytes, s.barriers}, {4096, 1})
  t.eq(m.bounded.max_threads, 128)  -- __launch_bounds__(128), from the PTX's .maxntid offline
end)

t.case("an unknown kernel field raises", function()
  t.checkerror("kernel has no field or method 'regz'", function() return m.saxpy.regz end)
end)

t.case("tostring(k): signature and resources", function()
  local k = m.saxpy
  t.eq(tostring(k), string.format("saxpy(float, const float*, float*, int)  [%d regs, 0 B shared, "
                                  .. "0 B local, max 1024 threads, sm_90]", k.regs))
  assert(tostring(m.with_shared):find(" regs, 4096 B shared, 0 B local, max 1024 threads, sm_90]", 1, true))
end)

t.case("extern \"C\": types read from the source, a declaration still wins", function()
  local k = m.ec
  t.eq(k.signature, "ec(float*, int)")
  t.eq(k.params, {"float*", "int"})
  t.checkerror("ec expects 2 arguments (ec(float*, int)), got 1", k.launch, k, 1, 32, nil)
  t.checkerror("argument 2 (int) of ec: expected an integer, got 0.5", k.launch, k, 1, 32, nil, 0.5)
  local d = m:kernel("ec", "float* a, int n")
  t.eq(d.signature, "ec(float*, int)")
  t.eq(d.params, {"float*", "int"})
  t.checkerror("kernel ec: the declared signature has 1 parameters but the kernel takes 2", m.kernel, m, "ec", "float*")
  local wide = m:kernel("ec", "float*, long")
  t.checkerror("argument 2 (long) of ec: the signature says 8 bytes but the kernel takes 4", wide.launch, wide, 1, 32, nil, 0)
  if not live then
    t.checkerror("no CUDA device: a kernel launch needs a GPU", d.launch, d, 1, 32, nil, 0)
  end
end)

t.case("argument count", function()
  local k = m.saxpy
  t.checkerror("saxpy expects 4 arguments (saxpy(float, const float*, float*, int)), got 3",
               k.launch, k, 1, 32, 2.0, nil, nil)
  t.checkerror("saxpy expects 4 arguments (saxpy(float, const float*, float*, int)), got 0",
               function() k{grid = 1, block = 32} end)
  t.checkerror("got 5", function() k{grid = 1, block = 32, args = {2.0, 0, 0, 1, 1}} end)
  -- args.n counts trailing nils (null pointers): 2 arguments, not 1.
  t.checkerror("got 2", function() k{grid = 1, block = 32, args = table.pack(2.0, nil)} end)
  t.checkerror("args must be a list", function() k{grid = 1, block = 32, args = 2.0} end)
end)

t.case("integer arguments: integral and in range", function()
  local k = m.saxpy
  t.checkerror("argument 4 (int) of saxpy: expected an integer, got 3.5", k.launch, k, 1, 32, 2.0, nil, nil, 3.5)
  t.checkerror("argument 4 (int) of saxpy: 1099511627776 is out of range (32-bit signed: -2147483648..2147483647)",
               k.launch, k, 1, 32, 2.0, nil, nil, 2^40)
  t.checkerror("argument 4 (int) of saxpy: expected an integer, got nope", k.launch, k, 1, 32, 2.0, nil, nil, "nope")
  local a = m.all_types
  local function args(i, v)
    -- table.pack sets n, so the nil (a null pointer) at 13 is counted.
    local list = table.pack(1, 2, 3, 4, 5, 6, 7, 8, 9.0, 10.0, 11.0, true, nil, string.rep("\0", 16))
    list[i] = v
    return list
  end
  local function try(i, v) a{grid = 1, block = 1, args = args(i, v)} end
  t.checkerror("argument 1 (signed char) of all_types: -129 is out of range (8-bit signed: -128..127)", try, 1, -129)
  t.checkerror("argument 2 (unsigned char) of all_types: 256 is out of range (8-bit unsigned: 0..255)", try, 2, 256)
  t.checkerror("argument 3 (short) of all_types: 32768 is out of range (16-bit signed: -32768..32767)", try, 3, 32768)
  t.checkerror("argument 4 (unsigned short) of all_types: -1 is out of range (16-bit unsigned: 0..65535)", try, 4, -1)
  t.checkerror("argument 6 (unsigned int) of all_types: 4294967296 is out of range (32-bit unsigned: 0..4294967295)",
               try, 6, 1 << 32)
  t.checkerror("argument 8 (unsigned long long) of all_types: -1 is out of range (64-bit unsigned: "
               .. "0..18446744073709551615)", try, 8, -1)
  t.checkerror("argument 7 (long long) of all_types: expected an integer, got 1e+100", try, 7, 1e100)
  t.checkerror("argument 9 (float) of all_types: expected a number, got boolean", try, 9, false)
  t.checkerror("argument 12 (bool) of all_types: expected a boolean, got number", try, 12, 1)
  t.checkerror("argument 13 (const int*) of all_types: expected a cuda.array (or nil for a null pointer), got string",
               try, 13, "ptr")
  t.checkerror("argument 14 (Quad) of all_types: this parameter type is passed as its raw bytes: a string of 16 bytes",
               try, 14, "short")
  if not live then
    -- Every value above at its edge marshals: the launch then stops at the missing GPU.
    t.checkerror("no CUDA device", a.launch, a, 1, 1, -128, 255, -32768, 65535, -2^31, 0xFFFFFFFF,
                 math.mininteger, math.maxinteger, 1e38, 1e308, 65504, false, nil, string.rep("\1", 16))
  end
end)

t.run{exit = true}
