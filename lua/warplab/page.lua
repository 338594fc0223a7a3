-- warplab/page.lua: what a run shows on its page (`warplab watch --serve`, `run --serve`,
-- `run --html`) besides its output: checks, tables, pictures and files, sent as events
-- (internal; report, check and util call it). Under such a run the host sets WARPLAB_PAGE to
-- a marker; an event is one line on stdout, the marker between \30 and \31, then JSON, which
-- the watcher takes out of the output: the terminal shows the event's "text" in its place.
-- Elsewhere page.emit returns false and the caller prints as always.
-- Depends on: the Lua 5.4 standard library only (report, check and util require it).
local page = {}

local marker = os.getenv("WARPLAB_PAGE")
page.on = type(marker) == "string" and #marker == 32 and marker:match("^[0-9a-f]+$") ~= nil

local ESCAPES = {['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n",
                 ["\r"] = "\\r", ["\t"] = "\\t"}

-- JSON text of a string (valid UTF-8 only: the page is UTF-8), number, boolean, list or
-- object; nil and an error for anything else.
local function encode(v, out)
  local t = type(v)
  if t == "string" then
    if not utf8.len(v) then error("not UTF-8", 0) end
    out[#out + 1] = '"' .. v:gsub('[%c"\\]', function(c)
      return ESCAPES[c] or string.format("\\u%04x", c:byte())
    end) .. '"'
  elseif t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then out[#out + 1] = "null"
    elseif math.type(v) == "integer" then out[#out + 1] = string.format("%d", v)
    else out[#out + 1] = string.format("%.17g", v) end
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  elseif t == "table" then
    if next(v) == nil or v[1] ~= nil then
      out[#out + 1] = "["
      for i = 1, #v do
        if i > 1 then out[#out + 1] = "," end
        encode(v[i], out)
      end
      out[#out + 1] = "]"
    else
      out[#out + 1] = "{"
      local first = true
      for k, x in pairs(v) do
        if type(k) ~= "string" then error("a key that is not a string", 0) end
        if not first then out[#out + 1] = "," end
        first = false
        encode(k, out)
        out[#out + 1] = ":"
        encode(x, out)
      end
      out[#out + 1] = "}"
    end
  else
    error("a " .. t, 0)
  end
end

-- An event longer than this is not sent (the caller prints as always): the host takes none
-- over 16 MiB, and an event it drops would take its line off the terminal too.
local MAX_EVENT = 12 * 1024 * 1024

-- Sends `event` (a table with a `kind`); true when sent. With event.text the terminal shows
-- that line (and no other), so a caller that gets true prints nothing itself.
function page.emit(event)
  if not page.on then return false end
  local out = {}
  if not pcall(encode, event, out) then return false end
  local json = table.concat(out)
  if #json > MAX_EVENT then return false end
  io.stdout:write("\30", marker, "\31", json, "\n")
  io.stdout:flush()
  return true
end

-- What a script wrote through warplab's writer: SVG pictures are shown, other files named.
-- Up to 8 MiB of picture (a larger one is only named).
function page.file(path, content)
  if not page.on then return end
  if path:lower():match("%.svg$") and #content <= 8 * 1024 * 1024 then
    if page.emit{kind = "svg", name = path, svg = content} then return end
  end
  page.emit{kind = "file", name = path, bytes = #content}
end

return page
