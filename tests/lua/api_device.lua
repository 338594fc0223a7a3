-- api_device.lua: cuda.version, cuda.device(), cuda.devices(), the device fields, dev.attr
-- (indexable, iterable, aliases, unknown names raise) and tostring(dev). Offline on the
-- h200 profile (CTest, cmake/tests.cmake); on a live H200 (gpu-check) the same numbers hold.
local t = require "warplab.test"

require "support.h200_only"  -- the numbers below are the H200's

local dev = cuda.device()
local live = dev.live

t.case("cuda.version is the program's version", function()
  assert(type(cuda.version) == "string" and cuda.version:match("^%d+%.%d+%.%d+"), cuda.version)
end)

t.case("device fields", function()
  t.eq(dev.name, "NVIDIA H200")
  t.eq(dev.cc, "9.0")
  t.eq(dev.arch, "sm_90")
  t.eq(dev.sm_count, 132)
  t.eq(dev.sm_count, dev.attr.multiprocessor_count)
  assert(math.type(dev.memory) == "integer" and dev.memory > 139 * 2^30, dev.memory)
  assert(dev.uuid:match("^%x+%-%x+%-%x+%-%x+%-%x+$"), dev.uuid)
  assert(math.type(dev.driver_version) == "integer" and dev.driver_version >= 12040, dev.driver_version)
  t.eq(type(live), "boolean")
  if live then
    t.eq(dev.ordinal, 0)
    t.eq(dev.source, "device 0")
  else
    t.eq(dev.source, "profile h200")
    t.eq(dev.memory, 150109880320)
  end
end)

t.case("an unknown device field raises", function()
  t.checkerror("device has no field 'sm'", function() return dev.sm end)
end)

t.case("tostring(dev) is one line", function()
  local s = tostring(dev)
  assert(s:match("^NVIDIA H200 %(sm_90, 132 SMs, %d+ GiB%)"), s)
  if not live then t.eq(s, "NVIDIA H200 (sm_90, 132 SMs, 139 GiB) [profile h200]") end
  assert(not s:find("\n"), s)
end)

t.case("dev.attr: every attribute, iterable with pairs", function()
  local n = 0
  for name, v in pairs(dev.attr) do
    n = n + 1
    assert(name:match("^[a-z][a-z0-9_]*$"), name)
    assert(math.type(v) == "integer", name .. " is not an integer")
  end
  -- cuda.h 13.0 has 148 attribute values; the H200 answers 147 of them.
  assert(n >= 140 and n <= 160, n .. " attributes")
  if not live then t.eq(n, 147) end
  t.eq(dev.attr.max_threads_per_block, 1024)
  t.eq(dev.attr.warp_size, 32)
  t.eq(dev.attr.max_shared_memory_per_block_optin, 232448)
  t.eq(dev.attr.compute_capability_major, 9)
end)

t.case("dev.attr answers aliases and other spellings", function()
  t.eq(dev.attr.registers_per_block, dev.attr.max_registers_per_block)
  t.eq(dev.attr.shared_memory_per_block, 49152)
  t.eq(dev.attr.MAX_THREADS_PER_BLOCK, 1024)
end)

t.case("dev.attr: an unknown name raises with a hint", function()
  local msg = t.checkerror("unknown attribute 'max_thread_per_block': did you mean 'max_threads_per_block'? (see `warplab attrs max_threads_per_block`)",
                           function() return dev.attr.max_thread_per_block end)
  assert(msg:find("api_device.lua:%d+:"), "the error carries the script line: " .. msg)
end)

t.case("dev.attr is the same table each time", function()
  assert(rawequal(dev.attr, dev.attr))
end)

t.case("cuda.devices() lists the device(s)", function()
  local all = cuda.devices()
  assert(#all >= 1)
  t.eq(all[1].name, dev.name)
  t.eq(tostring(all[1]), tostring(dev))
end)

t.case("cuda.device(i) past the last device raises", function()
  if live then
    t.checkerror("device 99 does not exist: ", cuda.device, 99)
  else
    t.checkerror("no CUDA device: cuda.device(1) does not exist offline: only 0 (profile h200)",
                 cuda.device, 1)
    t.eq(tostring(cuda.device(0)), tostring(dev))
  end
end)

t.run{exit = true}
