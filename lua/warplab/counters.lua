-- warplab/counters.lua: hardware counters as an experiment's second witness, beside its
-- timing: whether this run can count them (a GPU and NVIDIA's CUPTI), what the example
-- would check them against when it cannot (printed, as offline runs print predictions),
-- and the rows of several launches counted in one session, one row per launch.
-- Depends on: the `cuda` global (cuda.counters, cuda.counters_available), warplab.util.
local util = require "warplab.util"
local counters = {}

-- counters.witness(claims) -> true when this run can count hardware counters; otherwise
-- prints the claims (a list of lines) the counters would be checked against and why they
-- are not counted here, and returns false.
function counters.witness(claims)
  if type(claims) ~= "table" then
    error("counters.witness: expected a list of claims (strings), got " .. type(claims), 2)
  end
  local ok, why = cuda.counters_available()
  if ok then return true end
  print("\nhardware counters would check, as a second witness:")
  for _, claim in ipairs(claims) do print("  " .. tostring(claim)) end
  print("not counted here: " .. why)
  return false
end

-- counters.each(list, launch, names) -> rows: launch(item, i) for each item of list, all
-- counted in one cuda.counters session (one setup for all), rows[i] the counters of item
-- i's launch. Each call must launch one kernel: another count raises, naming both.
function counters.each(list, launch, names)
  if type(list) ~= "table" or type(launch) ~= "function" then
    error("counters.each: expected a list, a function launching one kernel per item, and counter names", 2)
  end
  local rows = cuda.counters(function()
    for i, item in ipairs(list) do launch(item, i) end
  end, names)
  if #rows ~= #list then
    error(string.format("counters.each: %d items but the GPU counted %d launches%s", #list, #rows,
                        rows.note and (": " .. rows.note) or ""), 2)
  end
  return rows
end

return util.api("counters", counters)
