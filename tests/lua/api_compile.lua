-- api_compile.lua: cuda.compile in all its forms: path lookups (cwd, next to the calling
-- script, kernels_src), the table fields (defines, include, options, max_registers,
-- lineinfo, std, arch, kernels name expressions, name), misuse that raises, a missing
-- file (nil, msg), a failed compile (nil, text, list) at the Lua file's lines, module
-- fields, m:reload() and m:free(). Runs offline (CTest lua.NAME) and live (gpu-check).
local t = require "warplab.test"

local live = cuda.device().live
local THIS = debug.getinfo(1, "S").source:sub(2)  -- this file as warplab named it

-- A fresh folder for files the cases write (removed at the end).
local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p '" .. tmp .. "/inc'"))
local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function has(list, value)
  for _, v in ipairs(list) do if v == value then return true end end
  return false
end

t.case("a path in kernels_src, from the current folder, and next to the calling script", function()
  local m = assert(cuda.compile("warps/thread_ids.cu"))
  t.eq(m.kernels, {"thread_ids"})
  local m2 = assert(cuda.compile("kernels_src/warps/thread_ids.cu"))  -- the source root is the cwd
  t.eq(m2.kernels, {"thread_ids"})
  write(tmp .. "/near.cu", "__global__ void near_kernel(int* x) { x[0] = 1; }\n")
  write(tmp .. "/caller.lua", 'return cuda.compile("near.cu")\n')
  local m3 = assert(dofile(tmp .. "/caller.lua"))
  t.eq(m3.kernels, {"near_kernel"})
  t.eq(m3.name, tmp .. "/near.cu")
end)

t.case("a missing file is nil plus a sentence saying where warplab looked", function()
  local m, why = cuda.compile("no/such_kernel.cu")
  t.eq(m, nil)
  assert(why:find("cannot open kernel file 'no/such_kernel.cu' (looked in the current folder, next to "
                  .. THIS .. " and ", 1, true), why)
  assert(why:find("kernels_src)", 1, true), why)
  local m2, why2 = cuda.compile{file = "no/such_kernel.cu"}
  t.eq(m2, nil)
  t.eq(why2, why)
end)

t.case("misuse raises: both or neither of file/source, unknown fields, wrong types", function()
  t.checkerror("cuda.compile: give exactly one of file= or source=", cuda.compile,
               {file = "warps/thread_ids.cu", source = "__global__ void k() {}"})
  t.checkerror("cuda.compile: give exactly one of file= or source=", cuda.compile, {name = "x.cu"})
  t.checkerror("cuda.compile: unknown field 'defnies' (fields: file, source, name, defines, include, "
               .. "options, arch, kernels, std, max_registers, lineinfo)", cuda.compile,
               {source = "__global__ void k() {}", defnies = {}})
  t.checkerror("cuda.compile: arch must be a string, got number", cuda.compile,
               {source = "__global__ void k() {}", arch = 90})
  t.checkerror("cuda.compile: defines must be a table ({BLOCK = 256} or {\"BLOCK=256\"})", cuda.compile,
               {source = "__global__ void k() {}", defines = "BLOCK=256"})
  t.checkerror("cuda.compile: defines.N must be a number, string or boolean, got table", cuda.compile,
               {source = "__global__ void k() {}", defines = {N = {}}})
  t.checkerror("cuda.compile: options[2] must be a string", cuda.compile,
               {source = "__global__ void k() {}", options = {"-lineinfo", 3 > 2}})
  t.checkerror("cuda.compile: max_registers must be an integer >= 0 (0: no limit)", cuda.compile,
               {source = "__global__ void k() {}", max_registers = -1})
  t.checkerror("unsupported architecture 'sm_12'", cuda.compile, {source = "__global__ void k() {}", arch = "sm_12"})
  t.checkerror("bad argument #1 to 'compile' (table expected, got number)", function() return cuda.compile(42) end)
end)

t.case("defines: a map and a list, in a stable order", function()
  local m = assert(cuda.compile{source = [[
#if BLOCK != 256 || VAL != 3 || !defined(FLAG) || OFF != 0
#error "defines did not arrive"
#endif
__global__ void k(float* x) { x[0] = BLOCK + VAL; }
]], defines = {BLOCK = 256, FLAG = true, OFF = false, "VAL=3"}})
  local d = {}
  for _, o in ipairs(m.options) do if o:find("^%-D") then d[#d + 1] = o end end
  t.eq(d, {"-DBLOCK=256", "-DFLAG=1", "-DOFF=0", "-DVAL=3"})
end)

t.case("include dirs, and the headers a module depends on", function()
  write(tmp .. "/inc/hdr.cuh", "#define FROM_HEADER 7\n")
  local src = '#include "hdr.cuh"\n__global__ void k(int* x) { x[0] = FROM_HEADER; }\n'
  local m = assert(cuda.compile{source = src, include = {tmp .. "/inc"}})
  t.eq(#m.dependencies, 1)
  assert(m.dependencies[1]:find("hdr.cuh$"), m.dependencies[1])
  local bad, text = cuda.compile{source = src}
  t.eq(bad, nil)
  assert(text:find("hdr.cuh", 1, true), text)
  -- A single string works as a one-element list.
  assert(cuda.compile{source = src, include = tmp .. "/inc"})
end)

local heavy = [[
#include "../data/kernels/pressure.cuh"
]]

t.case("options, max_registers, lineinfo and std reach NVRTC", function()
  local m = assert(cuda.compile{source = heavy, kernels = {"heavy<200>"}, options = {"--maxrregcount=32"}})
  t.eq(m["heavy<200>"].regs, 32)
  assert(has(m.options, "--maxrregcount=32"))
  local m2 = assert(cuda.compile{source = heavy, kernels = {"heavy<200>"}, max_registers = 64,
                                 lineinfo = true, std = "c++20"})
  t.eq(m2["heavy<200>"].regs, 64)
  assert(m2["heavy<200>"].spill_bytes > 0)
  assert(has(m2.options, "--maxrregcount=64"))
  assert(has(m2.options, "-lineinfo"))
  assert(has(m2.options, "--std=c++20"))
  local m3 = assert(cuda.compile{source = "__global__ void k() {}", options = {"-lineinfo"}})
  assert(has(m3.options, "-lineinfo"))
end)

t.case("arch: another architecture compiles offline", function()
  if live then return end  -- a cubin for sm_80 does not load on the sm_90 device
  local m = assert(cuda.compile{source = "__global__ void k(int* x) { x[0] = 1; }", arch = "sm_80"})
  t.eq(m.arch, "sm_80")
  t.eq(m.k.arch, "sm_80")
  t.eq(m.k.binary_version, 80)
end)

t.case("kernels = {...} instantiates templates by name expression", function()
  local src = "template <int N> __global__ void tk(float* x) { x[threadIdx.x] = N; }\n"
  local m = assert(cuda.compile{source = src, kernels = {"tk<64>", "tk<128>"}})
  t.eq(m.kernels, {"tk<128>", "tk<64>"})
  t.eq(m["tk<64>"].name, "tk<64>")
  t.eq(m:kernel("tk<128>").signature, "tk<128>(float*)")
  -- (The source is built with "\n" escapes, so it is not in this file: it is inline.cu.)
  t.checkerror("'tk' is ambiguous in module inline.cu: 2 kernels match: tk<128>(float*), tk<64>(float*)",
               function() return m.tk end)
  local one = assert(cuda.compile{source = src, kernels = {"tk<64>"}})
  t.eq(one.tk.name, "tk<64>")  -- one instantiation: the base name finds it
  local none = assert(cuda.compile{source = src})
  t.eq(none.kernels, {})
end)

t.case("a failed compile: nil, the formatted text, and a list at the Lua file's lines", function()
  local at = debug.getinfo(1, "l").currentline
  local m, text, list = cuda.compile{source = [[
__global__ void bad(float* x) {
  x[0] = undefined_name;
}
]]}
  t.eq(m, nil)
  -- The kernel's line 2 is two lines below the call, which is one below `at`.
  local where = THIS .. ":" .. (at + 3) .. ":10"
  assert(text:find(where .. ": error: identifier \"undefined_name\" is undefined", 1, true), text)
  assert(text:find("^", 1, true), "the text shows a caret: " .. text)
  t.eq(list[1], {file = THIS, line = at + 3, col = 10, severity = "error",
                 message = 'identifier "undefined_name" is undefined'})
end)

-- An inline source kept in a local above the call still maps to where it is written.
local SOURCE_LINE = debug.getinfo(1, "l").currentline + 2
local broken = [[
__global__ void k2(int* x) {
  x[0] = 1
}
]]

t.case("an inline source in a local maps to its own lines; name = counts from 1", function()
  local _, _, list = cuda.compile{source = broken}
  t.eq(list[1].file, THIS)
  t.eq(list[1].line, SOURCE_LINE + 2)
  t.eq(list[1].severity, "error")
  local _, text2, list2 = cuda.compile{source = broken, name = "named.cu"}
  t.eq({list2[1].file, list2[1].line}, {"named.cu", 3})
  assert(text2:find("named.cu:3:", 1, true), text2)
  -- A source built at run time is not in the file: its own lines, named inline.cu.
  local _, _, list3 = cuda.compile{source = "__global__ void k3(int* x) {\n" .. "  x[0] = 1\n}\n"}
  t.eq({list3[1].file, list3[1].line}, {"inline.cu", 3})
end)

t.case("module fields and tostring", function()
  local m = assert(cuda.compile("warps/thread_ids.cu"))
  assert(m.name:find("kernels_src/warps/thread_ids.cu$"), m.name)
  t.eq(m.arch, "sm_90")
  assert(m.ptx:find(".entry _Z10thread_idsPjy(", 1, true))
  assert(m.log:find("ptxas info", 1, true), m.log)
  assert(type(m.compile_ms) == "number" and m.compile_ms > 0)
  assert(has(m.options, "--gpu-architecture=sm_90"))
  local deps = m.dependencies
  assert(#deps >= 1 and deps[1]:find("ids.cuh$"), deps[1])
  t.eq(tostring(m), "cuda.module " .. m.name .. " [sm_90, 1 kernel, " .. (live and "loaded" or "offline") .. "]")
  t.checkerror("module " .. m.name .. " has no kernel 'nope' (kernels: thread_ids)", function() return m.nope end)
end)

t.case("m:reload() compiles the file again; a failure keeps the old module", function()
  local path = tmp .. "/reload.cu"
  write(path, "__global__ void first(int* x) { x[0] = 1; }\n")
  local m = assert(cuda.compile(path))
  local k_old = m.first
  write(path, "__global__ void second(int* x) { x[0] = 2; }\n")
  t.eq(m:reload(), m)
  t.eq(m.kernels, {"second"})
  t.checkerror("has no kernel 'first'", function() return m.first end)
  t.eq(k_old.name, "first")  -- a kernel handed out before keeps its code
  write(path, "__global__ void third(int* x) { x[0] = }\n")
  local r, text, list = m:reload()
  t.eq(r, nil)
  assert(text:find("reload.cu:1:", 1, true), text)
  t.eq(list[1].line, 1)
  t.eq(m.kernels, {"second"})
  local inline = assert(cuda.compile{source = "__global__ void k() {}"})
  t.checkerror("module " .. THIS .. " has no file to reload from", inline.reload, inline)
end)

t.case("m:free() and <close>: later use raises, kernels keep working", function()
  local m = assert(cuda.compile("warps/thread_ids.cu"))
  local k = m.thread_ids
  m:free()
  m:free()  -- idempotent
  t.checkerror("attempt to use a freed module", function() return m.kernels end)
  t.eq(tostring(m), "cuda.module (freed)")
  t.eq(k.regs > 0, true)
  local escaped
  do
    local m2 <close> = assert(cuda.compile("warps/thread_ids.cu"))
    escaped = m2
  end
  t.checkerror("attempt to use a freed module", function() return escaped.thread_ids end)
end)

local ok = t.run()
os.execute("rm -rf '" .. tmp .. "'")
if not ok then os.exit(1) end
