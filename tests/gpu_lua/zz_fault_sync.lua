-- zz_fault_sync.lua (GPU, with --sync; runs after the other files: the fault leaves this
-- process's context unusable): with --sync every launch is followed by a
-- synchronization, so a planted illegal address is reported by the launch itself, at
-- its own line, naming the kernel. CTest passes the global line.
-- global: --sync
local t = require "warplab.test"

assert(cuda.device().live, "needs a GPU")
local THIS = debug.getinfo(1, "S").short_src

local m = assert(cuda.compile{source = [[
__global__ void poke(unsigned long long address) { *reinterpret_cast<volatile int*>(address) = 1; }
__global__ void fine(int* x) { x[threadIdx.x] = 1; }
]]})
local a = cuda.array("i32", 32)

t.case("with --sync the launch that faults raises, at its line", function()
  m.fine:launch(1, 32, a)  -- synchronized at once: nothing pending afterwards
  t.eq(a[32], 1)
  local line = debug.getinfo(1, "l").currentline + 2
  local ok, err = pcall(function()
    m.poke:launch(1, 1, 16)
  end)
  t.eq(ok, false)
  local want = string.format("%s:%d: kernel 'poke' launched at %s:%d faulted: CUDA_ERROR_ILLEGAL_ADDRESS",
                             THIS, line, THIS, line)
  assert(err:find(want, 1, true), "want " .. want .. ", got " .. err)
  assert(not err:find("one of", 1, true), "only one launch was pending: " .. err)
end)

t.run{exit = true}
