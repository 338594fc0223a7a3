-- occupancy_sweep.lua (GPU): warplab's occupancy calculator against the driver's
-- (cuOccupancyMaxActiveBlocksPerMultiprocessor) for every block size 32..1024 (step 32,
-- up to each kernel's cap) x dynamic shared sizes x kernels with different register
-- counts (max_registers 32/64/128 and uncapped) and static shared sizes. Prints the
-- sweep size; every configuration must agree.
local t = require "warplab.test"

local dev = cuda.device()
assert(dev.live, "needs a GPU")
local optin = dev.attr.max_shared_memory_per_block_optin

local source = [[
__global__ void small(float* a) { a[threadIdx.x] = 1; }
__global__ void with_shared(float* a) {
  __shared__ float s[1024];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[1023 - threadIdx.x];
}
__global__ void big_shared(float* a) {
  __shared__ float s[4096];
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = a[i];
  __syncthreads();
  a[threadIdx.x] = s[4095 - threadIdx.x];
}
__global__ void __launch_bounds__(256) bounded(float* a) { a[threadIdx.x] = 1; }
#include "../data/kernels/pressure.cuh"
]]

local kernels, regs_seen, statics = {}, {}, {}
for _, cap in ipairs({0, 32, 64, 128}) do
  local m = assert(cuda.compile{source = source, kernels = {"heavy<64>", "heavy<200>"}, max_registers = cap})
  for _, name in ipairs(m.kernels) do
    local k = m:kernel(name)
    kernels[#kernels + 1] = k
    regs_seen[k.regs] = true
    statics[k.shared_bytes] = true
  end
end

local blocks, shared = {}, {0, 2048, 16384, 49152, 102400}
for b = 32, 1024, 32 do blocks[#blocks + 1] = b end

t.case("calculator == driver", function()
  local n, mismatches = 0, {}
  for _, k in ipairs(kernels) do
    for _, dyn in ipairs(shared) do
      for _, b in ipairs(blocks) do
        if b <= k.max_threads and k.shared_bytes + dyn <= optin then
          local r = k:occupancy{block = b, shared = dyn}
          n = n + 1
          if r.driver_blocks_per_sm ~= r.blocks_per_sm or r.driver_error then
            mismatches[#mismatches + 1] = string.format("%s (%d regs, %d B static) block %d shared %d: ours %d (%s), driver %s%s",
              k.name, k.regs, k.shared_bytes, b, dyn, r.blocks_per_sm, r.limiter, tostring(r.driver_blocks_per_sm),
              r.driver_error and (" " .. r.driver_error) or "")
          end
        end
      end
    end
  end
  local regs = {}
  for r in pairs(regs_seen) do regs[#regs + 1] = r end
  table.sort(regs)
  local st = {}
  for s in pairs(statics) do st[#st + 1] = s end
  table.sort(st)
  print(string.format("occupancy sweep: %d configurations (%d kernels: registers %s, static shared %s; "
                      .. "block 32..1024 step 32; dynamic shared %s): %d agree",
                      n, #kernels, table.concat(regs, "/"), table.concat(st, "/"), table.concat(shared, "/"),
                      n - #mismatches))
  assert(n >= 2000, n .. " configurations")
  assert(#regs >= 5, "register counts: " .. table.concat(regs, "/"))
  if #mismatches > 0 then
    error(#mismatches .. " disagree:\n  " .. table.concat(mismatches, "\n  ", 1, math.min(#mismatches, 25)))
  end
end)

t.run{exit = true}
