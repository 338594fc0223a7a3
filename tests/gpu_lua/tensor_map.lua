-- tensor_map.lua (GPU, compute capability 9.0): cuda.tensor_map encoded by the driver and
-- read by the Tensor Memory Accelerator: one TMA load of a box lands exactly the elements
-- the map's dims, strides and box name (inner dimension first), out-of-bounds elements are
-- zeros, a map over part of an array (strides = the array's rows) reads that part; and a
-- launch captured in a graph keeps the map's array: freeing it refuses the replay instead
-- of reading freed memory. The kernel is inline PTX (no CCCL headers: it compiles fast).
local t = require "warplab.test"

local dev = cuda.device()
assert(dev.live, "needs a GPU")
local major = tonumber(dev.cc:match("^(%d+)"))
if major < 9 then
  print("skipped: tensor maps need compute capability 9.0 (this is " .. dev.cc .. ")")
  os.exit(77)
end

local m = assert(cuda.compile{source = [[
typedef struct alignas(64) CUtensorMap_st { unsigned long long opaque[16]; } CUtensorMap;
// One TMA load of the box at (x, y) into shared memory, completing on an mbarrier with
// a transaction count of `n` words; then the block writes the box out.
__global__ void tma_box(const __grid_constant__ CUtensorMap map, int x, int y, unsigned* out, int n) {
  __shared__ alignas(128) unsigned tile[1024];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned sbar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  const unsigned stile = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(n * 4) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(stile), "l"(&map), "r"(x), "r"(y), "r"(sbar) : "memory");
  }
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(sbar) : "memory");
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = tile[i];
}
]]})
local k = m.tma_box

-- A W x H array of u32, element (c, r) = r * W + c (0-based), the box's expected words.
local W, H = 64, 32
local function expect(x, y, bw, bh, w, h)
  local e = {}
  for r = 0, bh - 1 do
    for c = 0, bw - 1 do
      local in_bounds = x + c < w and y + r < h
      e[#e + 1] = in_bounds and (y + r) * W + x + c or 0
    end
  end
  return e
end

t.case("one TMA load lands the box the map names, inner dimension first", function()
  local a = cuda.array("u32", W * H):iota(0)
  local map = cuda.tensor_map(a, {dims = {W, H}, box = {16, 8}})
  assert(map.encoded and not map.freed and map.strides[1] == W * 4, tostring(map))
  local out = cuda.array("u32", 128)
  k:launch(1, 32, map, 16, 4, out, 128)
  t.eq(out:get(), expect(16, 4, 16, 8, W, H), "box at (16, 4)")
  k:launch(1, 32, map, 56, 28, out, 128) -- 8 columns and 4 rows past the edges
  t.eq(out:get(), expect(56, 28, 16, 8, W, H), "out-of-bounds elements are zeros")
end)

t.case("a map over part of an array: its own dims, the array's row stride", function()
  local a = cuda.array("u32", W * H):iota(0)
  local part = cuda.tensor_map(a, {dims = {20, 10}, box = {16, 8}, strides = {W * 4}})
  local out = cuda.array("u32", 128)
  k:launch(1, 32, part, 8, 4, out, 128) -- columns 8..23 and rows 4..11 of a 20 x 10 tensor
  t.eq(out:get(), expect(8, 4, 16, 8, 20, 10), "what lies past the part's edges is zeros")
end)

t.case("a captured launch keeps the map's array: freeing it refuses the replay", function()
  local a = cuda.array("u32", W * H):iota(0)
  local map = cuda.tensor_map(a, {dims = {W, H}, box = {16, 8}})
  local out = cuda.array("u32", 128)
  local g = cuda.graph(function() k:launch(1, 32, map, 0, 0, out, 128) end)
  out:zero()
  g:launch()
  t.eq(out:get(), expect(0, 0, 16, 8, W, H), "the replay reads through the map")
  a:free()
  t.checkerror("uses an array u32[2048] that was freed, so a replay would read freed memory", g.launch, g)
  t.checkerror("the tensor map's array was freed", k.launch, k, 1, 32, map, 0, 0, out, 128)
end)

t.run{exit = true}
