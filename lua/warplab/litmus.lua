-- warplab/litmus.lua: the litmus tests of examples/sync/litmus.lua as data, and what the
-- PTX memory model says of each (Lustig et al., "A formal analysis of the NVIDIA PTX
-- memory consistency model", ASPLOS 2019; the PTX ISA's memory consistency model): which
-- outcome is the weak one, and whether a variant forbids it in a placement. Pure Lua.
-- Depends on: warplab.util.
local util = require "warplab.util"
local litmus = {}

-- The variants, numbered as kernels_src/sync/litmus.cu's `variant`.
litmus.VARIANTS = {
  [0] = "relaxed", "fence.cta", "fence.gpu", "rel/acq cta", "rel/acq gpu", "seq_cst gpu", "fence.gpu writer",
}
-- The placements, numbered as the kernel's `placement`.
litmus.PLACEMENTS = {[0] = "2 blocks", "2 warps"}

-- Each test: its number in the kernel, the program (one line per role), the roles, the
-- registers, the weak outcome (register i = bit i) and the variants run. `fence` names
-- where the fence variants put their fence.
litmus.TESTS = {
  {name = "MP", id = 0, roles = 2, regs = 2, weak = 1, weak_text = "r0=1 r1=0",
   program = "x=1; y=1 || r0=y; r1=x", variants = {0, 1, 2, 6, 3, 4, 5}},
  {name = "SB", id = 1, roles = 2, regs = 2, weak = 0, weak_text = "r0=0 r1=0",
   program = "x=1; r0=y || y=1; r1=x", variants = {0, 1, 2, 4, 5}},
  {name = "LB", id = 2, roles = 2, regs = 2, weak = 3, weak_text = "r0=1 r1=1",
   program = "r0=x; y=1 || r1=y; x=1", variants = {0, 1, 2, 3, 4}},
  {name = "IRIW", id = 3, roles = 4, regs = 4, weak = 5, weak_text = "r0=1 r1=0 r2=1 r3=0",
   program = "x=1 || y=1 || r0=x; r1=y || r2=y; r3=x", variants = {0, 1, 2, 4, 5}},
  {name = "CoRR", id = 4, roles = 2, regs = 2, weak = 1, weak_text = "r0=1 r1=0",
   program = "x=1 || r0=x; r1=x", variants = {0, 2, 4}},
  {name = "TICKET", id = 5, roles = 2, regs = 2, weak = 1, weak_text = "r0=1 r1=0",
   program = "x=1; atomicAdd(y,1) || r0=atomicAdd(y,1); r1=x", variants = {0, 6, 2}},
}

-- A test of litmus.TESTS (what litmus.find returns), else raised as "<who>: ...".
local function check_test(t, who)
  if type(t) ~= "table" or type(t.name) ~= "string" or math.type(t.regs) ~= "integer" then
    error(string.format("%s: expected a test of litmus.TESTS (litmus.find(\"MP\")), got %s", who, util.kind(t)), 0)
  end
end

-- litmus.forbidden(test, variant, placement) -> true when the PTX model forbids the test's
-- weak outcome, and the reason in words either way. Placement 0: the threads are in
-- different blocks (a .cta scope does not include both); 1: different warps of one block.
function litmus.forbidden(t, v, placement)
  check_test(t, "litmus.forbidden")
  if math.type(v) ~= "integer" or not litmus.VARIANTS[v] then
    error(string.format("litmus.forbidden: the variant is an integer from 0 to %d (litmus.VARIANTS), got %s",
                        #litmus.VARIANTS, type(v) == "number" and util.repr(v) or util.kind(v)), 0)
  end
  if placement ~= 0 and placement ~= 1 then
    error(string.format("litmus.forbidden: the placement is 0 (2 blocks) or 1 (2 warps), got %s",
                        type(placement) == "number" and util.repr(placement) or util.kind(placement)), 0)
  end
  local same_cta = placement == 1
  local name = t.name
  if name == "CoRR" then
    return true, "coherence: reads of one location by one thread never go back in time (morally strong accesses)"
  end
  if v == 0 then return false, "relaxed accesses and no fence: no order between a thread's two accesses" end
  if v == 6 then
    return false, "the reader has no fence or acquire after it sees the flag: its read of x may be satisfied first"
  end
  if v == 1 then
    if same_cta then return true, "fence.sc.cta orders both threads' accesses, and both threads are in the CTA" end
    return false, "a .cta fence does not order accesses for a thread in another block"
  end
  if v == 2 then return true, "fence.sc.gpu between each thread's accesses (the threads are in one GPU)" end
  if v == 3 then
    if same_cta then return true, "release/acquire at .cta scope synchronize threads of one CTA" end
    return false, "release/acquire at .cta scope do not synchronize threads of different blocks"
  end
  if v == 4 then
    if name == "SB" then return false, "release/acquire do not order a store before a later load (SB needs fence.sc)" end
    if name == "IRIW" then return false, "acquire loads do not make two writes to different places visible in one order" end
    return true, "release/acquire at .gpu scope synchronize the threads"
  end
  if v == 5 then return true, "seq_cst accesses (fence.sc.gpu before each) are totally ordered" end
  return false, "no rule forbids it"
end

-- litmus.outcome_text(t, o) -> "r0=1 r1=0" for outcome index o of test t.
function litmus.outcome_text(t, o)
  check_test(t, "litmus.outcome_text")
  if math.type(o) ~= "integer" or o < 0 or o >= 1 << t.regs then
    error(string.format("litmus.outcome_text: the outcome is an integer from 0 to %d for %s, got %s",
                        (1 << t.regs) - 1, t.name, type(o) == "number" and util.repr(o) or util.kind(o)), 0)
  end
  local parts = {}
  for i = 0, t.regs - 1 do parts[#parts + 1] = string.format("r%d=%d", i, (o >> i) & 1) end
  return table.concat(parts, " ")
end

-- litmus.find(name) -> the test of that name (case-insensitive), or nil.
function litmus.find(name)
  if type(name) ~= "string" then
    error("litmus.find: the name is a string (\"MP\", \"SB\", ...), got " .. util.kind(name), 0)
  end
  for _, t in ipairs(litmus.TESTS) do
    if t.name:lower() == name:lower() then return t end
  end
  return nil
end

return util.api("litmus", litmus)
