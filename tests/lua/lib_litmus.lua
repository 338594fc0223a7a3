-- lib_litmus.lua: warplab.litmus's model against the PTX memory model's verdicts the litmus
-- experiment checks (CoRR always forbidden; .cta scopes only within one block; SB and IRIW
-- allowed under release/acquire; the writer-only fence allows the last-block reader's stale
-- read), the tests' shapes, and sync.needs's sentence.
-- Depends on: warplab.litmus, warplab.sync, warplab.test (no GPU, no cuda module).
local t = require "warplab.test"
local litmus = require "warplab.litmus"
local sync = require "warplab.sync"

local BLOCKS, WARPS = 0, 1
local function verdict(name, v, pl) return (litmus.forbidden(litmus.find(name), v, pl)) end

t.case("coherence: CoRR's weak outcome is forbidden in every variant and placement", function()
  for _, v in ipairs(litmus.find("CoRR").variants) do
    t.eq(verdict("CoRR", v, BLOCKS), true)
    t.eq(verdict("CoRR", v, WARPS), true)
  end
end)

t.case("relaxed accesses allow every other weak outcome", function()
  for _, name in ipairs{"MP", "SB", "LB", "IRIW", "TICKET"} do
    t.eq(verdict(name, 0, BLOCKS), false)
    t.eq(verdict(name, 0, WARPS), false)
  end
end)

t.case(".cta fences and scopes forbid only within one block", function()
  for _, name in ipairs{"MP", "SB", "LB", "IRIW"} do
    t.eq(verdict(name, 1, BLOCKS), false)
    t.eq(verdict(name, 1, WARPS), true)
  end
  for _, name in ipairs{"MP", "LB"} do
    t.eq(verdict(name, 3, BLOCKS), false)
    t.eq(verdict(name, 3, WARPS), true)
  end
end)

t.case("fence.sc.gpu and seq_cst forbid; release/acquire do not order SB or IRIW", function()
  for _, name in ipairs{"MP", "SB", "LB", "IRIW", "TICKET"} do t.eq(verdict(name, 2, BLOCKS), true) end
  for _, name in ipairs{"MP", "SB", "IRIW"} do t.eq(verdict(name, 5, BLOCKS), true) end
  t.eq(verdict("MP", 4, BLOCKS), true)
  t.eq(verdict("LB", 4, BLOCKS), true)
  t.eq(verdict("SB", 4, BLOCKS), false)
  t.eq(verdict("IRIW", 4, WARPS), false)
end)

t.case("the writer's fence alone leaves the last-block reader unordered", function()
  t.eq(verdict("TICKET", 6, BLOCKS), false)
  t.eq(verdict("MP", 6, WARPS), false)
  local _, why = litmus.forbidden(litmus.find("TICKET"), 6, BLOCKS)
  assert(why:find("reader", 1, true), why)
end)

t.case("the tests' shapes: roles, registers, weak outcome within range", function()
  for _, test in ipairs(litmus.TESTS) do
    assert(test.roles == 2 or test.roles == 4, test.name)
    assert(test.weak >= 0 and test.weak < 1 << test.regs, test.name)
    t.eq(litmus.outcome_text(test, test.weak), test.weak_text)
    for _, v in ipairs(test.variants) do assert(litmus.VARIANTS[v], test.name .. " variant " .. v) end
  end
  t.eq(litmus.find("mp").name, "MP")
  t.eq(litmus.find("nope"), nil)
end)

t.case("sync.needs: nil when the GPU has it, else the sentence", function()
  t.eq(sync.needs({cc = "9.0"}, 9, 0, "bulk copies"), nil)
  t.eq(sync.needs({cc = "10.0"}, 9, 0, "bulk copies"), nil)
  t.eq(sync.needs({cc = "8.6"}, 9, 0, "bulk copies"), "bulk copies need compute capability 9.0 (this is 8.6): refused")
  t.eq(sync.needs({cc = "7.5"}, 8, 0, "cp.async"), "cp.async needs compute capability 8.0 (this is 7.5): refused")
  t.eq(sync.needs({cc = "8.0"}, 9, 0, "clusters and DSMEM"), "clusters and DSMEM need compute capability 9.0 (this is 8.0): refused")
end)

t.run{exit = true}
