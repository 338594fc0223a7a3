-- reentrancy.lua: Lua code that runs in the middle of a call (an options table's __index,
-- a launch table's, cuda.bench's function, a finalizer an allocation runs) and frees what
-- the call is using. The call reads every Lua value it needs before it takes the object,
-- so it raises the object's one sentence; or it holds the object (cuda.bench's stream),
-- which then goes when the call returns. Never a crash, never a write into freed memory
-- (the sanitizer build runs this file too). Offline on the h100 profile; with the stand-in
-- driver (tests/cli/reentrancy_fake_driver.sh) the cases with streams, events, graphs and
-- pinned memory run too. And the names of calls Lua cannot name ("bad argument #2 to '?'").
local cases = require "support.cases"

local live = cuda.device().live
local m = assert(cuda.compile{source = "__global__ void k(float* x, int n) { x[0] = n; }"})
local k = m.k

-- An options table whose every read runs `f` first.
local function trap(f, fields)
  return setmetatable({}, {__index = function(_, key)
    f()
    return fields and fields[key]
  end})
end
local function dev(n) return cuda.array("f32", n or 4) end
local function host(n, pinned) return cuda.host_array("f32", n or 4, {pinned = pinned or false}) end

local errs = {
  {"a:copy(b, opts whose __index frees a)", "attempt to use a freed array", function()
    local a, b = dev(), dev()
    return a:copy(b, trap(function() a:free() end))
  end},
  {"a:copy(b, opts whose __index frees b)", "attempt to use a freed array", function()
    local a, b = dev(), dev()
    return a:copy(b, trap(function() b:free() end))
  end},
  {"a:random(opts whose __index frees a)", "attempt to use a freed array", function()
    local a = dev()
    return a:random(trap(function() a:free() end))
  end},
  {"h:random(opts whose __index frees h), pageable", "attempt to use a freed host array", function()
    local h = host()
    return h:random(trap(function() h:free() end))
  end},
  {"h:copy(d, opts whose __index frees h), pageable", "attempt to use a freed host array", function()
    local h, d = host(), dev()
    return h:copy(d, trap(function() h:free() end))
  end},
  {"h:copy(d, opts whose __index frees d), pageable", "attempt to use a freed array", function()
    local h, d = host(), dev()
    return h:copy(d, trap(function() d:free() end))
  end},
  {"d:copy(h, opts whose __index frees h), pageable", "attempt to use a freed host array", function()
    local h, d = host(), dev()
    return d:copy(h, trap(function() h:free() end))
  end},
  {"a:prefetch(0, opts whose __index frees a)", "attempt to use a freed array", function()
    local a = cuda.array("f32", 4, {managed = true})
    return a:prefetch(0, trap(function() a:free() end))
  end},
  {"a host view copied with opts whose __index frees its parent",
   "attempt to use a freed host array: the host array this view shows was freed", function()
    local h = host(8)
    local v = h:view(2, 4)
    return v:copy(dev(), trap(function() h:free() end))
  end},
  {"a:prefetch of a view whose parent was freed", "attempt to use a freed array: the array this view shows was freed",
   function()
    local a = cuda.array("f32", 8, {managed = true})
    local v = a:view(1, 4)
    a:free()
    return v:prefetch(0)
  end},
  {"v:prefetch(0, opts whose __index frees v's parent)", "the array this view shows was freed", function()
    local a = cuda.array("f32", 8, {managed = true})
    local v = a:view(1, 4)
    return v:prefetch(0, trap(function() a:free() end))
  end},
  {"a launch table whose __index frees an argument", "argument 1 (float*) of k: attempt to use a freed array",
   function()
    local a = dev()
    return k(setmetatable({grid = 1, block = 1}, {__index = function(_, key)
      if key == "args" then a:free() return {a, 1} end
    end}))
  end},
  {"k:bench with a table whose reps frees the argument", "argument 1 (float*) of k: attempt to use a freed array",
   function()
    local a = dev()
    return k:bench(setmetatable({grid = 1, block = 1, args = {a, 1}}, {__index = function(_, key)
      if key == "reps" then a:free() end
    end}))
  end},
  {"cuda.lines(m) of a freed module", "cuda.lines: attempt to use a freed module", function()
    local m2 = assert(cuda.compile{source = "__global__ void g(int* p) { p[0] = 1; }"})
    m2:free()
    return cuda.lines(m2)
  end},
}

-- A call Lua cannot name (called by pcall, a coroutine, a tail call) is named all the same.
errs[#errs + 1] = {"pcall(k.counters, k, 5)", "bad argument #2 to 'k:counters' (table expected, got number)",
                   function() error(select(2, pcall(k.counters, k, 5))) end}
errs[#errs + 1] = {"coroutine.wrap(k.occupancy)", "bad argument #2 to 'k:occupancy'",
                   function() return coroutine.wrap(k.occupancy)(k, "x") end}
errs[#errs + 1] = {"pcall(h.view, h, 'x')", "bad argument #2 to 'h:view' (number expected, got string)",
                   function() local h = host() error(select(2, pcall(h.view, h, "x"))) end}
errs[#errs + 1] = {"cuda.array through pcall", "bad argument #1 to 'cuda.array' (unknown element type 'zz'",
                   function() error(select(2, pcall(cuda.array, "zz", 3))) end}
errs[#errs + 1] = {"warplab.write_file through pcall", "bad argument #1 to 'warplab.write_file' (string expected, got table)",
                   function() error(select(2, pcall(warplab.write_file, {}, ""))) end}

if live then
  local function stream_trap(key_to_free, s)
    return setmetatable({grid = 1, block = 1, stream = s, args = {dev(), 1}}, {__index = function(_, key)
      if key == key_to_free then s:free() end
    end})
  end
  for _, key in ipairs{"cooperative", "cluster"} do
    errs[#errs + 1] = {"k(t) whose " .. key .. " frees t.stream", "attempt to use a destroyed stream", function()
      local s = cuda.stream()
      local t = stream_trap(key, s)
      rawset(t, "stream", s)
      return k(t)
    end}
    errs[#errs + 1] = {"k:bench(t) whose " .. key .. " frees t.stream", "attempt to use a destroyed stream", function()
      local s = cuda.stream()
      local t = stream_trap(key, s)
      rawset(t, "stream", s)
      return k:bench(t)
    end}
  end
  errs[#errs + 1] = {"k:bench(t) whose warmup frees t.stream", "attempt to use a destroyed stream", function()
    local s = cuda.stream()
    local t = stream_trap("warmup", s)
    rawset(t, "stream", s)
    return k:bench(t)
  end}
  errs[#errs + 1] = {"a:copy(b, {stream}) whose stream is freed by the table", "attempt to use a destroyed stream",
                     function()
    local s = cuda.stream()
    return dev():copy(dev(), trap(function() s:free() end, {stream = s}))
  end}
  errs[#errs + 1] = {"h:copy(d, opts whose __index frees h), pinned", "attempt to use a freed host array", function()
    local h, d = host(4, true), dev()
    return h:copy(d, trap(function() h:free() end))
  end}
  errs[#errs + 1] = {"h:random(opts whose __index frees h), pinned", "attempt to use a freed host array", function()
    local h = host(4, true)
    return h:random(trap(function() h:free() end))
  end}
  errs[#errs + 1] = {"g:update(fn) whose fn frees g", "g:update: the graph was freed while its function ran", function()
    local g = cuda.graph(function() end)
    return g:update(function() g:free() end)
  end}
  errs[#errs + 1] = {"pcall(g.update, g, 5)", "bad argument #2 to 'g:update' (function expected, got number)", function()
    local g = cuda.graph(function() end)
    error(select(2, pcall(g.update, g, 5)))
  end}
  errs[#errs + 1] = {"pcall(e.elapsed, e, 5)", "bad argument #2 to 'e:elapsed' (warplab.event expected, got number)",
                     function()
    local e = cuda.event()
    error(select(2, pcall(e.elapsed, e, 5)))
  end}
end
cases.errors(errs)

local fine = {
  {"a.freed is true after a free inside a launch table's __index", function()
    local a = dev()
    pcall(k, setmetatable({grid = 1, block = 1}, {__index = function(_, key)
      if key == "args" then a:free() return {a, 1} end
    end}))
    cases.eq(a.freed, true)
  end},
  {"finalizers that free arrays while the API allocates", function()
    -- Every allocation may run finalizers (the collector is made to step at each one):
    -- each frees an array some call below is using. Errors are sentences; nothing crashes.
    collectgarbage("incremental", 1, 1000)  -- pause 1%, step multiplier x10: finalizers run often
    for i = 1, 300 do
      local a, h = dev(16), host(16)
      local v = h:view(2, 8)
      for _ = 1, 3 do
        setmetatable({}, {__gc = function() a:free(); h:free() end})
      end
      pcall(function() return a:get() end)
      pcall(function() return h:get() end)
      pcall(function() return v:get() end)
      pcall(function() return h:random{seed = i} end)
      pcall(function() return a:view(1, 2):get() end)
      pcall(function() return tostring(a) .. tostring(h) end)
      pcall(function() return m.k, m.kernels, m.ptx end)
    end
    collectgarbage("incremental", 200, 100)
    collectgarbage()
  end},
  {"k:occupancy(opts whose __index frees k's module): the kernel keeps its module", function()
    local m2 = assert(cuda.compile{source = "__global__ void g(int* p) { p[0] = 1; }"})
    local g = m2.g
    local occ = g:occupancy(trap(function() m2:free() end, {block = 128}))
    cases.eq(math.type(occ.blocks_per_sm), "integer")
    cases.eq(tostring(m2), "cuda.module (freed)")
    cases.eq(math.type(g:occupancy{block = 64}.blocks_per_sm), "integer")
  end},
  {"a tensor map freed by a finalizer while its fields are read: each list is whole", function()
    -- Reading t.dims makes a table, an allocation that may run the finalizer, which frees
    -- the map: the field is read from the map the call holds (the sanitizer build saw a
    -- read of freed memory here), and the next read says the map was freed.
    collectgarbage("incremental", 1, 1000)
    local arr, t = cuda.array("f32", 1024), nil
    local gc = {__gc = function() if t then t:free() end end}
    local function fields() return t.dims, t.box, t.strides end
    local freed = 0
    for _ = 1, 200 do
      t = cuda.tensor_map(arr, {dims = {32, 32}, box = {16, 4}})
      setmetatable({}, gc)
      for _ = 1, 20 do
        local ok, dims, box, strides = pcall(fields)
        if not ok then
          assert(dims:find("attempt to use a freed tensor map", 1, true), dims)
          freed = freed + 1
          break
        end
        cases.eq({dims, box, strides}, {{32, 32}, {16, 4}, {128}})
      end
    end
    collectgarbage("incremental", 200, 100)
    collectgarbage()
    assert(freed > 0, "no finalizer freed a map while the loop ran")
  end},
  {"a module freed by a finalizer while it is read", function()
    collectgarbage("incremental", 1, 1000)
    for _ = 1, 100 do
      local m2 = assert(cuda.compile{source = "__global__ void g(int* p) { p[0] = 1; }"})
      setmetatable({}, {__gc = function() m2:free() end})
      pcall(function() return m2.g, m2.kernels, m2:kernel("g"), tostring(m2) end)
    end
    collectgarbage("incremental", 200, 100)
    collectgarbage()
  end},
}
if live then
  fine[#fine + 1] = {"k(t) and k:bench(t) whose __index frees k's module: the kernel keeps its module and runs",
                     function()
    local m2 = assert(cuda.compile{source = "__global__ void g(int* p) { p[0] += 1; }"})
    local g, p = m2.g, cuda.array("i32", 1):zero()
    g(setmetatable({grid = 1, block = 1, args = {p}}, {__index = function() m2:free() end}))
    cases.eq(tostring(m2), "cuda.module (freed)")
    local r = g:bench(setmetatable({grid = 1, block = 1, args = {p}, warmup = 0, reps = 2},
                                   {__index = function() m2:free() end}))
    cases.eq(r.n, 2)
    -- 1 launch, then k:bench's one untimed launch (warmup = 0 still loads the code) and 2
    -- reps (the stand-in driver runs no kernel code: there the value stays 0)
    if not tostring(cuda.device()):find("fake driver", 1, true) then cases.eq(p:get()[1], 4) end
  end}
  fine[#fine + 1] = {"cuda.bench whose function frees its stream: timed to the end, then the stream goes", function()
    local s = cuda.stream()
    local r = cuda.bench(function() s:free() end, {stream = s, reps = 2, warmup = 0})
    cases.eq(r.n, 2)
    cases.eq(tostring(s), "cuda.stream (destroyed)")
    cases.checkerror("attempt to use a destroyed stream", s.query, s)
  end}
  fine[#fine + 1] = {"cuda.bench whose function frees its stream and makes new ones", function()
    local s, made = cuda.stream(), {}
    local r = cuda.bench(function()
      s:free()
      for _ = 1, 3 do made[#made + 1] = cuda.stream() end
    end, {stream = s, reps = 3, warmup = 1})
    cases.eq({r.n, #made}, {3, 12})
    for _, x in ipairs(made) do cases.eq(x:query(), true) end
  end}
  fine[#fine + 1] = {"a stream freed inside cuda.bench reads as destroyed at once", function()
    local s = cuda.stream()
    local seen
    cuda.bench(function()
      s:free()
      seen = select(2, pcall(s.query, s))
    end, {stream = s, reps = 1, warmup = 0})
    assert(seen:find("attempt to use a destroyed stream", 1, true), seen)
  end}
  fine[#fine + 1] = {"cuda.bench whose function raises after freeing its stream", function()
    local s = cuda.stream()
    cases.checkerror("boom", cuda.bench, function() s:free() error("boom") end, {stream = s, reps = 1, warmup = 0})
    cases.eq(tostring(s), "cuda.stream (destroyed)")
  end}
end
cases.fine(fine)
cases.run()
