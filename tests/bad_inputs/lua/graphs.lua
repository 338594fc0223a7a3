-- graphs.lua: cuda.graph, streams with priorities, events without timing, copies on a
-- stream and managed arrays offline, with hostile arguments: each is one sentence (what is
-- wrong with the argument first, then that a GPU is needed), never a crash; managed arrays
-- work in host memory. The same misuse on a live driver is tests/bad_inputs/graphs.cases.
local cases = require "support.cases"

local u = cuda.array("f32", 4, {managed = true})
local a = cuda.array("f32", 4)
local errs = {}
for i = 1, cases.nvalues do
  local v = cases.values[i]
  local w = "(values[" .. i .. "])"
  errs[#errs + 1] = {"cuda.graph" .. w, "", function() return cuda.graph(v) end}
  errs[#errs + 1] = {"cuda.stream{priority = v}" .. w, "", function() return cuda.stream{priority = v} end}
  errs[#errs + 1] = {"cuda.event{timing = v}" .. w, "", function() return cuda.event{timing = v} end}
  errs[#errs + 1] = {"a:prefetch(v)" .. w, "", function() return a:prefetch(v) end}
  errs[#errs + 1] = {"a:copy(u, {stream = v})" .. w, "", function() return a:copy(u, {stream = v or 0}) end}
  if type(v) ~= "string" then
    errs[#errs + 1] = {"u:advise(v)" .. w, "", function() return u:advise(v) end}
  end
end
cases.errors(errs)

cases.survives((function()
  local list = {}
  for i = 1, cases.nvalues do
    local v = cases.values[i]
    list[#list + 1] = {"u:prefetch(v)", function() return u:prefetch(v) end}
    list[#list + 1] = {"u:advise('accessed_by', v)", function() return u:advise("accessed_by", v) end}
    list[#list + 1] = {"cuda.array('f32', 4, {managed = v})", function() return cuda.array("f32", 4, {managed = v}) end}
  end
  return list
end)())

cases.errors{
  {"cuda.graph offline", "no CUDA device: cuda.graph needs a GPU (working from profile 'h100')", function() return cuda.graph(function() end) end},
  {"cuda.stream{priority} offline", "no CUDA device: cuda.stream needs a GPU", function() return cuda.stream{priority = -1} end},
  {"cuda.stream{priority = nan} offline", "no CUDA device: cuda.stream needs a GPU", function() return cuda.stream{priority = 0 / 0} end},
  {"cuda.stream{priority = 'x'}", "cuda.stream: priority must be an integer, got string", function() return cuda.stream{priority = "x"} end},
  {"cuda.stream{prio}", "cuda.stream: unknown option 'prio' (options: non_blocking, priority)", function() return cuda.stream{prio = 1} end},
  {"cuda.event{timing = nan}", "cuda.event: timing must be true or false, got number", function() return cuda.event{timing = 0 / 0} end},
  {"cuda.event offline", "no CUDA device: cuda.event needs a GPU", function() return cuda.event{timing = false} end},
  {"cuda.array{managed = nan}", "cuda.array: managed must be true or false, got number", function() return cuda.array("f32", 4, {managed = 0 / 0}) end},
  {"a:prefetch on a plain array", "a:prefetch needs a managed array", function() return a:prefetch(0) end},
  {"u:prefetch(nan)", 'a:prefetch: where must be a device index or "host", got nan', function() return u:prefetch(0 / 0) end},
  {"u:prefetch(-1)", 'a:prefetch: device -1 does not exist (valid: 0..0, or "host")', function() return u:prefetch(-1) end},
  {"u:prefetch(2^63)", "does not exist", function() return u:prefetch(2 ^ 63) end},
  {"u:prefetch('gpu')", 'a:prefetch: where must be a device index or "host", got "gpu"', function() return u:prefetch("gpu") end},
  {"u:advise('')", 'a:advise: unknown advice ""', function() return u:advise("") end},
  {"u:advise(nan)", "a:advise: the advice must be a name (read_mostly, preferred_location, accessed_by, or one of them with unset_ before it), got number", function() return u:advise(0 / 0) end},
  {"u:advise('accessed_by', nan)", 'a:advise: where must be a device index or "host", got nan', function() return u:advise("accessed_by", 0 / 0) end},
  {"a:copy(u, {stream = nan})", "stream must be a cuda.stream() or nil, got number", function() return a:copy(u, {stream = 0 / 0}) end},
  {"a:copy(u, 5)", "copy takes nothing or a table of options, got number", function() return a:copy(u, 5) end},
  {"a:copy(u, {bogus})", "copy: unknown option 'bogus' (options: stream)", function() return a:copy(u, {bogus = 1}) end},
}

cases.fine{
  {"managed arrays work offline, in host memory", function()
    local m = cuda.array("i32", 3, {managed = true}):iota(1)
    m[2] = 9
    cases.eq({m:get(), m.managed}, {{1, 9, 3}, true})
    m:prefetch("host"):prefetch(0):advise("read_mostly"):advise("preferred_location", "host")
    m:free()
    m:free()
  end},
  {"a copy with an empty options table is the synchronous one", function()
    cases.eq(a:copy(u:fill(2), {}):get(), {2, 2, 2, 2})
  end},
}
cases.run()
