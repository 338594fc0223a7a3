-- zz_fault.lua (GPU, runs last: the fault leaves this process's context unusable): an
-- illegal address planted in a kernel surfaces at the next call that waits for the GPU
-- (a:get(), cuda.synchronize()), and the error names the kernel and the FILE:LINE of
-- its launch, with the other launches since the last synchronization.
local t = require "warplab.test"

assert(cuda.device().live, "needs a GPU")
local THIS = debug.getinfo(1, "S").short_src

local m = assert(cuda.compile{source = [[
// Writes through an address that is never valid device memory.
__global__ void poke(unsigned long long address) { *reinterpret_cast<volatile int*>(address) = 1; }
__global__ void fine(int* x) { x[threadIdx.x] = 1; }
]]})
local a = cuda.array("i32", 32)

t.case("a fault names the kernel and the script line of its launch", function()
  m.fine:launch(1, 32, a)
  cuda.synchronize()  -- forgets the launches before this point
  local fine_line = debug.getinfo(1, "l").currentline + 1
  m.fine:launch(1, 32, a)
  local poke_line = debug.getinfo(1, "l").currentline + 1
  m.poke:launch(1, 1, 16)
  local want = string.format("kernel 'poke' launched at %s:%d faulted: CUDA_ERROR_ILLEGAL_ADDRESS", THIS, poke_line)
  local msg = t.checkerror(want, a.get, a)
  local earlier = string.format("(one of 2 launches since the last synchronization; earlier: fine@%s:%d; "
                                .. "run with --sync to pin it down)", THIS, fine_line)
  assert(msg:find(earlier, 1, true), "names the earlier launch: " .. msg)
  assert(msg:find("; noticed by cu", 1, true) and msg:find(". The context is now unusable: restart the script", 1, true), msg)
  -- Every later call that reports the sticky fault names the same launch.
  t.checkerror(want, cuda.synchronize)
  -- A launch the driver refuses now did not run, so it does not take the blame.
  -- (The driver refuses every call on a faulted context; were a launch accepted, the
  -- next error would name it, and this case says so.)
  local ok, err = pcall(m.fine.launch, m.fine, 1, 32, a)
  assert(not ok, "a launch on a faulted context was accepted")
  assert(err:find(want, 1, true), "a refused launch names the faulting one: " .. err)
  t.checkerror(want, cuda.synchronize)
end)

t.run{exit = true}
