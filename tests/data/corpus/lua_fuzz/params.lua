local params = require "warplab.params"
local p = params{block = 256, n = 1 << 20, name = "x", check = true}
local d = params.dims("16x8")
local report = require "warplab.report"
local check = require "warplab.check"
pcall(params.dims, "0x-1")
