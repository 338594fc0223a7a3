-- planted.lua: four planted bugs that run without a sound; `warplab run --sanitize TOOL` finds each one and names its line.
-- Shows:  kernels_src/sanitize/planted.cu: a shared-memory race (no __syncthreads), a
--         __syncthreads() on each side of a branch that splits every warp, a read past the
--         end of an allocation, and a read of global memory nothing wrote. -p bug= picks
--         the planted kernel to run; the four clean twins always run and are checked.
-- Expect: a plain run finishes, the twins compute what the CPU computes, and the planted
--         kernel's output is shown but not checked (it is undefined): seeing the bug needs
--         a sanitizer. Under `--sanitize TOOL` (race: racecheck, barrier: synccheck,
--         oob: memcheck, uninit: initcheck) the closing table names the planted kernel
--         and its "sanitize:" line in planted.cu, and the exit status is 9; bug=none is
--         clean under every tool (exit 0). docs/sanitize.md has the details.
-- Run:    warplab run --sanitize racecheck examples/sanitize/planted.lua -p bug=race [-p n=1000]
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local ex = require "warplab.experiment"
local p = params{bug = "race", n = 1000, seed = 1}

local TOOL = {race = "racecheck", barrier = "synccheck", oob = "memcheck", uninit = "initcheck"}
if p.bug ~= "none" and not TOOL[p.bug] then
  error("planted.lua: bug must be race, barrier, oob, uninit or none, got '" .. p.bug .. "'")
end
-- x[n] must stay inside the padding of x's allocation (granules of at least 512 bytes), so
-- that a plain run reads garbage instead of faulting: n floats must not fill a granule.
if p.n < 2 or p.n % 128 == 0 then
  error(string.format("planted.lua: n %d must be >= 2 and not a multiple of 128 (x[n] must lie in the "
                      .. "padding of an allocation of n floats)", p.n))
end
local BLOCK = 256
local dev = cuda.device()
local m = assert(cuda.compile("sanitize/planted.cu"))
local c = check.new("planted")
local rows = {}
for _, bug in ipairs{"race", "barrier", "oob", "uninit"} do
  for _, v in ipairs{"planted_", "clean_"} do
    local k = m[v .. bug]
    rows[#rows + 1] = {k.name, v == "planted_" and TOOL[bug] or "-", k.regs, k.shared_bytes}
  end
end
report.table(rows, {title = "the kernels (" .. m.arch .. ")", columns = {"kernel", "found by", "regs", "shared B"}})
c:eq(m.planted_race.shared_bytes, 4 * BLOCK, "planted_race: one float of shared memory per thread")
if os.getenv("WARPLAB_SANITIZE") then
  c:that(table.concat(m.options, " "):find("-lineinfo", 1, true) ~= nil,
         "under --sanitize the kernels are compiled with -lineinfo", table.concat(m.options, " "))
end
if ex.offline(dev, "running the planted kernels") then return c:summary() end

-- Inputs: xs/ys for the block kernels (whole blocks), x/y of exactly n for the others.
local blocks = (p.n + BLOCK - 1) // BLOCK
local full = blocks * BLOCK
local xs <close> = cuda.array("f32", full):random{seed = p.seed}
local ys <close> = cuda.array("f32", full)
local x <close> = cuda.array("f32", p.n):random{seed = p.seed + 1}
local y <close> = cuda.array("f32", p.n)
local hs, h = xs:get(), x:get()

-- What each twin computes, on the CPU (1-based indices; floats added as the GPU does).
local f32 = function(v) return string.unpack("f", string.pack("f", v)) end
local want = {
  race = function(i) local b, t = (i - 1) // BLOCK, (i - 1) % BLOCK; return hs[b * BLOCK + (t + 32) % BLOCK + 1] end,
  barrier = function(i)  -- s[t] = 2x or x + 1 by half-warp; y[i] = s[t ^ 1] (the same half)
    local b, t = (i - 1) // BLOCK, (i - 1) % BLOCK
    local v = hs[b * BLOCK + (t ~ 1) + 1]
    return t % 32 < 16 and 2 * v or f32(v + 1)
  end,
  oob = function(i) return f32(h[i] + (i < p.n and h[i + 1] or 0.0)) end,
  uninit = function(i) return f32((i % 2 == 1 and h[i] or 0.0) + 1.0) end,
}
local function launch(name, bug)
  if bug == "race" or bug == "barrier" then
    m[name]:launch(blocks, BLOCK, xs, ys)
    return ys:get(), full
  elseif bug == "oob" then
    m[name]:launch(blocks, BLOCK, x, y, p.n)
    return y:get(), p.n
  end
  -- A scratch array of its own: one the twin has written is initialized memory.
  local scratch <close> = cuda.array("f32", p.n)
  m[name]:launch(blocks, BLOCK, x, scratch, y, p.n)
  return y:get(), p.n  -- read before scratch is freed
end
local function differ(got, count, bug)
  local d = 0
  for i = 1, count do
    local w = want[bug](i)
    if not (math.abs(got[i] - w) <= 1e-6 * math.abs(w)) then d = d + 1 end  -- NaN differs too
  end
  return d
end

local out = {}
for _, bug in ipairs{"race", "barrier", "oob", "uninit"} do
  local got, count = launch("clean_" .. bug, bug)
  local d = differ(got, count, bug)
  c:eq(d, 0, "clean_" .. bug .. ": every value as the CPU computes it")
  out[#out + 1] = {"clean_" .. bug, count, d}
end
report.table(out, {title = "the clean twins", columns = {"kernel", "values", "differ from the CPU"}})
c:summary()
if p.bug == "none" then
  print("\nno planted bug ran: every tool should report nothing.")
  return
end

-- The planted kernel last: its values are undefined (not checked). Under a tool it may be
-- stopped (memcheck ends a kernel at its first invalid access; the context is then
-- unusable), which is reported; in a plain run a fault is an error.
local name, under = "planted_" .. p.bug, os.getenv("WARPLAB_SANITIZE")
local ok, got, count = true, nil, nil
if under then ok, got, count = pcall(launch, name, p.bug) else got, count = launch(name, p.bug) end
if ok then
  print(string.format("\n%s ran: %d of %d values differ from the CPU's (undefined: not checked).",
                      name, differ(got, count, p.bug), count))
else
  print(string.format("\n%s did not finish: %s", name, got))
end
if under then
  print(string.format("%s ran under %s%s.", name, under, under == TOOL[p.bug]
                      and ": its table below names the kernel and the line" or " (its bug is " .. TOOL[p.bug] .. "'s to find)"))
else
  print(string.format("Nothing failed: seeing its bug needs a sanitizer:\n"
                      .. "  warplab run --sanitize %s examples/sanitize/planted.lua -p bug=%s", TOOL[p.bug], p.bug))
end
