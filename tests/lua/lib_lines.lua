-- lib_lines.lua: warplab.lines: where nothing can be collected (no GPU) the witness prints
-- each claim and why not, and returns false (where it can, on the GPU machine, nothing and
-- true); lines.find finds a row by its source text, plain (not a pattern), and by kernel;
-- lines.most is the worst of a field over the rows but one. Misuse raises.
-- Depends on: warplab.test, warplab.lines, the `cuda` global.
local t = require "warplab.test"
local lw = require "warplab.lines"

t.case("witness: the claims and why they are not collected, false (or nothing and true)", function()
  local out, real = {}, print
  print = function(s) out[#out + 1] = s end -- restored below
  local ok, got = pcall(lw.witness, {"line 8 is 32-way"})
  print = real
  assert(ok, got)
  if cuda.lines_available() then
    t.eq({got, #out}, {true, 0})
    return
  end
  t.eq(got, false)
  t.eq({out[1], out[2]}, {"\nper-line counts would check, at the line:", "  line 8 is 32-way"})
  assert(out[3]:find("^not collected here: per%-line counts need a GPU"), out[3])
end)

t.case("find and most", function()
  local rows = {{kernel = "a", line = 3, text = "  s[i * 32] = x;", shared_way = 32},
                {kernel = "b", line = 3, text = "  s[i * 32] = x;", shared_way = 2},
                {kernel = "a", line = 4, text = "  y = s[i];", shared_way = 1}, {kernel = "a", line = 5, text = "}"}}
  t.eq(lw.find(rows, "s[i * 32]").shared_way, 32) -- brackets and * are plain text
  t.eq(lw.find(rows, "s[i * 32]", "b").shared_way, 2)
  t.eq(lw.find(rows, "nowhere"), nil)
  t.eq(lw.most(rows, "shared_way"), 32)
  t.eq(lw.most(rows, "shared_way", rows[1]), 2)
  t.eq(lw.most({rows[4]}, "shared_way"), nil)
end)

t.case("misuse raises", function()
  t.checkerror("lines.witness: expected a list of claims", lw.witness, "x")
  t.checkerror("lines.each: expected a list and a function", lw.each, {}, nil)
  t.checkerror("lines.find: expected the rows of cuda.lines", lw.find, {}, 3)
  t.checkerror("lines.most: expected the rows of cuda.lines and a field name", lw.most, {}, nil)
end)

t.run{exit = true}
