local m, text, diags = cuda.compile{source = "__global__ void g(int* p) { p[0] = missing; }", name = "g.cu"}
local n = diags and #diags
local ok = cuda.compile{source = "__global__ void h(double* d) { d[0] = X; }", defines = {X = 2.5, Y = true, "Z=3"}, std = "c++20", max_registers = 32, lineinfo = true}
local w = ok and ok.h
if w then w:occupancy(64) end
pcall(cuda.compile, {source = "x", bogus = 1})
pcall(cuda.compile, {file = "nonexistent.cu"})
local r = M.kernels[1]
