-- lib_json_decode.lua: json.decode reads what json.encode writes (round trip), a shipped
-- profile and an earlier result; null is json.null; bad text is one sentence with the
-- place; deep nesting is refused.
local t = require "warplab.test"
local json = require "warplab.json"

t.case("round trip", function()
  local v = {rows = {{name = "a", n = 1, x = 2.5}, {name = "b", n = -3, x = 1e-9}}, ok = true, list = {1, 2, 3}}
  t.eq(json.decode(json.encode(v)), v)
  t.eq(json.decode("[1, null, 3]"), {1, json.null, 3})
  t.eq(json.encode(json.decode("[1,null]")), json.encode({1, json.null}))
  t.eq(math.type(json.decode("42")), "integer")
  t.eq(math.type(json.decode("4.5")), "float")
  t.eq(json.decode('"caf\\u00e9"'), "café")
end)

t.case("a result file from report.save reads back", function()
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(json.encode({device = "H100", gbs = {3071.1, 3075.1}}))
  f:close()
  f = assert(io.open(path))
  local back = json.decode(f:read("a"))
  f:close()
  os.remove(path)
  t.eq(back.gbs[2], 3075.1)
end)

t.case("bad text is one sentence", function()
  t.checkerror("json.decode: invalid JSON at line 1, column", json.decode, "{oops}")
  t.checkerror("json.decode: invalid JSON", json.decode, "")
  t.checkerror("string expected", json.decode, nil)
  t.checkerror("nested deeper than 200 levels", json.decode, string.rep("[", 300) .. string.rep("]", 300))
  t.checkerror("json.decode: number overflow parsing '1e999'", json.decode, "[1e999]")
end)

t.case("200 levels decode; encoding deeper tables is one sentence, not a stack overflow", function()
  t.eq(type(json.decode(string.rep("[", 200) .. string.rep("]", 200))), "table")
  local deep = {}
  local c = deep
  for _ = 1, 100000 do c[1] = {}; c = c[1] end
  t.checkerror("json.encode: nested deeper than 200 levels", json.encode, deep)
end)

t.run()
