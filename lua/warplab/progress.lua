-- warplab/progress.lua: a progress bar on stderr for long sweeps, redrawn in place:
-- `local p = progress.new(#sizes, "block sweep"); for ... do p:step() end; p:done()`.
-- Silent unless stderr is a terminal (the host's global `warplab_tty_err`), so logs and
-- pipes stay clean. Depends on: warplab.util; optional host `warplab.now()`.
local util = require "warplab.util"
local progress = {}

local Bar = {}
Bar.__index = Bar
local draw -- defined below, after the bar's text

-- Wall-clock seconds: the host's clock when it offers one, else os.time (whole seconds,
-- enough for an estimate on sweeps long enough to need a bar).
local function now()
  local host = rawget(_G, "warplab")
  if type(host) == "table" and type(host.now) == "function" then return host.now() end
  return os.time()
end

-- progress.new(total [, label [, {enabled=, out=, width=}]]) -> bar.
function progress.new(total, label, opts)
  if math.type(total) ~= "integer" or total < 0 then
    error("progress.new: total must be a non-negative integer, got " .. tostring(total), 2)
  end
  if label ~= nil and type(label) ~= "string" then
    error("progress.new: label must be a string, got " .. type(label), 2)
  end
  opts = util.options(opts, "progress.new")
  local enabled = opts.enabled
  if enabled == nil then enabled = rawget(_G, "warplab_tty_err") == true end
  local bar = setmetatable({
    total = total, label = label or "", count = 0, enabled = enabled,
    out = opts.out or io.stderr, width = opts.width or 30,
    started = now(), shown = -1, drawn_len = 0, finished = false,
  }, Bar)
  draw(bar)
  return bar
end

local function text(self)
  local frac = (self.total == 0) and 1 or self.count / self.total
  local fill = math.floor(frac * self.width + 1e-9)
  local line = string.format("%s%s[%s%s] %d/%d %3d%%", self.label, (self.label ~= "") and " " or "",
                             string.rep("#", fill), string.rep("-", self.width - fill),
                             self.count, self.total, math.floor(frac * 100 + 1e-9))
  local elapsed = now() - self.started
  if self.count > 0 and self.count < self.total and elapsed >= 2 then
    local eta = math.ceil(elapsed * (self.total - self.count) / self.count)
    line = line .. string.format("  eta %ds", eta)
  end
  return line
end

-- Redraw only when the whole percentage changes: at most ~100 writes per sweep.
function draw(self)
  if not self.enabled or self.finished then return end
  local pct = (self.total == 0) and 100 or (self.count * 100) // self.total
  if pct == self.shown then return end
  self.shown = pct
  local line = text(self)
  local len = utf8.len(line) or #line
  -- "\r" returns to column 0; trailing spaces erase a longer previous line.
  self.out:write("\r", line, string.rep(" ", math.max(0, self.drawn_len - len)))
  self.out:flush()
  self.drawn_len = len
end

-- p:step([n]) advances by n (default 1), never past total.
function Bar:step(n)
  n = n or 1
  if math.type(n) ~= "integer" or n < 0 then
    error("progress:step: n must be a non-negative integer, got " .. tostring(n), 2)
  end
  self.count = math.min(self.total, self.count + n)
  draw(self)
end

-- p:done() erases the bar (results printed next start on a clean line). Idempotent;
-- also runs for `local p <close> = progress.new(...)` when the block ends.
function Bar:done()
  if self.finished then return end
  self.finished = true
  if self.enabled and self.drawn_len > 0 then
    self.out:write("\r", string.rep(" ", self.drawn_len), "\r")
    self.out:flush()
  end
end

Bar.__close = Bar.done

return util.api("progress", progress, Bar, "progress")
