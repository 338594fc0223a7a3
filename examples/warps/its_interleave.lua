-- its_interleave.lua: independent thread scheduling (sm_70+): the two sides of a divergent
-- branch in one warp can run interleaved, and __syncwarp() reconverges them before Z.
-- Shows:  the whitepaper's `if (lane < 16) { A; B; } else { X; Y; } Z;` in one warp; each
--         statement takes a number from a global atomic sequence. Plain: the scheduler
--         picks the order (reported). Handshake: A, then side 1 waits for X; side 2 waits
--         for A, then X: it can only finish if the warp switches sides mid-branch.
-- Expect: no wait hits its %globaltimer deadline; with the handshake every A < every X <
--         every B; with __syncwarp() before Z every lane's __activemask() at Z is all 32
--         lanes and no Z precedes any A, B, X or Y; the trace shows A, X, B, Z in turn.
-- Run:    warplab run examples/warps/its_interleave.lua   (-p timeout_ms=1000 -p save=true)
local report = require "warplab.report"
local check = require "warplab.check"
local params = require "warplab.params"
local trace = require "warplab.trace"
local p = params{timeout_ms = 1000, save = false}

local dev = cuda.device()
print(dev)
local m = assert(cuda.compile("warps/its_interleave.cu"))
local k = m.its_interleave
print(k)
local RUNS = {
  {name = "plain", handshake = 0, sync = 0},
  {name = "handshake + __syncwarp", handshake = 1, sync = 1},
  {name = "plain + __syncwarp", handshake = 0, sync = 1},
}
print("plan: one warp, three runs: " .. RUNS[1].name .. "; " .. RUNS[2].name .. "; " .. RUNS[3].name)
if not dev.live then
  print("no GPU here (" .. dev.source .. "): the kernel compiled; the runs need one")
  require("warplab.experiment").skipped(p.save and {"results/its_interleave.csv", "results/its_interleave.svg"})
  return
end
local c = check.new("its_interleave")
local major = tonumber(dev.cc:match("^(%d+)"))
c:that(major >= 7, "the GPU has independent thread scheduling (sm_70 or newer)", dev.arch)

local ws, FULL, FIELDS = dev.attr.warp_size, 0xffffffff, 5
local counters <close> = cuda.array("u32", 4)
local log <close> = cuda.array("u32", ws * FIELDS)
local buf <close> = trace.buffer(4 * ws)

-- Statements in sequence order, squeezed into runs: "A16 X16 B16 Y16 Z32".
local function squeeze(by_seq)
  local out, last, n = {}, nil, 0
  for _, s in ipairs(by_seq) do
    if s == last then n = n + 1 else
      if last then out[#out + 1] = last .. n end
      last, n = s, 1
    end
  end
  if last then out[#out + 1] = last .. n end
  return table.concat(out, " ")
end

local rows, handshake_warps = {}, nil
for _, run in ipairs(RUNS) do
  counters:zero(); log:zero()
  k:launch(1, ws, run.handshake, run.sync, p.timeout_ms * 1000000, counters, log, trace.reset(buf))
  local cnt, lg = counters:get(), log:get()
  local by_seq, seqs, zmasks, first_z, last_side = {}, {}, {}, math.huge, -1
  local lo, hi = {A = math.huge, B = math.huge, X = math.huge}, {A = -1, X = -1}
  for lane = 0, ws - 1 do
    local r = {table.unpack(lg, lane * FIELDS + 1, lane * FIELDS + FIELDS)}
    local s1, s2 = (r[1] == 1) and "A" or "X", (r[1] == 1) and "B" or "Y"
    for _, e in ipairs{{s1, r[2]}, {s2, r[3]}, {"Z", r[4]}} do
      by_seq[e[2] + 1] = e[1]
      seqs[#seqs + 1] = e[2]
      if lo[e[1]] then lo[e[1]] = math.min(lo[e[1]], e[2]) end
      if hi[e[1]] then hi[e[1]] = math.max(hi[e[1]], e[2]) end
    end
    first_z, last_side = math.min(first_z, r[4]), math.max(last_side, r[2], r[3])
    zmasks[string.format("%08x", r[5])] = true
  end
  table.sort(seqs)
  local once = #seqs == 3 * ws and cnt[1] == 3 * ws
  for i, q in ipairs(seqs) do once = once and q == i - 1 end
  local distinct = {}
  for mk in pairs(zmasks) do distinct[#distinct + 1] = mk end
  table.sort(distinct)
  rows[#rows + 1] = {run.name, squeeze(by_seq), table.concat(distinct, " "), cnt[4]}
  if cnt[4] > 0 then
    print(string.format("deadlocked: %d lanes of the %s run gave up waiting for the other side",
                        cnt[4], run.name))
  end
  c:eq(cnt[4], 0, run.name .. ": no wait reached its deadline (no deadlock)")
  c:that(once, run.name .. ": every lane logged its 3 statements once", cnt[1] .. " sequence numbers")
  if run.handshake == 1 then
    c:that(hi.A < lo.X and hi.X < lo.B, run.name .. ": side 2's X ran between side 1's A and B",
           string.format("A <= %d < X %d..%d < B >= %d", hi.A, lo.X, hi.X, lo.B))
    handshake_warps = trace.warps(trace.decode(buf))
  end
  if run.sync == 1 then
    c:that(#distinct == 1 and distinct[1] == "ffffffff",
           run.name .. ": __activemask() at Z is all lanes, in every lane", table.concat(distinct, " "))
    c:that(first_z > last_side, run.name .. ": no lane ran Z before every lane finished its side",
           string.format("first Z %d, last A/B/X/Y %d", first_z, last_side))
  end
end
report.table(rows, {columns = {"run", "statements in sequence order", "masks at Z", "timeouts"}})
print("(the plain run's order is the scheduler's choice: both sides may run one after the other)")

print("\nthe handshake run, per-lane trace (rows = lanes, columns = steps in clock order):")
local w = handshake_warps[1]
trace.timeline(w)
local zsteps = trace.masks(w, "Z")
c:that(#zsteps == 1 and zsteps[1] == FULL, "trace: Z ran as one step of all 32 lanes",
       trace.brief(w))
if p.save then
  report.save("results/its_interleave.csv", rows, {columns = {"run", "order", "z_masks", "timeouts"}})
  print("wrote " .. trace.svg(handshake_warps, "results/its_interleave.svg",
                              {title = "A/B vs X/Y with a handshake, then __syncwarp and Z"}))
end
c:summary()
