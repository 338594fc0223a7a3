-- warplab/params.lua: script parameters with typed defaults, overridden from the command
-- line (`warplab run script.lua -p block=128`): `local p = params{block = 256}`.
-- Depends on: the host's optional globals WARPLAB_PARAMS (string key -> string value,
-- filled from -p), WARPLAB_PARAMS_BARE (the script arguments given before `--` that look
-- like key=value: one naming a declared parameter is a forgotten -p), WARPLAB_PARAMS_LIST (`warplab run SCRIPT --params`: params{} records
-- its declaration there and stops the script) and warplab.raise (a -p refusal's kind); and
-- warplab.util, pure Lua: scripts also run under plain lua5.4.
local util = require "warplab.util"
local params = {}

-- Facts about each table params{} returned: declared defaults and which keys -p set.
-- Weak keys: a forgotten result table is collected as usual.
local info = setmetatable({}, {__mode = "k"})

local function kind(v)
  return math.type(v) or type(v)
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

-- Edit distance, to suggest "block" for a mistyped "blcok".
local function distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = {[0] = i}
    for j = 1, #b do
      local cost = (a:sub(i, i) == b:sub(j, j)) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

-- A -p value the declaration refuses: the command line is wrong, not the script. Raised
-- with the kind "parameter" (or `how`: "usage" for a forgotten -p) through the host's
-- warplab.raise, so `warplab run` ends with exit 4 (2) and the sentence alone, whatever its
-- words; error() under plain lua5.4. `level` as error() counts from the caller of refuse.
local function refuse(message, level, how)
  level = level > 0 and level + 1 or 0
  local host = rawget(_G, "warplab")
  if type(host) == "table" and type(host.raise) == "function" then
    host.raise(how or "parameter", message, level)
  end
  error(message, level)
end

-- A value as a sentence shows it: itself up to 200 characters, else its first 80 and its
-- length (a 10 MB -p is not echoed whole).
local function shown(v)
  local s = tostring(v)
  if #s <= 200 then return s end
  return s:sub(1, 80) .. "... (" .. #s .. " characters)"
end

local BOOLEAN = {["true"] = true, ["1"] = true, yes = true, on = true,
                 ["false"] = false, ["0"] = false, no = false, off = false}

-- Parse `raw` (from -p, a string) into the type of `default`; nil when it does not fit.
local function coerce(raw, default)
  local want = kind(default)
  if kind(raw) == want then return raw end
  if want == "string" then return tostring(raw) end
  local s = tostring(raw):match("^%s*(.-)%s*$")
  if want == "boolean" then return BOOLEAN[s:lower()] end
  if want == "integer" then
    local base, shift = s:match("^(%d+)%s*<<%s*(%d+)$") -- "1<<24", as scripts write sizes
    if base then
      local b, n = math.tointeger(tonumber(base)), math.tointeger(tonumber(shift))
      return (b and n and n < 63) and (b << n) or nil
    end
    local x = tonumber(s)
    return x and math.tointeger(x) -- "1e6" is fine, "2.5" is not
  end
  local x = tonumber(s) -- want == "float": "2" becomes 2.0, as the default's type
  return x and x + 0.0
end

-- How errors and help text name each kind of default (math.type's "float" is a
-- "number" to users).
local TYPE_WORDS = {integer = "an integer", float = "a number", boolean =
                    "a boolean (true/false, 1/0, yes/no, on/off)", string = "a string"}
local TYPE_NAMES = {integer = "integer", float = "number", boolean = "boolean", string = "string"}

local meta = {}

-- Reading an undeclared parameter is a typo, not a nil.
function meta.__index(p, key)
  error(string.format("params: '%s' is not a declared parameter (declared: %s)", tostring(key),
                      table.concat(sorted_keys(info[p].defaults), ", ")), 2)
end

-- One line with every value, strings quoted: what a run log should record.
function meta.__tostring(p)
  local parts = {}
  for _, k in ipairs(sorted_keys(info[p].defaults)) do
    local v = rawget(p, k)
    parts[#parts + 1] = k .. "=" .. (type(v) == "string" and string.format("%q", v) or tostring(v))
  end
  return "params{" .. table.concat(parts, ", ") .. "}"
end

-- params{key = default, ...} -> table of values. `level` as error() counts from here.
local function declare(decl, level)
  if type(decl) ~= "table" then
    error("params: expected a table of defaults, like params{block = 256}, got " .. kind(decl),
          level)
  end
  local defaults = {}
  for k, v in pairs(decl) do
    if type(k) ~= "string" then
      error("params: parameter names are strings, got " .. kind(k) .. " " .. tostring(k), level)
    end
    if not TYPE_WORDS[kind(v)] then
      error(string.format("params: '%s' has a %s default; parameters are integers, numbers, "
                          .. "booleans or strings", k, kind(v)), level)
    end
    defaults[k] = v
  end
  -- `warplab run SCRIPT --params`: the declaration is the answer; the script goes no
  -- further (the host prints the list and ignores this error).
  local list = rawget(_G, "WARPLAB_PARAMS_LIST")
  if type(list) == "table" then
    local declared = {}
    for _, k in ipairs(sorted_keys(defaults)) do
      local d = defaults[k]
      declared[#declared + 1] = {name = k, type = TYPE_NAMES[kind(d)],
                                 default = type(d) == "string" and string.format("%q", d) or tostring(d)}
    end
    list.declared = declared
    error("params: listed", level)
  end
  local overrides = rawget(_G, "WARPLAB_PARAMS") or {}
  if type(overrides) ~= "table" then
    error("params: WARPLAB_PARAMS is " .. kind(overrides) .. ", expected a table", level)
  end
  -- Errors about -p values are refusals (refuse above): warplab run reports them as bad
  -- input (exit 4, no traceback: the command line is wrong, not the script).
  -- An unknown -p key is an error rather than ignored: a mistyped "-p blok=128" would
  -- otherwise run the default silently and report numbers for the wrong setting.
  -- Sorted keys: with several bad -p, the same one is reported every time.
  local p, set = {}, {}
  for k, v in pairs(defaults) do p[k] = v end
  for _, k in ipairs(sorted_keys(overrides)) do
    local raw, default = overrides[k], defaults[k]
    if default == nil then
      local hint = ""
      for _, d in ipairs(sorted_keys(defaults)) do
        if distance(tostring(k), d) <= 2 then hint = " (did you mean '" .. d .. "'?)"; break end
      end
      local declared = next(defaults) and table.concat(sorted_keys(defaults), ", ") or "none"
      refuse(string.format("params: -p %s: unknown parameter%s; "
                           .. "this script declares: %s", shown(k), hint, declared), level)
    end
    local v = coerce(raw, default)
    if v == nil then
      refuse(string.format("params: -p %s=%s: expected %s, like the default %s", k, shown(raw),
                           TYPE_WORDS[kind(default)], tostring(default)), level)
    end
    p[k], set[k] = v, true
  end
  -- `warplab run first.lua n=4096`: a script argument before `--` that names a declared
  -- parameter is a forgotten -p, not a value to run the default with silently. After
  -- `--` it stays the script's argument (the host lists only the words before it).
  local bare = rawget(_G, "WARPLAB_PARAMS_BARE")
  if type(bare) == "table" then
    for _, word in ipairs(bare) do
      local k = type(word) == "string" and word:match("^([%a_][%w_]*)=")
      if k and defaults[k] ~= nil then
        refuse(string.format("params: the argument %s names the parameter %s: pass it as -p %s "
                             .. "(after --, it stays a script argument)", shown(word), k, shown(word)), level, "usage")
      end
    end
  end
  -- Values live in p itself (plain reads, pairs() works); the metatable only catches
  -- reads of undeclared names, and `info` remembers defaults for describe().
  info[p] = {defaults = defaults, set = set}
  return setmetatable(p, meta)
end

-- params.dims("16x8") -> {16, 8, 1}: 1 to 3 positive integers joined by "x" (or a number,
-- or a list of 1 to 3 numbers), padded with 1s. For block and grid shapes.
function params.dims(v)
  -- Collect the pieces first (false for one that is not a number), then validate all
  -- of them in one place so every bad form gets the same message.
  local parts = {}
  if type(v) == "string" then
    for piece in (v .. "x"):gmatch("(.-)[xX]") do
      parts[#parts + 1] = tonumber(piece) or false
    end
  elseif type(v) == "number" then
    parts[1] = v
  elseif type(v) == "table" then
    for i = 1, #v do parts[i] = v[i] end
  end
  local ok = #parts >= 1 and #parts <= 3
  for i = 1, #parts do
    local x = type(parts[i]) == "number" and math.tointeger(parts[i])
    if not x or x < 1 then ok = false else parts[i] = x end
  end
  if not ok then
    local shown = type(v) == "string" and ("'" .. v .. "'") or tostring(v)
    error("params.dims: " .. shown .. " is not a size: expected 1 to 3 positive integers "
          .. "joined by x, like 256, 16x8 or 8x8x4", 2)
  end
  for i = #parts + 1, 3 do parts[i] = 1 end
  return parts
end

-- Help text: one line per parameter with its type and value, and what -p changed.
-- Takes a table from params{} or a plain declaration table.
function params.describe(p)
  if type(p) ~= "table" then error("params.describe: expected a table, got " .. kind(p), 2) end
  local i = info[p] or {defaults = p, set = {}}
  local keys = sorted_keys(i.defaults)
  local w = 0
  for _, k in ipairs(keys) do w = math.max(w, #k) end
  local lines = {"parameters (override with -p key=value):"}
  if #keys == 0 then lines[2] = "  (none)" end
  for _, k in ipairs(keys) do
    local d = i.defaults[k]
    local v = rawget(p, k)
    local line = string.format("  %-" .. w .. "s  %-7s  %s", k, TYPE_NAMES[kind(d)], tostring(v))
    if i.set[k] then line = line .. "  (default " .. tostring(d) .. ")" end
    lines[#lines + 1] = line
  end
  return table.concat(lines, "\n")
end

-- The module is callable, so scripts write params{...}; params.dims and
-- params.describe hang off the same table.
return setmetatable(util.api("params", params), {
  __call = function(_, decl)
    local p = declare(decl, 3) -- 3: declare -> this __call -> the script's line
    return p
  end,
})
