-- api_unknown.lua: what an architecture profile does not know (the SM count, the memory
-- size, the L2 size, ...) is never 0 or nil in a script: reading dev.sm_count, dev.memory or
-- dev.attr.X raises one sentence naming a profile that knows it, and dev.unknown says so
-- beforehand. A captured profile and a live GPU know everything: dev.unknown is empty.
-- profile: sm_86
local t = require "warplab.test"

local dev = cuda.device()
local FIX = "(architecture limits, not a captured device): pass a product (--profile a100) or a captured profile"

if dev.live or dev.source ~= "profile sm_86" then
  t.case("a GPU knows every value it reports: dev.unknown is empty", function()
    t.eq(next(dev.unknown), nil)
    assert(dev.sm_count > 0 and dev.memory > 0)
  end)
else
  t.case("dev.unknown names what sm_86 does not know, and only that", function()
    t.eq({dev.unknown.multiprocessor_count, dev.unknown.total_memory, dev.unknown.l2_cache_size},
         {true, true, true})
    t.eq({dev.unknown.warp_size, dev.unknown.max_threads_per_multiprocessor}, {nil, nil})
    for name in pairs(dev.unknown) do
      if name ~= "total_memory" then t.eq(rawget(dev.attr, name), nil) end
    end
  end)

  t.case("dev.sm_count, dev.memory and dev.attr.X raise one sentence when unknown", function()
    t.checkerror("the SM count (attribute 'multiprocessor_count') is unknown for profile sm_86 " .. FIX,
                 function() return dev.sm_count end)
    t.checkerror("the memory size (total_memory) is unknown for profile sm_86 " .. FIX,
                 function() return dev.memory end)
    t.checkerror("attribute 'l2_cache_size' is unknown for profile sm_86 " .. FIX,
                 function() return dev.attr.l2_cache_size end)
    t.checkerror("attribute 'multiprocessor_count' is unknown for profile sm_86 " .. FIX,
                 function() return dev.attr.MULTIPROCESSOR_COUNT end) -- any spelling
  end)

  t.case("what sm_86 knows reads as usual; pairs() lists only that", function()
    t.eq({dev.attr.warp_size, dev.attr.max_threads_per_multiprocessor}, {32, 1536})
    local n = 0
    for name, v in pairs(dev.attr) do
      n = n + 1
      assert(math.type(v) == "integer" and not dev.unknown[name], name)
    end
    t.eq(n, 20)
    t.checkerror("unknown attribute 'warp_sizes': did you mean 'warp_size'?", function() return dev.attr.warp_sizes end)
  end)
end
t.run{exit = true}
