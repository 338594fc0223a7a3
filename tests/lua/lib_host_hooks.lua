-- lib_host_hooks.lua: the host hooks docs/lua-library.md promises exist when warplab runs
-- the library: warplab.mkdir makes nested folders (nil, why when a file is in the way),
-- warplab.now is monotonic with sub-second resolution.
local t = require "warplab.test"

t.case("warplab.mkdir", function()
  local base = os.tmpname()
  os.remove(base)
  t.eq(warplab.mkdir(base .. "/a/b/c"), true)
  local f = assert(io.open(base .. "/a/b/c/x.txt", "w"))
  f:write("x")
  f:close()
  t.eq(warplab.mkdir(base .. "/a/b/c"), true)  -- already there: fine
  local ok, why = warplab.mkdir(base .. "/a/b/c/x.txt/d")
  t.eq(ok, nil)
  t.eq(why:find("cannot create the folder", 1, true) ~= nil, true, why)
  os.execute("rm -rf '" .. base .. "'")
end)

t.case("warplab.now", function()
  local a = warplab.now()
  local x = 0
  for i = 1, 200000 do x = x + i end
  local b = warplab.now()
  t.eq(b > a, true)
  t.eq(b - a < 5, true)
end)

t.run()
