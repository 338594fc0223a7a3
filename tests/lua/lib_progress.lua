-- lib_progress.lua: warplab.progress: silent unless enabled (host's warplab_tty_err),
-- the exact bar text, redraws only on a new percentage, clamping, erasing on done and
-- on <close>, and argument errors.
-- Depends on: warplab.progress, warplab.test.
local t = require "warplab.test"
local progress = require "warplab.progress"

-- A stand-in for io.stderr that records what is written.
local function sink()
  local s = {text = "", writes = 0}
  function s:write(...)
    self.text = self.text .. table.concat({...})
    self.writes = self.writes + 1
    return self
  end
  function s:flush() end
  return s
end

t.case("silent when stderr is not a terminal", function()
  local saved = rawget(_G, "warplab_tty_err")
  rawset(_G, "warplab_tty_err", nil)
  local out = sink()
  local p = progress.new(3, "sweep", {out = out})
  p:step(); p:step(); p:step(); p:done()
  rawset(_G, "warplab_tty_err", true)
  local q = progress.new(1, "on", {out = sink()})
  rawset(_G, "warplab_tty_err", saved)
  t.eq(out.text, "")
  t.eq(q.enabled, true, "warplab_tty_err = true turns it on")
end)

t.case("the bar: label, filled and empty cells, count and percentage", function()
  local out = sink()
  local p = progress.new(4, "blocks", {out = out, enabled = true, width = 8})
  t.eq(out.text, "\rblocks [--------] 0/4   0%")
  p:step()
  t.eq(out.text:match("[^\r]*$"), "blocks [##------] 1/4  25%")
  p:step(3)
  t.eq(out.text:match("[^\r]*$"), "blocks [########] 4/4 100%")
end)

t.case("no label, and steps past the total are clamped", function()
  local out = sink()
  local p = progress.new(2, nil, {out = out, enabled = true, width = 4})
  p:step(5)
  t.eq(p.count, 2)
  t.eq(out.text:match("[^\r]*$"), "[####] 2/2 100%")
end)

t.case("redraws only when the percentage changes", function()
  local out = sink()
  local p = progress.new(1000, "x", {out = out, enabled = true})
  for _ = 1, 1000 do p:step() end
  t.eq(out.writes, 101) -- 0 %, 1 %, ..., 100 %
end)

t.case("done erases the line once; <close> calls it", function()
  local out = sink()
  local p = progress.new(2, "ab", {out = out, enabled = true, width = 2})
  p:step()
  local before = out.text
  p:done()
  p:done()
  local drawn = #"ab [#-] 1/2  50%"
  t.eq(out.text, before .. "\r" .. string.rep(" ", drawn) .. "\r")
  p:step() -- after done: nothing more is drawn
  t.eq(out.text, before .. "\r" .. string.rep(" ", drawn) .. "\r")
  local out2 = sink()
  do
    local q <close> = progress.new(1, "c", {out = out2, enabled = true, width = 1})
    q:step()
  end
  assert(out2.text:find("\r +\r$"), "erased at the end of the block")
end)

t.case("arguments are checked", function()
  t.checkerror("progress.new: total must be a non-negative integer, got -1", progress.new, -1)
  t.checkerror("progress.new: total must be a non-negative integer, got 2.5", progress.new, 2.5)
  t.checkerror("progress.new: label must be a string, got number", progress.new, 1, 5)
  local p = progress.new(1, "x", {enabled = false})
  t.checkerror("progress:step: n must be a non-negative integer, got x", p.step, p, "x")
end)

t.run{exit = true}
