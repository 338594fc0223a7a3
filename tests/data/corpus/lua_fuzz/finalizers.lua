setmetatable({}, {__gc = function() while true do end end})
local t = setmetatable({}, {__close = function() K:occupancy(32) end})
