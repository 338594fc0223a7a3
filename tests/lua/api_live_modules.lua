-- api_live_modules.lua: live modules (issue 4): a module compiled from a file follows it.
-- Looking a kernel up after the file or a header changed recompiles; a save that leaves
-- the bytes alone does not; a broken edit keeps the previous module; m:reload() forces.
local t = require "warplab.test"

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
local function write(name, text)
  local f = assert(io.open(dir .. "/" .. name, "w"))
  f:write(text)
  f:close()
end
local function bump_mtime(name)  -- same bytes, newer mtime
  assert(os.execute("touch -d '+2 seconds' " .. dir .. "/" .. name))
end

write("h.cuh", "#define N 1\n")
write("k.cu", '#include "h.cuh"\n__global__ void one(int* p) { p[0] = N; }\n')
local m = assert(cuda.compile(dir .. "/k.cu"))

t.case("an unchanged file keeps the module and its cached kernels", function()
  local k = m.one
  t.eq(rawequal(k, m.one), true)
  bump_mtime("k.cu")
  bump_mtime("h.cuh")
  t.eq(rawequal(k, m.one), true)  -- same bytes: no recompile, the cache survives
end)

t.case("an edited source is recompiled on the next lookup", function()
  write("k.cu", '#include "h.cuh"\n__global__ void one(int* p) { p[0] = N; }\n__global__ void two(int* p) {}\n')
  bump_mtime("k.cu")
  t.eq(m.two.name, "two")
  t.eq(#m.kernels, 2)
end)

t.case("an edited header is followed too", function()
  write("h.cuh", "#define N 1\n__global__ void from_header(int* p) {}\n")
  bump_mtime("h.cuh")
  t.eq(m.from_header.name, "from_header")
end)

t.case("a broken edit keeps the previous module", function()
  write("k.cu", "__global__ void one(int* p) { p[0] = ; }\n")
  bump_mtime("k.cu")
  t.eq(m.one.name, "one")          -- still the last good code
  t.eq(m.from_header.name, "from_header")
end)

t.case("m:reload() on a broken file returns nil and the diagnostics", function()
  local ok, diag = m:reload()
  t.eq(ok, nil)
  t.eq(diag:find("k.cu:1:", 1, true) ~= nil, true)
  write("k.cu", "__global__ void three(int* p) {}\n")
  t.eq(rawequal(m:reload(), m), true)
  t.eq(m.three.name, "three")
end)

local ok = t.run()
os.execute("rm -rf " .. dir)
if not ok then os.exit(1) end
