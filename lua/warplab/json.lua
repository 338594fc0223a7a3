-- warplab/json.lua: JSON for results: the encoder (used by report.json and report.save),
-- and json.decode(text) (nlohmann's parser, in C++) with json.null for JSON's null.
-- Tables with only positive integer keys become arrays (holes -> null), others objects
-- with sorted keys; NaN and infinities become null; strings must be UTF-8.
-- Depends on: warplab.util (number text).
local util = require "warplab.util"

local json = {}

local ESCAPES = {
  ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
}

-- The two-character escapes JSON defines, else \u00XX for the remaining control
-- characters; everything else (UTF-8 included) is written as it is.
local function escape_char(c)
  return ESCAPES[c] or string.format("\\u%04x", c:byte())
end

-- Raised errors name the place in the value, JSONPath style: "$.rows[3].name".
local function fail(path, msg)
  error({json_error = string.format("%s at %s", msg, path)})
end

-- JSON text must be UTF-8; a Lua string may hold any bytes, so check rather than
-- write a file that other tools refuse.
local function encode_string(s, path)
  if not utf8.len(s) then fail(path, "string is not valid UTF-8") end
  return '"' .. s:gsub('[%c"\\]', escape_char) .. '"'
end

local function encode_number(x)
  if x ~= x or x == math.huge or x == -math.huge then return "null" end
  local s = util.repr(x)
  -- Keep floats recognisable as floats on the way back ("2.0", not "2").
  if math.type(x) == "float" and not s:find("[%.eE]") then s = s .. ".0" end
  return s
end

-- Decide array vs object. A table is an array when every key is a positive integer and
-- the largest is not far beyond the count (so {[1e9] = 1} does not become a billion
-- nulls). The empty table is an array: rows of results are the common case.
local function array_length(t)
  local count, max = 0, 0
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 then return nil end
    count = count + 1
    if k > max then max = k end
  end
  if max > 2 * count + 8 then return nil end
  return max
end

local encode_value -- forward: tables and values recurse into each other

local function encode_table(t, path, seen, indent, depth)
  -- `seen` holds the tables on the current path only (cleared on the way out), so a
  -- table shared by two rows is fine and only true cycles are refused.
  if seen[t] then fail(path, "cycle (a table contains itself)") end
  if depth > 200 then fail(path, "nested deeper than 200 levels") end
  seen[t] = true
  local nl, pad, pad_in, sep = "", "", "", ":"
  if indent then
    nl = "\n"
    pad = string.rep(" ", indent * depth)
    pad_in = string.rep(" ", indent * (depth + 1))
    sep = ": "
  end
  local parts = {}
  local n = array_length(t)
  local out
  if n then
    for i = 1, n do
      parts[i] = pad_in .. encode_value(t[i], path .. "[" .. i .. "]", seen, indent, depth + 1)
    end
    out = (n == 0) and "[]" or ("[" .. nl .. table.concat(parts, "," .. nl) .. nl .. pad .. "]")
  else
    local keys = {}
    for k in pairs(t) do
      local kt = type(k)
      if kt ~= "string" and kt ~= "number" then
        fail(path, "table key of type " .. kt .. " (JSON keys are strings)")
      end
      keys[#keys + 1] = k
    end
    -- Sorted keys make the file stable from run to run; numbers sort before strings.
    table.sort(keys, function(a, b)
      local ta, tb = type(a), type(b)
      if ta ~= tb then return ta == "number" end
      return a < b
    end)
    for i, k in ipairs(keys) do
      local ks = (type(k) == "number") and util.repr(k) or k
      local sub = path .. "." .. ks
      parts[i] = pad_in .. encode_string(ks, sub) .. sep
                 .. encode_value(t[k], sub, seen, indent, depth + 1)
    end
    out = "{" .. nl .. table.concat(parts, "," .. nl) .. nl .. pad .. "}"
  end
  seen[t] = nil
  return out
end

function encode_value(v, path, seen, indent, depth)
  local t = type(v)
  if t == "nil" or (json.null ~= nil and v == json.null) then return "null"
  elseif t == "boolean" then return v and "true" or "false"
  elseif t == "number" then return encode_number(v)
  elseif t == "string" then return encode_string(v, path)
  elseif t == "table" then return encode_table(v, path, seen, indent, depth)
  end
  fail(path, "cannot encode " .. util.kind(v))
end

-- Run an encoder, turning its failures into one-sentence errors raised at `level`
-- counted from the public function (2 = the caller of json.encode).
local function protect(who, level, fn, ...)
  local ok, res = pcall(fn, ...)
  if ok then return res end
  if type(res) == "table" and res.json_error then
    error(who .. ": " .. res.json_error, level + 1)
  end
  error(res, 0)
end

-- json.encode(value [, {indent = N}] [, level, who]) -> string. `level` and `who` let
-- report.json and report.save blame the script's line and name themselves.
function json.encode(value, opts, level, who)
  who = type(who) == "string" and who or "json.encode"
  level = math.type(level) == "integer" and level or 2
  opts = util.options(opts, who)
  -- A whole number of spaces from 0 to 16 (0: one entry a line); false or nil: compact.
  local indent = opts.indent or nil
  if indent ~= nil then
    indent = type(indent) == "number" and math.tointeger(indent)
    if not indent or indent < 0 or indent > 16 then
      error(string.format("%s: opts.indent must be a whole number of spaces from 0 to 16, got %s", who,
                          type(opts.indent) == "number" and util.repr(opts.indent) or util.kind(opts.indent)), 0)
    end
  end
  local s = protect(who, level, encode_value, value, "$", {}, indent, 0)
  return s -- not a tail call: protect counts this frame
end

-- One element of a top-level array per line: compact, yet diffs line by line.
local function encode_rows(value)
  local n = type(value) == "table" and array_length(value)
  if not n or n == 0 then return encode_value(value, "$", {}, nil, 0) .. "\n" end
  local parts = {}
  for i = 1, n do parts[i] = "  " .. encode_value(value[i], "$[" .. i .. "]", {}, nil, 0) end
  return "[\n" .. table.concat(parts, ",\n") .. "\n]\n"
end

function json.encode_lines(value, level, who)
  local s = protect(who or "json.encode_lines", level or 2, encode_rows, value)
  return s -- not a tail call: protect counts this frame
end

-- json.decode(text) -> value: objects are tables, arrays lists, null is json.null;
-- invalid JSON raises "json.decode: invalid JSON at line L, column C: ...".
do
  local ok, c = pcall(require, "warplab.json_c")  -- absent only outside warplab's binary
  if ok then
    json.decode = c.decode
    json.null = c.null
  end
end

return util.api("json", json)
