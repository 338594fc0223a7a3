-- compile.lua: cuda.compile's path and table forms with every field wrong (types, NaN,
-- infinities, negative, huge and fractional numbers, NUL bytes, empty strings, files
-- that are folders or devices), and modules after :free(). Misuse raises one sentence;
-- a source that does not compile returns nil and the diagnostics.
local cases = require "support.cases"
local ok_src = "__global__ void q(int* p) { p[0] = 1; }"
local function compile(t) t.source = t.source or ok_src; return cuda.compile(t) end
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))

cases.errors{
  {"compile(nil)", "table expected, got nil", function() return cuda.compile(nil) end},
  {"compile()", "table expected, got no value", function() return cuda.compile() end},
  {"compile(42)", "table expected, got number", function() return cuda.compile(42) end},
  {"compile(true)", "table expected, got boolean", function() return cuda.compile(true) end},
  {"compile{}", "cuda.compile: give exactly one of file= or source=", function() return cuda.compile{} end},
  {"compile{file, source}", "give exactly one of file= or source=", function() return cuda.compile{file = "x.cu", source = ok_src} end},
  {"compile{bogus}", "cuda.compile: unknown field 'bogus' (fields: file, source", function() return compile{bogus = 1} end},
  {"compile{[1] = x}", "cuda.compile: unknown field", function() return compile{"x"} end},
  {"source = 5", "source", function() return cuda.compile{source = 5} end},
  {"source = {}", "source", function() return cuda.compile{source = {}} end},
  {"source = ''", "cuda.compile: source= is empty: no kernel to compile", function() return cuda.compile{source = ""} end},
  {"file = 5", "file", function() return cuda.compile{file = 5} end},
  {"file = true", "file", function() return cuda.compile{file = true} end},
  {"file = ''", "give exactly one of file= or source=", function() return cuda.compile{file = ""} end},
  {"name = 5", "name", function() return compile{name = 5} end},
  {"name = {}", "name", function() return compile{name = {}} end},
  {"defines = 'X'", "defines", function() return compile{defines = "X"} end},
  {"defines = 5", "defines", function() return compile{defines = 5} end},
  {"defines {['1x'] = 1}", "defines: '1x' is not a macro name", function() return compile{defines = {["1x"] = 1}} end},
  {"defines {['a b'] = 1}", "is not a macro name", function() return compile{defines = {["a b"] = 1}} end},
  {"defines {''}", "a macro definition needs a name", function() return compile{defines = {""}} end},
  {"defines {'=1'}", "a macro definition needs a name", function() return compile{defines = {"=1"}} end},
  {"defines {X = {}}", "defines", function() return compile{defines = {X = {}}} end},
  {"defines {X = print}", "defines", function() return compile{defines = {X = print}} end},
  {"defines {[true] = 1}", "defines", function() return compile{defines = {[true] = 1}} end},
  {"defines {{}}", "defines", function() return compile{defines = {{}}} end},
  {"defines {5}", "defines", function() return compile{defines = {5}} end},
  {"include = 5", "cuda.compile: include must be a string or a list of strings", function() return compile{include = 5} end},
  {"options = {5}", "cuda.compile: options: '5' is not an option (options start with -)", function() return compile{options = {5}} end},
  {"options = {'--bogus'}", "cuda.compile: options: '--bogus' is not among the options warplab passes to NVRTC", function() return compile{options = {"--bogus"}} end},
  {"options = {'-dlto'}", "cuda.compile: options: '-dlto' gives no cubin warplab can load", function() return compile{options = {"-dlto"}} end},
  {"options = {'-arch=sm_75'}", "'-arch=sm_75' chooses the architecture, which goes in the arch field", function() return compile{options = {"-arch=sm_75"}} end},
  {"options = {'-O3'}", "'-O3' is not an NVRTC option; ptxas's is -Xptxas -O3", function() return compile{options = {"-O3"}} end},
  {"include = {{}}", "cuda.compile: include[1] must be a string", function() return compile{include = {{}}} end},
  {"include = {'a', true}", "cuda.compile: include[2] must be a string", function() return compile{include = {"a", true}} end},
  {"options = {{}}", "cuda.compile: options[1] must be a string", function() return compile{options = {{}}} end},
  {"kernels = {false}", "cuda.compile: kernels[1] must be a string", function() return compile{kernels = {false}} end},
  {"std = ''", "cuda.compile: std = \"\" names nothing", function() return compile{std = ""} end},
  {"arch = 5", "arch", function() return compile{arch = 5} end},
  {"arch = 'sm_1'", "unsupported architecture 'sm_1'", function() return compile{arch = "sm_1"} end},
  {"arch = 'compute_90'", "unsupported architecture 'compute_90'", function() return compile{arch = "compute_90"} end},
  {"arch = ''", "cuda.compile: arch = \"\" names nothing: leave it out for the default", function() return compile{arch = ""} end},
  {"arch = 'sm_90\\0x'", "architecture", function() return compile{arch = "sm_90\0x"} end},
  {"std = 5", "std", function() return compile{std = 5} end},
  {"max_registers = -1", "cuda.compile: max_registers must be an integer >= 0 (0: no limit)", function() return compile{max_registers = -1} end},
  {"max_registers = 1.5", "max_registers must be an integer >= 0", function() return compile{max_registers = 1.5} end},
  {"max_registers = nan", "max_registers must be an integer >= 0", function() return compile{max_registers = 0 / 0} end},
  {"max_registers = inf", "max_registers must be an integer >= 0", function() return compile{max_registers = math.huge} end},
  {"max_registers = 2^40", "max_registers", function() return compile{max_registers = 2 ^ 40} end},
  {"max_registers = maxinteger", "and at most 255, got 9223372036854775807", function() return compile{max_registers = math.maxinteger} end},
  {"max_registers = 256", "and at most 255, got 256", function() return compile{max_registers = 256} end},
  {"max_registers = '32'", "max_registers must be an integer >= 0", function() return compile{max_registers = "32"} end},
  {"lineinfo = 0", "cuda.compile: lineinfo must be true or false, got number", function() return compile{lineinfo = 0} end},
  {"lineinfo = 'no'", "cuda.compile: lineinfo must be true or false, got string", function() return compile{lineinfo = "no"} end},
  {"a module after free", "attempt to use a freed module", function() local m = compile{}; m:free(); return m.q end},
  {"m:reload after free", "attempt to use a freed module", function() local m = compile{}; m:free(); return m:reload() end},
  {"m.ptx after free", "attempt to use a freed module", function() local m = compile{}; m:free(); return m.ptx end},
  {"tostring after free works", "closed", function() local m = compile{}; m:free(); error(tostring(m):find("freed") and "closed" or tostring(m)) end},
  {"m:reload of an inline module", "has no file to reload from", function() return compile{}:reload() end},
  {"m:free on a kernel", "warplab.module expected, got warplab.kernel", function() local m = compile{}; return m.free(m.q) end},
  {"m.x = 1", "attempt to index a warplab.module value", function() local m = compile{}; m.x = 1 end},
  {"#m", "attempt to get length of a warplab.module value", function() return #compile{} end},
}

-- Environment failures are values: nil plus the reason, not a raise.
local function fails(what, want, f)
  return {what, function()
    local m, text = f()
    cases.eq(m, nil, what)
    assert(type(text) == "string" and text:find(want, 1, true), what .. ": " .. tostring(text))
  end}
end
cases.fine{
  fails("a missing file", "cannot open kernel file 'no_such_file.cu' (looked in the current folder", function() return cuda.compile("no_such_file.cu") end),
  fails("a folder", "it is a directory", function() return cuda.compile(dir) end),
  fails("a folder in kernels_src", "it is a directory", function() return cuda.compile("warps") end),
  fails("/dev/zero", "it is not a regular file", function() return cuda.compile("/dev/zero") end),
  fails("kernels = {5}", "5", function() return compile{kernels = {5}} end),
  fails("a NUL byte in source", "a NUL byte at byte offset 40", function() return cuda.compile{source = ok_src .. "\n\0int x;"} end),
  fails("a 0xFF byte in source", "a 0xFF byte at byte offset 40", function() return cuda.compile{source = ok_src .. "\n\255"} end),
  fails("a syntax error", "error", function() return cuda.compile{source = "__global__ void q( {"} end),
  fails("std = 'c++99'", "invalid value for --std", function() return compile{std = "c++99"} end),
  fails("kernels = {'nope<1>'}", "nope", function() return compile{kernels = {"nope<1>"}} end),
  fails("a missing include", "cannot open source file", function() return cuda.compile{source = '#include "nope.cuh"\n' .. ok_src} end),
  fails("an include of /dev/zero", "not a regular file", function() return cuda.compile{source = '#include "/dev/zero"\n' .. ok_src} end),
  fails("an include of a folder", "cannot open source file", function() return cuda.compile{source = '#include "' .. dir .. '"\n' .. ok_src} end),
  {"defines: empty value, boolean, number", function()
    local m = assert(compile{source = "__global__ void q(int* p) { p[0] = A + B + C + 0 E; }",
                             defines = {A = 1, B = true, C = 2.5, "E="}})
    assert(#m.kernels == 1)
  end},
  {"include as a string or a list, missing folders ignored", function()
    assert(compile{include = dir})
    assert(compile{include = {dir, "/nonexistent"}})
  end},
  {"m:free twice, and the <close> form", function()
    local m = compile{}
    m:free()
    m:free()
    do local c <close> = compile{} end
  end},
  {"include = {5}, options = '-lineinfo', lineinfo = true, kernels = 'q': Lua's coercions", function()
    assert(compile{include = {5}, options = "-lineinfo", lineinfo = true, kernels = "q"})
  end},
  {"a name with odd bytes", function() assert(compile{name = "we\nird\0.cu"}) end},
  {"a large source", function() assert(cuda.compile{source = ok_src .. "\n//" .. string.rep("x", 1 << 20)}) end},
}

local sweep = {}
for _, field in ipairs{"file", "source", "name", "defines", "include", "options", "arch", "std",
                       "max_registers", "lineinfo", "kernels"} do
  for i = 1, cases.nvalues do
    local v = cases.values[i]
    sweep[#sweep + 1] = {"cuda.compile{" .. field .. " = values[" .. i .. "]}", function()
      local t = field == "file" and {} or {source = ok_src}
      t[field] = v
      return cuda.compile(t)
    end}
  end
end
cases.survives(sweep)
cases.run()
os.execute("rm -rf " .. dir)
