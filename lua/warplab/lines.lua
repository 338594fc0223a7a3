-- warplab/lines.lua: per-line counts as an experiment's witness at the line its claim is
-- about: whether this run can collect them (a GPU, CUPTI, no collection already running),
-- what the example would check at which line when it cannot (printed, as offline runs
-- print predictions), each item's launch collected on its own, and a kernel's row found by
-- the text of its source line (line numbers move when a kernel file is edited; the text
-- the claim is about does not).
-- Depends on: the `cuda` global (cuda.lines, cuda.lines_available), warplab.util.
local util = require "warplab.util"
local lines = {}

-- lines.witness(claims) -> true when this run can collect per-line counts; otherwise
-- prints the claims (a list of lines) the lines would be checked against and why they are
-- not collected here, and returns false.
function lines.witness(claims)
  if type(claims) ~= "table" then
    error("lines.witness: expected a list of claims (strings), got " .. type(claims), 2)
  end
  local ok, why = cuda.lines_available()
  if ok then return true end
  print("\nper-line counts would check, at the line:")
  for _, claim in ipairs(claims) do print("  " .. tostring(claim)) end
  print("not collected here: " .. why)
  return false
end

-- lines.each(list, launch [, columns]) -> rows: launch(item, i) for each item, each in a
-- cuda.lines collection of its own, rows[i] the rows of item i's launches.
function lines.each(list, launch, columns)
  if type(list) ~= "table" or type(launch) ~= "function" then
    error("lines.each: expected a list and a function launching each item's kernels", 2)
  end
  local out = {}
  for i, item in ipairs(list) do
    out[i] = cuda.lines(function() launch(item, i) end, columns)
  end
  return out
end

-- lines.find(rows, text [, kernel]) -> the first row (of `kernel`, when given) whose source
-- text holds `text` (plain, not a pattern), or nil.
function lines.find(rows, text, kernel)
  if type(rows) ~= "table" or type(text) ~= "string" then
    error("lines.find: expected the rows of cuda.lines and a piece of a source line's text", 2)
  end
  for _, r in ipairs(rows) do
    if (kernel == nil or r.kernel == kernel) and r.text and r.text:find(text, 1, true) then return r end
  end
  return nil
end

-- lines.most(rows, field [, except]) -> the largest row[field] over the rows but `except`
-- (the line a claim is about), or nil when none has it: what the lines a claim says stay
-- clean reach at worst.
function lines.most(rows, field, except)
  if type(rows) ~= "table" or type(field) ~= "string" then
    error("lines.most: expected the rows of cuda.lines and a field name (\"shared_way\")", 2)
  end
  local most
  for _, r in ipairs(rows) do
    local v = r ~= except and r[field]
    if type(v) == "number" and (most == nil or v > most) then most = v end
  end
  return most
end

return util.api("lines", lines)
