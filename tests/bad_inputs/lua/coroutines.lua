-- coroutines.lua: coroutines inside the calls that run Lua code in their middle: an options
-- or launch table's __index, a key's or an argument's __tostring, a list's __len, the
-- function given to cuda.bench, cuda.graph, g:update or cuda.counters. A yield there
-- crosses the C call and is one sentence, "attempt to yield across a C-call boundary",
-- never a crash; the call is left as if it had raised (a capture ended, a held stream
-- destroyed), and the state works after it. A coroutine run to its end inside such a
-- callback, and launches between the yields of a coroutine, are fine. Offline on the h100
-- profile; with the stand-in driver (tests/cli/bad_inputs_reentrancy.sh) the cases with
-- streams, graphs, cuda.bench and counters run too.
local cases = require "support.cases"

local live = cuda.device().live
local m = assert(cuda.compile{source = "__global__ void k(float* x, int n) { if (x) x[0] = n; }"})
local k = m.k
local YIELD = "attempt to yield across a C-call boundary"

-- `f` called inside a coroutine (coroutine.wrap: its error goes on to the caller).
local function in_coroutine(f) return function() return coroutine.wrap(f)() end end
-- A table whose every read yields (returning fields[key] once resumed).
local function yielding(fields)
  return setmetatable({}, {__index = function(_, key)
    coroutine.yield()
    return fields and fields[key]
  end})
end
local yields_on_tostring = setmetatable({}, {__tostring = function()
  coroutine.yield()
  return "x"
end})
local function arr(n) return cuda.array("f32", n or 4) end

local errs = {
  {"k{...} whose launch table yields", YIELD, in_coroutine(function()
    return k(yielding{grid = 1, block = 1})
  end)},
  {"k:check{...} whose table yields", YIELD, in_coroutine(function()
    return k:check(yielding{grid = 1, block = 1})
  end)},
  {"k:occupancy(opts that yield)", YIELD, in_coroutine(function() return k:occupancy(yielding{block = 128}) end)},
  {"a:copy(b, opts that yield)", YIELD, in_coroutine(function() return arr():copy(arr(), yielding()) end)},
  {"a:random(opts that yield)", YIELD, in_coroutine(function() return arr():random(yielding()) end)},
  {"cuda.array(t, n, opts that yield)", YIELD, in_coroutine(function() return cuda.array("f32", 4, yielding()) end)},
  {"cuda.compile(a table that yields)", YIELD, in_coroutine(function()
    return cuda.compile(yielding{source = "__global__ void z() {}"})
  end)},
  {"cuda.tensor_map(a, opts that yield)", YIELD, in_coroutine(function()
    return cuda.tensor_map(arr(64), yielding{box = {16}})
  end)},
  {"k:launch with an argument whose __tostring yields", YIELD, in_coroutine(function()
    return k:launch(1, 1, arr(1), yields_on_tostring)
  end)},
  {"k{...} with an argument whose __tostring yields", YIELD, in_coroutine(function()
    return k{grid = 1, block = 1, args = {arr(1), yields_on_tostring}}
  end)},
  {"an options key whose __tostring yields", YIELD, in_coroutine(function()
    return cuda.array("f32", 4, {[yields_on_tostring] = 1})
  end)},
  {"cuda.compile with a field key whose __tostring yields", YIELD, in_coroutine(function()
    return cuda.compile{[yields_on_tostring] = 1}
  end)},
  {"cuda.counters with a list whose __len yields", YIELD, in_coroutine(function()
    return cuda.counters(function() end, setmetatable({}, {__len = function() coroutine.yield() end}))
  end)},
  {"a hook that yields inside a coroutine", YIELD, in_coroutine(function()
    debug.sethook(function() coroutine.yield() end, "", 1)
    local x = 0
    for i = 1, 10 do x = x + i end
    return x
  end)},
  {"coroutines nested past the C stack", "C stack overflow", function()
    local function nest(n) return n == 0 and 0 or coroutine.wrap(function() return nest(n - 1) + 1 end)() end
    return nest(400)
  end},
}

local fine = {
  {"a coroutine run to its end inside a launch table's __index", function()
    local fields = {grid = 1, block = 1}
    local ok = k:check(setmetatable({}, {__index = function(_, key)
      return coroutine.wrap(function() coroutine.yield(fields[key]) end)()
    end}))
    cases.eq(ok, true)
  end},
  {"the state works after the yields above", function()
    cases.eq(k:check{grid = 1, block = 1, args = {arr(1), 1}}, true)
    cases.eq(math.type(k:occupancy{block = 128}.blocks_per_sm), "integer")
    cases.eq(#arr(4):random{seed = 1}:get(), 4)
  end},
}

if live then
  errs[#errs + 1] = {"cuda.bench whose function yields", YIELD, in_coroutine(function()
    return cuda.bench(function() coroutine.yield() end, {reps = 1, warmup = 0})
  end)}
  errs[#errs + 1] = {"k:bench whose table yields", YIELD, in_coroutine(function()
    return k:bench(yielding{grid = 1, block = 1, args = {arr(1), 1}})
  end)}
  errs[#errs + 1] = {"cuda.stream(opts that yield)", YIELD, in_coroutine(function() return cuda.stream(yielding()) end)}
  errs[#errs + 1] = {"cuda.graph whose function yields", YIELD, in_coroutine(function()
    return cuda.graph(function() coroutine.yield() end)
  end)}
  errs[#errs + 1] = {"g:update whose function yields", YIELD, in_coroutine(function()
    local a = arr(1)
    local g = cuda.graph(function() k:launch(1, 1, a, 1) end)
    return g:update(function() coroutine.yield() end)
  end)}
  fine[#fine + 1] = {"cuda.bench whose function frees its stream, then yields: the stream goes", function()
    local s = cuda.stream()
    cases.checkerror(YIELD, in_coroutine(function()
      return cuda.bench(function() s:free() coroutine.yield() end, {stream = s, reps = 2, warmup = 0})
    end))
    cases.eq(tostring(s), "cuda.stream (destroyed)")
  end}
  fine[#fine + 1] = {"after a capture whose function yielded, captures and replays work", function()
    pcall(in_coroutine(function() return cuda.graph(function() coroutine.yield() end) end))
    local a = arr(1)
    local g = cuda.graph(function(s) k{grid = 1, block = 1, args = {a, 1}, stream = s} end)
    cases.eq(g.nodes, 1)
    g:launch()
    cuda.synchronize()
    cases.eq(g:update(function() k:launch(1, 1, a, 2) end), "updated")
  end}
  fine[#fine + 1] = {"launches between the yields of a coroutine", function()
    local a = arr(1)
    local co = coroutine.wrap(function()
      for i = 1, 3 do
        k:launch(1, 1, a, i)
        coroutine.yield(i)
      end
      return "done"
    end)
    cases.eq({co(), co(), co(), co()}, {1, 2, 3, "done"})
    cuda.synchronize()
  end}
  if cuda.counters_available() then
    errs[#errs + 1] = {"cuda.counters whose function yields", YIELD, in_coroutine(function()
      return cuda.counters(function() coroutine.yield() end, {"duration"})
    end)}
    fine[#fine + 1] = {"counting works after a counted function yielded", function()
      pcall(in_coroutine(function() return cuda.counters(function() coroutine.yield() end, {"duration"}) end))
      cases.eq(#cuda.counters(function() k:launch(1, 1, arr(1), 1) end, {"duration"}), 1)
    end}
  end
end
cases.errors(errs)
cases.fine(fine)
cases.run()
