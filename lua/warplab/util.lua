-- warplab/util.lua: helpers shared by report, svg and json (internal; scripts use report).
-- Number formatting, display width, the viridis colour ramp, nice axis ticks, XML
-- escaping, and writing a file while creating its directory.
-- Depends on: the Lua 5.4 standard library, warplab.page (a written file is shown on the run's
-- page); the host's optional global `warplab.mkdir`.
local page = require "warplab.page"
local util = {}

-- Shortest decimal text that reads back as the same number ("0.1", not
-- "0.10000000000000001"); nan / inf / -inf spelled out. Used where the value matters
-- more than the look (CSV cells, JSON numbers).
function util.repr(x)
  if math.type(x) == "integer" then return string.format("%d", x) end
  if x ~= x then return "nan" end
  if x == math.huge then return "inf" end
  if x == -math.huge then return "-inf" end
  for digits = 15, 17 do
    local s = string.format("%." .. digits .. "g", x)
    if tonumber(s) == x then return s end
  end
  return string.format("%.17g", x)
end

-- A float for people: about four significant digits in fixed point between 1e-4 and
-- 1e9, scientific outside. Integers are printed whole.
function util.human(x)
  if math.type(x) == "integer" then return string.format("%d", x) end
  if x ~= x then return "nan" end
  if x == math.huge then return "inf" end
  if x == -math.huge then return "-inf" end
  if x == 0 then return "0" end
  local a = math.abs(x)
  if a >= 1e9 or a < 1e-4 then return string.format("%.3e", x) end
  local decimals = 3 - math.floor(math.log(a, 10))
  if decimals < 0 then decimals = 0 elseif decimals > 6 then decimals = 6 end
  return string.format("%." .. decimals .. "f", x)
end

-- Display width of a cell: UTF-8 characters, so "µs" or "±" line up; bytes when the
-- string is not valid UTF-8.
function util.width(s)
  return utf8.len(s) or #s
end

function util.pad_left(s, w) return string.rep(" ", w - util.width(s)) .. s end
function util.pad_right(s, w) return s .. string.rep(" ", w - util.width(s)) end

-- Viridis approximated by linear interpolation between five of its colours: perceptually
-- ordered, readable for colour-blind viewers, and dark-to-bright in grey scale too.
local VIRIDIS = {
  {0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62},
  {0xfd, 0xe7, 0x25},
}

-- t in [0, 1] -> r, g, b in 0..255.
function util.viridis(t)
  if t ~= t or t < 0 then t = 0 elseif t > 1 then t = 1 end
  local pos = t * (#VIRIDIS - 1)
  local i = math.min(math.floor(pos), #VIRIDIS - 2)
  local f = pos - i
  local a, b = VIRIDIS[i + 1], VIRIDIS[i + 2]
  local function mix(k) return math.floor(a[k] + (b[k] - a[k]) * f + 0.5) end
  return mix(1), mix(2), mix(3)
end

function util.hex(r, g, b) return string.format("#%02x%02x%02x", r, g, b) end

-- Nearest colour of the xterm 256-colour 6x6x6 cube (indices 16..231), whose channel
-- levels are 0, 95, 135, 175, 215, 255.
local LEVELS = {0, 95, 135, 175, 215, 255}
local function nearest_level(v)
  local best, best_d = 0, math.huge
  for i, l in ipairs(LEVELS) do
    local d = math.abs(v - l)
    if d < best_d then best, best_d = i - 1, d end
  end
  return best
end

function util.xterm256(r, g, b)
  return 16 + 36 * nearest_level(r) + 6 * nearest_level(g) + nearest_level(b)
end

-- Axis ticks at 1, 2 or 5 times a power of ten, about `n` of them across [lo, hi].
function util.ticks(lo, hi, n)
  if hi < lo then lo, hi = hi, lo end
  if hi == lo then
    local d = (lo == 0) and 1 or math.abs(lo) * 0.5
    lo, hi = lo - d, hi + d
  end
  local raw = (hi - lo) / (n or 5)
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local f = raw / mag
  local step = ((f < 1.5) and 1 or (f < 3) and 2 or (f < 7) and 5 or 10) * mag
  local out = {}
  local first = math.ceil(lo / step - 1e-9)
  local last = math.floor(hi / step + 1e-9)
  for k = first, last do out[#out + 1] = k * step end
  return out, step
end

-- A tick label with as many decimals as the tick step needs ("0.25", "1500", "1e+06").
function util.tick_label(v, step)
  if math.abs(v) < step * 1e-9 then v = 0 end
  local a = math.max(math.abs(v), step)
  if a >= 1e6 or (step < 1e-4) then return string.format("%g", v) end
  local decimals = math.max(0, -math.floor(math.log(step, 10) + 1e-9))
  return string.format("%." .. decimals .. "f", v)
end

local XML = {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;"}
function util.xml(s)
  return (tostring(s):gsub("[&<>\"']", XML))
end

-- Create a directory and its parents: the host's `warplab.mkdir` when it provides one,
-- else `mkdir -p` through the shell (the only portable way from pure Lua).
local function mkdir_p(dir)
  local host = rawget(_G, "warplab")
  if type(host) == "table" and type(host.mkdir) == "function" then
    return pcall(host.mkdir, dir)
  end
  local quoted = "'" .. dir:gsub("'", "'\\''") .. "'"
  return os.execute("mkdir -p " .. quoted .. " 2>/dev/null")
end

-- Write `content` to `path`, creating missing directories, replacing a file there. Under
-- the warplab program through its one writer (`warplab.write_file`: a temporary file
-- renamed into place, never through a symbolic link; a failed write leaves the old file
-- as it was), else with io.open. Raises "<who>: cannot write 'path': reason" at `level`,
-- as error() counts from here (3 = the caller's caller).
function util.write_file(path, content, who, level)
  level = level or 3
  local host = rawget(_G, "warplab")
  if type(host) == "table" and type(host.write_file) == "function" then
    local dir = path:match("^(.*)/[^/]*$")
    if dir and dir ~= "" then mkdir_p(dir) end
    local ok, err = host.write_file(path, content)
    if not ok then error(string.format("%s: %s", who, err), level) end
    page.file(path, content)
    return path
  end
  local f = io.open(path, "wb")
  if not f then
    local dir = path:match("^(.*)/[^/]*$")
    if dir and dir ~= "" then mkdir_p(dir) end
    local err
    f, err = io.open(path, "wb")
    if not f then error(string.format("%s: cannot write '%s': %s", who, path, err), level) end
  end
  local ok, err = f:write(content)
  f:close()
  if not ok then error(string.format("%s: cannot write '%s': %s", who, path, err), level) end
  page.file(path, content)
  return path
end

-- "a number", "a table", ... for error messages.
function util.kind(v)
  local t = math.type(v) or type(v)
  if t == "nil" then return "nil" end
  return ((t == "integer") and "an " or "a ") .. t
end

-- Deep equality of two values, tables entry by entry. On a difference returns false, the
-- path to it ("[4].name", from `where`), and the two values there. `key(k)` writes one
-- path step; by default ".name" for identifiers, "[3]" / '["a b"]' otherwise. Shared by
-- warplab.check (c:eq) and warplab.test (t.eq).
function util.deep_equal(a, b, where, key)
  where = where or ""
  if type(a) ~= "table" or type(b) ~= "table" then
    if a == b then return true end
    return false, where, a, b
  end
  key = key or function(k)
    if type(k) == "string" and k:match("^[%a_][%w_]*$") then return "." .. k end
    return "[" .. (type(k) == "string" and string.format("%q", k) or tostring(k)) .. "]"
  end
  for k, v in pairs(b) do
    local ok, w, x, y = util.deep_equal(a[k], v, where .. key(k), key)
    if not ok then return false, w, x, y end
  end
  for k, v in pairs(a) do
    if b[k] == nil then return false, where .. key(k), v, nil end
  end
  return true
end

return util
