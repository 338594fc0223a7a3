-- device.lua: cuda.device, cuda.devices, a device's fields and dev.attr with wrong keys
-- and values, offline (the h100 profile). Every misuse is one sentence; nothing crashes.
local cases = require "support.cases"
local dev = cuda.device()

cases.errors{
  {"cuda.device(1) offline", "cuda.device(1) does not exist offline: only 0", function() return cuda.device(1) end},
  {"cuda.device(-1)", "cuda.device(-1) does not exist offline", function() return cuda.device(-1) end},
  {"cuda.device(mininteger)", "does not exist offline", function() return cuda.device(math.mininteger) end},
  {"cuda.device(maxinteger)", "does not exist offline", function() return cuda.device(math.maxinteger) end},
  {"cuda.device(1.5)", "number has no integer representation", function() return cuda.device(1.5) end},
  {"cuda.device(nan)", "number has no integer representation", function() return cuda.device(0 / 0) end},
  {"cuda.device(inf)", "number has no integer representation", function() return cuda.device(math.huge) end},
  {"cuda.device(-inf)", "number has no integer representation", function() return cuda.device(-math.huge) end},
  {"cuda.device(2^63)", "number has no integer representation", function() return cuda.device(2 ^ 63) end},
  {"cuda.device({})", "number expected, got table", function() return cuda.device({}) end},
  {"cuda.device(true)", "number expected, got boolean", function() return cuda.device(true) end},
  {"cuda.device('x')", "number expected, got string", function() return cuda.device("x") end},
  {"cuda.device(print)", "number expected, got function", function() return cuda.device(print) end},
  {"dev.attr.nope", "unknown attribute 'nope' (`warplab attrs` lists them)", function() return dev.attr.nope end},
  {"dev.attr['']", "unknown attribute ''", function() return dev.attr[""] end},
  {"dev.attr[1]", "unknown attribute '1'", function() return dev.attr[1] end},
  {"dev.attr[1.5]", "unknown attribute '1.5'", function() return dev.attr[1.5] end},
  {"dev.attr[nil]", "string expected, got nil", function() return dev.attr[nil] end},
  {"dev.attr[true]", "string expected, got boolean", function() return dev.attr[true] end},
  {"dev.attr[{}]", "string expected, got table", function() return dev.attr[{}] end},
  {"dev.attr['\\0']", "unknown attribute", function() return dev.attr["\0"] end},
  {"dev.attr[long name]", "unknown attribute", function() return dev.attr[string.rep("x", 100000)] end},
  {"ipairs(dev.attr)", "unknown attribute '1'", function() for _ in ipairs(dev.attr) do end end},
  {"dev.nope", "device has no field 'nope'", function() return dev.nope end},
  {"dev[1]", "device has no field '1'", function() return dev[1] end},
  {"dev[nil]", "string expected, got nil", function() return dev[nil] end},
  {"dev.name = x", "attempt to index a warplab.device value", function() dev.name = "x" end},
  {"#dev", "attempt to get length of a warplab.device value", function() return #dev end},
  {"dev()", "attempt to call a warplab.device value", function() return dev() end},
  {"dev .. x", "attempt to concatenate a warplab.device value", function() return dev .. "x" end},
  {"dev < dev", "attempt to compare two warplab.device values", function() return dev < dev end},
  {"dev + 1", "attempt to perform arithmetic on a warplab.device value", function() return dev + 1 end},
  {"setmetatable(dev)", "table expected, got warplab.device", function() return setmetatable(dev, {}) end},
  {"setmetatable(dev.attr)", "cannot change a protected metatable", function() return setmetatable(dev.attr, {}) end},
  {"getmetatable(dev.attr).__index(nil, k)", "attempt to call a nil value", function() return getmetatable(dev.attr).__index(nil, "warp_size") end},
  {"getmetatable(dev).__gc(dev)", "attempt to call a nil value", function() getmetatable(dev).__gc(dev) end},
  {"getmetatable(dev).__tostring(1)", "attempt to call a nil value", function() return getmetatable(dev).__tostring(1) end},
  {"string.format('%d', dev)", "number expected, got warplab.device", function() return string.format("%d", dev) end},
}

cases.fine{
  {"getmetatable(dev) is its name, with no metamethods", function()
    cases.eq(getmetatable(dev), "warplab.device")
    cases.eq(getmetatable(dev).__index, nil)
    cases.eq(getmetatable(dev.attr), "warplab.attr")
  end},
  {"cuda.device() is the profile", function() cases.eq(dev.live, false); cases.eq(dev.ordinal, -1) end},
  {"cuda.device(nil) and extra arguments", function() cases.eq(cuda.device(nil, 1, 2).arch, "sm_90") end},
  {"cuda.device('0') converts like any Lua number", function() cases.eq(cuda.device("0").arch, "sm_90") end},
  {"cuda.devices(junk) ignores its arguments", function() cases.eq(#cuda.devices(5, "x"), 1) end},
  {"upper case and aliases answer", function()
    cases.eq(dev.attr.WARP_SIZE, 32)
    cases.eq(dev.attr.shared_memory_per_block, dev.attr.max_shared_memory_per_block)
  end},
  {"pairs(dev.attr) visits every attribute", function()
    local n = 0
    for k, v in pairs(dev.attr) do n = n + 1; assert(math.type(v) == "integer", k) end
    assert(n > 100, n)
  end},
  {"two devices compare unequal, tostring works", function()
    cases.eq(dev == cuda.device(), false)
    assert(tostring(dev):find("profile h100", 1, true))
  end},
  {"a device survives a full collection", function()
    local d = cuda.device()
    d = nil
    collectgarbage()
    collectgarbage()
    cases.eq(dev.attr.warp_size, 32)
  end},
}

-- Every value in every argument position of cuda.device: an error sentence or a device.
local sweep = {}
for i = 1, cases.nvalues do
  sweep[#sweep + 1] = {"cuda.device(values[" .. i .. "])", function() return cuda.device(cases.values[i]) end}
  sweep[#sweep + 1] = {"dev.attr[values[" .. i .. "]]", function() return dev.attr[cases.values[i]] end}
  sweep[#sweep + 1] = {"dev[values[" .. i .. "]]", function() return dev[cases.values[i]] end}
end
cases.survives(sweep)
cases.run()
