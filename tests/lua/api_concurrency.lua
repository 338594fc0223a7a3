-- api_concurrency.lua: streams with priorities, events without timing, asynchronous
-- copies, CUDA graphs and managed arrays from Lua. Offline (a profile): every new name
-- exists and checks its arguments, what needs a GPU says so in one sentence naming the
-- call, managed arrays are host memory read in place. Live (a GPU, and the stand-in
-- driver of tests/cli/concurrency_fake_driver.sh, which records but runs no kernel):
-- captures, replays, updates, refusals during a capture, copies on streams, managed
-- memory; the values kernels write are checked only on a GPU.
local t = require "warplab.test"

local dev = cuda.device()
local live = dev.live
local fake = tostring(dev):find("fake driver", 1, true) ~= nil
local m = assert(cuda.compile{source = [[
__global__ void add(int* x, int v) { x[threadIdx.x] += v; }
__global__ void twice(int* x) { x[threadIdx.x] *= 2; }
]]})

t.case("the new names exist", function()
  t.eq(type(cuda.graph), "function")
  local u = cuda.array("f32", 4, {managed = true})
  t.eq({type(u.prefetch), type(u.advise), u.managed, cuda.array("f32", 4).managed}, {"function", "function", true, false})
  t.eq(tostring(u), "cuda.array(f32, 4) managed")
end)

t.case("arguments are checked before anything needs a GPU", function()
  t.checkerror("function expected", cuda.graph)
  t.checkerror("cuda.stream: unknown option 'prio' (options: non_blocking, priority)", cuda.stream, {prio = 1})
  t.checkerror("cuda.stream: priority must be an integer, got string", cuda.stream, {priority = "high"})
  t.checkerror("cuda.stream: non_blocking must be true or false, got number", cuda.stream, {non_blocking = 1})
  t.checkerror("cuda.stream takes nothing or a table of options, got number", cuda.stream, 5)
  t.checkerror("cuda.event: unknown option 'timed' (options: timing)", cuda.event, {timed = false})
  t.checkerror("cuda.event: timing must be true or false, got number", cuda.event, {timing = 0 / 0})
  t.checkerror("cuda.array: unknown option 'manged' (options: managed)", cuda.array, "f32", 4, {manged = true})
  t.checkerror("cuda.array: managed must be true or false, got string", cuda.array, "f32", 4, {managed = "yes"})
  local a, u = cuda.array("f32", 4), cuda.array("f32", 4, {managed = true})
  t.checkerror("a:prefetch needs a managed array: make it with cuda.array(type, n, {managed = true})", a.prefetch, a, 0)
  t.checkerror("a:advise needs a managed array", a.advise, a, "read_mostly")
  t.checkerror('a:prefetch: where must be a device index or "host", got nan', u.prefetch, u, 0 / 0)
  t.checkerror('a:prefetch: where must be a device index or "host", got "device"', u.prefetch, u, "device")
  t.checkerror('a:prefetch: where must be a device index or "host", got no value', u.prefetch, u)
  t.checkerror("a:prefetch: device 9 does not exist", u.prefetch, u, 9)
  t.checkerror("a:prefetch: unknown option 'strem' (options: stream)", u.prefetch, u, 0, {strem = 1})
  t.checkerror('a:advise: unknown advice "fast" (read_mostly, preferred_location, accessed_by', u.advise, u, "fast")
  t.checkerror('a:advise: where must be a device index or "host", got inf', u.advise, u, "accessed_by", math.huge)
  t.checkerror("copy: unknown option 'sream' (options: stream)", a.copy, a, u, {sream = 1})
  t.checkerror("stream must be a cuda.stream() or nil, got number", a.copy, a, u, {stream = 1})
end)

t.case("managed arrays: read and written on the host in place", function()
  local u = cuda.array("i32", 6, {managed = true}):iota(1)
  t.eq(u:get(), {1, 2, 3, 4, 5, 6})
  u[2] = 20
  u:set({30, 40}, 3)
  t.eq({u[1], u[2], u[3], u[4], #u}, {1, 20, 30, 40, 6})
  t.eq(u:view(5, 2):fill(7):get(), {7, 7})
  u:prefetch("host"):prefetch(0):advise("read_mostly"):advise("preferred_location"):advise("accessed_by", 0)
  u:advise("unset_accessed_by", 0):advise("unset_preferred_location"):advise("unset_read_mostly")
  t.eq(u:get(), {1, 20, 30, 40, 7, 7})  -- prefetches and advice move pages, never values
  local plain = cuda.array("i32", 6):copy(u)
  t.eq(plain:get(), u:get())
end)

if not live then
  t.case("offline, what needs a GPU says so", function()
    local why = "needs a GPU (working from profile"
    t.checkerror("no CUDA device: cuda.graph " .. why, cuda.graph, function() error("fn must not run") end)
    t.checkerror("no CUDA device: cuda.stream " .. why, cuda.stream, {priority = -1})
    t.checkerror("no CUDA device: cuda.stream " .. why, cuda.stream, {priority = 0 / 0})
    t.checkerror("no CUDA device: cuda.event " .. why, cuda.event, {timing = false})
  end)
  t.run()
  return
end

local x = cuda.array("i32", 32):zero()

t.case("a graph records without running, replays, updates, and says why it could not in place", function()
  local g <close> = cuda.graph(function(s)
    assert(tostring(s):find("non%-blocking"), tostring(s))
    m.add:launch(1, 32, x, 1)
    m.twice{grid = 1, block = 32, stream = s, args = {x}}
  end)
  t.eq({g.nodes, g.freed, x[1]}, {2, false, 0})
  assert(tostring(g):find("^cuda.graph %(2 nodes, captured by cuda.graph at .*api_concurrency.lua:%d+%)$"), tostring(g))
  g:launch()
  g:launch(cuda.stream())
  cuda.synchronize()
  if not fake then t.eq(x[1], 6) end  -- (0 + 1) * 2, then (2 + 1) * 2
  t.eq(g:update(function() m.add:launch(1, 32, x, 5) m.twice:launch(1, 32, x) end), "updated")
  t.eq({g:update(function() m.add:launch(1, 32, x, 1) end)}, {"reinstantiated", "the topology changed (2 nodes -> 1)"})
  x:zero()
  g:launch()
  cuda.synchronize()
  if not fake then t.eq(x[1], 1) end
  g:free()
  t.eq(g.freed, true)
  t.checkerror("attempt to use a freed graph", g.launch, g)
  t.checkerror("attempt to use a freed graph", function() return g.nodes end)
end)

t.case("during a capture, what would run now is refused with one sentence", function()
  local line = debug.getinfo(1, "l").currentline + 2
  local ok, msg = pcall(function()
    cuda.graph(function() cuda.synchronize() end)
  end)
  t.eq(ok, false)
  assert(msg:find("api_concurrency.lua:" .. line .. ": cuda.synchronize() cannot run during the capture of cuda.graph at ", 1, true), msg)
  assert(msg:find("api_concurrency.lua:" .. line .. ": a capture records work without running it", 1, true), msg)
  for what, fn in pairs{["a[i]"] = function() return x[1] end, ["a:get()"] = function() x:get() end,
                        ["cuda.array"] = function() cuda.array("f32", 1) end,
                        ["k:bench"] = function() m.twice:bench{grid = 1, block = 32, args = {x}} end} do
    local ok2, msg2 = pcall(cuda.graph, fn)
    assert(not ok2 and msg2:find(what .. " cannot run during the capture", 1, true), what .. ": " .. tostring(msg2))
  end
  local g = cuda.graph(function() m.twice:launch(1, 32, x) end)  -- the capture state is clean again
  t.eq(g.nodes, 1)
end)

t.case("a graph keeps its arrays alive, and refuses a replay after one was freed", function()
  local g
  do
    local y = cuda.array("i32", 32)
    g = cuda.graph(function() m.add:launch(1, 32, y, 1) end)
  end
  collectgarbage()
  collectgarbage()
  g:launch()  -- y is still there
  local z = cuda.array("i32", 32)
  local g2 = cuda.graph(function() m.add:launch(1, 32, z, 1) end)
  z:free()
  t.checkerror("g:launch: the graph captured by cuda.graph at", g2.launch, g2)
  t.checkerror("uses an array i32[32] that was freed", g2.launch, g2)
  cuda.synchronize()
end)

t.case("streams: priority, wait, query; events without timing", function()
  local s = cuda.stream{priority = 0, non_blocking = true}
  t.eq({s.priority, s.non_blocking}, {0, true})
  assert(tostring(s):find("^cuda.stream %d+ %(priority 0, non%-blocking%)$"), tostring(s))
  local e = cuda.event{timing = false}
  t.eq({e.timing, cuda.event().timing, tostring(e)}, {false, true, "cuda.event (no timing)"})
  m.add{grid = 1, block = 32, stream = s, args = {x, 1}}
  e:record(s)
  local b = cuda.stream{non_blocking = true}
  t.eq(b:wait(e), b)
  b:synchronize()
  t.eq({e:query(), s:query()}, {true, true})
  t.checkerror("an event made without timing cannot be timed", e.elapsed, e, e)
  local msg = t.checkerror("is outside this device's range", cuda.stream, {priority = 1000})
  assert(msg:find("(highest) to", 1, true), msg)
  s:free()
  t.eq(tostring(s), "cuda.stream (destroyed)")
end)

t.case("copies on a stream return at once and run in its order", function()
  local s = cuda.stream{non_blocking = true}
  local h = cuda.host_array("i32", 32):iota(1)
  local d = cuda.array("i32", 32)
  t.eq(d:copy(h, {stream = s}), d)
  local back = cuda.host_array("i32", 32)
  back:copy(d, {stream = s})
  s:synchronize()
  t.eq(back:get(), h:get())
  t.checkerror("needs pinned host memory", d.copy, d, cuda.host_array("i32", 32, {pinned = false}), {stream = s})
end)

t.run()
