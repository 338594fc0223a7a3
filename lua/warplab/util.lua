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

-- Text for an SVG (XML 1.0) document, which must be UTF-8 without control characters
-- other than tab, newline and return: a control character is written as its picture
-- (ESC as U+241B, NUL as U+2400), a byte that is not UTF-8, and U+FFFE / U+FFFF, as U+FFFD;
-- the five markup characters as entities. A file with a raw ESC or a stray byte is not
-- XML: browsers refuse to show it.
local XML = {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;"}
local REPLACEMENT = utf8.char(0xFFFD)
-- One lead byte and the continuation bytes after it.
local function xml_char(c)
  local b = c:byte()
  local len = b < 0x80 and 1 or b >= 0xF0 and 4 or b >= 0xE0 and 3 or 2
  local head = c:sub(1, len)
  local out
  if len == 1 then
    out = (b < 0x20 and b ~= 9 and b ~= 10 and b ~= 13) and utf8.char(0x2400 + b) or XML[head] or head
  elseif #head == len and utf8.len(head) == 1 then
    out = (head == "\239\191\190" or head == "\239\191\191") and REPLACEMENT or head
  else
    return REPLACEMENT:rep(#c)
  end
  return out .. REPLACEMENT:rep(#c - len)
end
function util.xml(s)
  s = tostring(s)
  if utf8.len(s) and not s:find("[%z\1-\8\11\12\14-\31&<>\"']") and not s:find("\239\191[\190\191]") then
    return s
  end
  local lead = s:match("^[\128-\191]*") -- continuation bytes with no lead before them
  return REPLACEMENT:rep(#lead) .. s:sub(#lead + 1):gsub("[%z\1-\127\192-\255][\128-\191]*", xml_char)
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

-- The options table of a public function: {} for nil; anything else is a misuse,
-- raised as "<who>: the options must be a table ..." (util.api puts it at the script's
-- line).
function util.options(opts, who)
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    error(string.format("%s: the options must be a table, like {title = \"x\"}, got %s", who,
                        util.kind(opts)), 0)
  end
  return opts
end

-- A size option (pixels, characters): `default` when nil, else a whole number from 1 to
-- `max`. A fraction, a string or 1e308 would end in string.format deep inside the
-- library, or write a picture nobody can open.
function util.size(v, name, who, default, max)
  if v == nil then return default end
  local n = type(v) == "number" and math.tointeger(v)
  if not n or n < 1 or n > max then
    error(string.format("%s: %s must be a whole number from 1 to %d, got %s", who, name, max,
                        type(v) == "number" and util.repr(v) or util.kind(v)), 0)
  end
  return n
end

-- Deep equality of two values, tables entry by entry. On a difference returns false, the
-- path to it ("[4].name", from `where`), and the two values there. `key(k)` writes one
-- path step; by default ".name" for identifiers, "[3]" / '["a b"]' otherwise. Shared by
-- warplab.check (c:eq) and warplab.test (t.eq).
-- A table is equal to itself at once, and a pair of tables met again (a table that
-- contains itself, two cycles, a shared sub-table) counts as equal where it recurs: only
-- a difference somewhere makes two values differ, so cycles end. The walk keeps its own
-- stack (no Lua recursion: nesting of any depth is compared, never "stack overflow") and
-- writes the path only when it found a difference.
local function default_key(k)
  if type(k) == "string" and k:match("^[%a_][%w_]*$") then return "." .. k end
  return "[" .. (type(k) == "string" and string.format("%q", k) or tostring(k)) .. "]"
end

function util.deep_equal(a, b, where, key)
  where = where or ""
  if type(a) ~= "table" or type(b) ~= "table" then
    if a == b then return true end
    return false, where, a, b
  end
  if rawequal(a, b) then return true end
  key = key or default_key
  local seen = {[a] = {[b] = true}} -- pairs of tables compared (or being compared)
  -- A frame: the tables, the step that led here (parent frame and key), and where the
  -- walk is: first over b's keys (through pairs, so __pairs is honoured), then a's.
  local top = {a = a, b = b, stage = 1}
  top.f, top.s, top.k = pairs(b)
  local function path(frame, k)
    local steps = {key(k)}
    while frame.parent do
      steps[#steps + 1] = key(frame.key)
      frame = frame.parent
    end
    local out = {where}
    for i = #steps, 1, -1 do out[#out + 1] = steps[i] end
    return table.concat(out)
  end
  while top do
    local k, v = top.f(top.s, top.k)
    top.k = k
    if k == nil then
      if top.stage == 1 then -- b's keys done: now the keys only a has
        top.stage = 2
        top.f, top.s, top.k = pairs(top.a)
      else
        top = top.parent
      end
    elseif top.stage == 2 then
      if top.b[k] == nil then return false, path(top, k), v, nil end
    else
      local x = top.a[k]
      if type(x) == "table" and type(v) == "table" then
        local with = seen[x]
        if not rawequal(x, v) and not (with and with[v]) then
          if not with then with = {}; seen[x] = with end
          with[v] = true
          local child = {a = x, b = v, stage = 1, parent = top, key = k}
          child.f, child.s, child.k = pairs(v)
          top = child
        end
      elseif x ~= v then
        return false, path(top, k), x, v
      end
    end
  end
  return true
end

-- The library's files, as error messages name them (short_src); each module adds its
-- own through util.api or util.internal.
local LIBRARY = {[debug.getinfo(1, "S").short_src] = true}

-- Where an error message says it was raised: "file" of "file:line: text", else nil.
local function raised_in(msg)
  return msg:match("^([^\n]-):%d+: ")
end

-- True when `msg` was raised inside the library rather than at the script's line.
local function from_library(msg)
  local src = raised_in(msg)
  return src ~= nil and (LIBRARY[src] or src:find("warplab/[%w_]+%.lua$") ~= nil)
end

-- Lua's own words for a value of the wrong kind or size, raised by the VM or a standard
-- function deep inside the library.
local MISUSE = {
  "^attempt to ", "^bad argument #", "no integer representation", "^table index is ", "^invalid ",
  "^wrong number of arguments", "^string length overflow", "^'for' ", "^bad 'for' ", "^resulting string too large",
  "^malformed pattern", "^unfinished capture", "^missing '%[' ", "^string slice too long",
}
local function misuse(text)
  for _, p in ipairs(MISUSE) do
    if text:find(p) then return true end
  end
  return false
end

-- What a public function raised, raised again at its caller's line (the script's): a
-- misuse the function did not check itself (a string where a number goes, a size with
-- a fraction) ends somewhere inside the library, and "svg.lua:24: bad argument #2 to
-- 'format'" names neither the call nor the script's line: it becomes "<script>:<line>:
-- report.svg_lines: cannot use these arguments (...)". The library's own sentences
-- ("stats.mean: the sample is empty") are raised at the script's line whatever frames
-- lie between. Anything else (a callback's own error, an interrupt, a table) passes
-- through as it was. `rethrow` is tail-called by the wrapper: level 2 is the script.
local function rethrow(name, ok, ...)
  if ok then return ... end
  local e = ...
  if type(e) ~= "string" then error(e, 0) end
  local named = "^[%w_]+[.:]?[%w_]*: "
  if not raised_in(e) then -- aimed at a frame that is gone, or raised by a C function
    if e:find(named) then error(e, 2) end
    if misuse(e) then error(name .. ": cannot use these arguments (" .. e .. ")", 2) end
    error(e, 0)
  end
  if not from_library(e) then error(e, 0) end
  local text = e:gsub("^[^\n]-:%d+: ", "", 1)
  if misuse(text) then error(name .. ": cannot use these arguments (" .. text .. ")", 2) end
  if text:find(named) then error(text, 2) end
  error(e, 0)
end

local function wrap(name, f)
  return function(...) return rethrow(name, pcall(f, ...)) end
end

-- util.api("stats", stats) -> stats, each function field wrapped so that what it raises
-- names the script's line (rethrow); `methods` (a metatable's method table, optional)
-- likewise, named "prefix:method". Called once at the end of each public module.
function util.api(prefix, module, methods, method_prefix)
  LIBRARY[debug.getinfo(2, "S").short_src] = true
  for k, v in pairs(module) do
    if type(v) == "function" and type(k) == "string" then module[k] = wrap(prefix .. "." .. k, v) end
  end
  for k, v in pairs(methods or {}) do
    if type(v) == "function" and type(k) == "string" and not k:find("^__") then
      methods[k] = wrap((method_prefix or prefix) .. ":" .. k, v)
    end
  end
  return module
end

-- An internal module (svg, heatmap): its file counts as the library's.
function util.internal(module)
  LIBRARY[debug.getinfo(2, "S").short_src] = true
  return module
end

return util
