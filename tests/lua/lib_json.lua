-- lib_json.lua: report.json: exact text for each kind of value (escaping, arrays vs
-- objects, NaN/inf -> null) and a round trip through a small decoder written here.
-- Depends on: warplab.report, warplab.test.
local t = require "warplab.test"
local report = require "warplab.report"

-- A strict little JSON decoder (objects, arrays, strings with escapes incl. \uXXXX and
-- surrogate pairs, numbers, true/false/null -> nil). Enough to read back what
-- report.json writes; raises on anything malformed.
local function decode(text)
  local pos = 1
  local function fail(what) error(string.format("bad JSON at %d: %s", pos, what), 0) end
  local function ws() pos = text:find("[^ \t\r\n]", pos) or #text + 1 end
  local value
  local function str()
    local out = {}
    pos = pos + 1
    while true do
      local c = text:sub(pos, pos)
      if c == "" then fail("unterminated string") end
      if c == '"' then pos = pos + 1; return table.concat(out) end
      if c:byte() < 0x20 then fail("raw control character") end
      if c == "\\" then
        local e = text:sub(pos + 1, pos + 1)
        local simple = {['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t"}
        if simple[e] then out[#out + 1] = simple[e]; pos = pos + 2
        elseif e == "u" then
          local cp = tonumber(text:sub(pos + 2, pos + 5), 16) or fail("bad \\u")
          pos = pos + 6
          if cp >= 0xD800 and cp <= 0xDBFF and text:sub(pos, pos + 1) == "\\u" then
            local lo = tonumber(text:sub(pos + 2, pos + 5), 16)
            cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
            pos = pos + 6
          end
          out[#out + 1] = utf8.char(cp)
        else fail("bad escape") end
      else
        out[#out + 1] = c; pos = pos + 1
      end
    end
  end
  function value()
    ws()
    local c = text:sub(pos, pos)
    if c == "{" then
      local obj = {}
      pos = pos + 1; ws()
      if text:sub(pos, pos) == "}" then pos = pos + 1; return obj end
      repeat
        ws()
        if text:sub(pos, pos) ~= '"' then fail("key") end
        local k = str(); ws()
        if text:sub(pos, pos) ~= ":" then fail("colon") end
        pos = pos + 1
        obj[k] = value(); ws()
        local d = text:sub(pos, pos); pos = pos + 1
      until d ~= ","
      if text:sub(pos - 1, pos - 1) ~= "}" then fail("object end") end
      return obj
    elseif c == "[" then
      local arr, n = {}, 0
      pos = pos + 1; ws()
      if text:sub(pos, pos) == "]" then pos = pos + 1; return arr end
      repeat
        n = n + 1
        arr[n] = value(); ws()
        local d = text:sub(pos, pos); pos = pos + 1
      until d ~= ","
      if text:sub(pos - 1, pos - 1) ~= "]" then fail("array end") end
      return arr
    elseif c == '"' then return str()
    elseif text:find("^true", pos) then pos = pos + 4; return true
    elseif text:find("^false", pos) then pos = pos + 5; return false
    elseif text:find("^null", pos) then pos = pos + 4; return nil
    end
    local num = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos) or fail("value")
    pos = pos + #num
    return math.tointeger(num) or tonumber(num)
  end
  local v = value(); ws()
  if pos <= #text then fail("trailing text") end
  return v
end

t.case("json: scalars", function()
  t.eq(report.json(nil), "null")
  t.eq(report.json(true), "true")
  t.eq(report.json(42), "42")
  t.eq(report.json(-7), "-7")
  t.eq(report.json(0.1), "0.1")
  t.eq(report.json(2.0), "2.0")
  t.eq(report.json(1e300), "1e+300")
  t.eq(report.json(0 / 0), "null")
  t.eq(report.json(1 / 0), "null")
  t.eq(report.json(-1 / 0), "null")
  t.eq(report.json(math.maxinteger), "9223372036854775807")
end)

t.case("json: string escaping", function()
  t.eq(report.json('a"b\\c'), [["a\"b\\c"]])
  t.eq(report.json("\n\r\t\b\f"), [["\n\r\t\b\f"]])
  t.eq(report.json("\1\31\127"), [["\u0001\u001f\u007f"]])
  t.eq(report.json("µs ± 1"), '"µs ± 1"') -- UTF-8 passes through
  t.eq(report.json("/"), '"/"')
end)

t.case("json: arrays, objects, nesting, sorted keys", function()
  t.eq(report.json({1, 2, 3}), "[1,2,3]")
  t.eq(report.json({}), "[]")
  t.eq(report.json({b = 1, a = {x = true}, c = "s"}), [[{"a":{"x":true},"b":1,"c":"s"}]])
  t.eq(report.json({1, nil, 3}), "[1,null,3]")
  t.eq(report.json({[1] = "a", [5] = "b"}), '["a",null,null,null,"b"]')
  t.eq(report.json({[1] = 1, x = 2}), [[{"1":1,"x":2}]])
  t.eq(report.json({[1e9] = 1}), [[{"1000000000":1}]])
  t.eq(report.json({{}, {{}}}), "[[],[[]]]")
end)

t.case("json: indent option", function()
  t.eq(report.json({a = {1, 2}}, {indent = 2}), '{\n  "a": [\n    1,\n    2\n  ]\n}')
end)

t.case("json: round trip through a decoder", function()
  local value = {
    name = "clock \"sweep\"\n\ttab", n = 256, ms = 0.24103, big = 1.5e-12,
    rows = {{block = 32, ok = true}, {block = 64, ok = false}},
    unicode = "warp ✓ 𝛑", ctrl = "\0\1\2",
  }
  t.eq(decode(report.json(value)), value)
  t.eq(decode(report.json(value, {indent = 4})), value)
  local f = 0.1 + 0.2 -- needs 17 digits to come back exactly
  t.eq(decode(report.json({f}))[1], f)
end)

t.case("json: what cannot be encoded is named with its place", function()
  t.checkerror("report.json: cannot encode a function at $.rows[2].f", report.json,
               {rows = {{}, {f = print}}})
  local cyc = {}
  cyc.self = cyc
  t.checkerror("report.json: cycle (a table contains itself) at $.self", report.json, cyc)
  t.checkerror("report.json: string is not valid UTF-8 at $[1]", report.json, {"\xff"})
  t.checkerror("report.json: table key of type boolean", report.json, {[true] = 1})
  local shared = {1}
  t.eq(report.json({shared, shared}), "[[1],[1]]", "a table used twice is not a cycle")
end)

t.case("json: the decoder itself rejects malformed text", function()
  t.checkerror("bad JSON", decode, "[1,")
  t.checkerror("bad JSON", decode, '"\1"')
  t.checkerror("trailing text", decode, "1 2")
end)

t.run{exit = true}
