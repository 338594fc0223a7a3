// rtc_options_test.cpp: which NVRTC options pass (rtc::check_options): the playground's
// list in every spelling NVRTC takes (--long=v, -short=v, -short v, -DNAME), and the refused
// ones, each with one sentence naming the option: architecture options (pointing to the arch
// field, split forms too), options that give no cubin or need a link step, that read or
// write files, precompiled headers, unknown words and bad -Xptxas values. rtc::compile
// refuses them too, and -I among the options is searched and tracked by warplab.
#include <gtest/gtest.h>

#include "rtc/compile.hpp"
#include "rtc/nvrtc_options.hpp"
#include "rtc_test_util.hpp"

namespace rtc = warplab::rtc;
using warplab::test::ScratchDir;

namespace {

using List = std::vector<std::string>;

// The sentence refusing `options`; "" when NVRTC may take them (check_options: nullopt).
std::string refusal(const List& options) { return rtc::check_options(options).value_or(""); }

}  // namespace

TEST(NvrtcOptions, ThePlaygroundsOptionsPassInEverySpelling) {
  for (const List& ok : {List{"-lineinfo"},
                         List{"--generate-line-info"},
                         List{"-G"},
                         List{"--device-debug"},
                         List{"-dopt=on"},
                         List{"--dopt", "on"},
                         List{"--use_fast_math"},
                         List{"-use_fast_math"},
                         List{"-maxrregcount=32"},
                         List{"-maxrregcount", "32"},
                         List{"--maxrregcount=32"},
                         List{"--ftz=true"},
                         List{"-ftz", "false"},
                         List{"--prec-div=false"},
                         List{"-prec-sqrt=false"},
                         List{"--fmad=false"},
                         List{"-std=c++20"},
                         List{"--std=c++14"},
                         List{"-DN=4"},
                         List{"-D", "N=4"},
                         List{"--define-macro=N"},
                         List{"-UN"},
                         List{"-U", "N"},
                         List{"-I/tmp"},
                         List{"-I", "/tmp"},
                         List{"--include-path=/tmp"},
                         List{"--extra-device-vectorization"},
                         List{"--restrict"},
                         List{"-Xptxas", "-v"},
                         List{"-Xptxas=-O2"},
                         List{"--ptxas-options=--warn-on-spills"},
                         List{"-Xptxas", "-dlcm=cg"},
                         List{"-Xptxas", "--opt-level=1"},
                         List{"-w"},
                         List{"--diag-suppress=177"},
                         List{"-diag-suppress", "177"},
                         List{"-default-device"},
                         List{"--device-int128"},
                         List{"-Ofc=max"},
                         List{"-jtd", "50"},
                         List{"-err-no"},
                         List{}})
    EXPECT_EQ(rtc::check_options(ok), std::nullopt) << ::testing::PrintToString(ok);
}

TEST(NvrtcOptions, ArchitectureOptionsPointToTheArchField) {
  for (const List& arch : {List{"-arch=sm_75"}, List{"--gpu-architecture=sm_120"}, List{"-arch", "sm_75"},
                           List{"--gpu-architecture", "sm_120"}, List{"-code=sm_80"},
                           List{"--gpu-code=sm_80"}, List{"-arch"}, List{"-lineinfo", "-arch=compute_80"}}) {
    const std::string s = refusal(arch);
    EXPECT_NE(s.find("chooses the architecture, which goes in the arch field"), std::string::npos) << s;
    EXPECT_EQ(s.find('\n'), std::string::npos);
  }
  EXPECT_EQ(refusal({"-arch", "sm_75"}).rfind("'-arch sm_75' chooses the architecture", 0), 0u);
  EXPECT_EQ(refusal({"--gpu-architecture=sm_120"}).rfind("'--gpu-architecture=sm_120' chooses", 0), 0u);
}

TEST(NvrtcOptions, RefusedOptionsAreOneSentenceNamingThem) {
  const std::string where = "docs/compile.md lists the NVRTC options warplab accepts";
  const std::pair<List, std::string> cases[] = {
      {{"-dlto"}, "'-dlto' gives no cubin warplab can load; "},
      {{"--dlink-time-opt"}, "'--dlink-time-opt' gives no cubin"},
      {{"--fdevice-syntax-only"}, "gives no cubin"},
      {{"-rdc=true"}, "'-rdc=true' makes relocatable code that needs a link step"},
      {{"-dc"}, "needs a link step"},
      {{"--pre-include=/dev/zero"},
       "'--pre-include=/dev/zero' makes NVRTC read a file warplab does not track"},
      {{"-include", "/dev/zero"}, "'-include /dev/zero' makes NVRTC read"},
      {{"--time=t.txt"}, "'--time=t.txt' writes a file"},
      {{"--fdevice-time-trace=t.json"}, "writes a file"},
      {{"--create-pch=x.pch"}, "'--create-pch=x.pch' uses precompiled header files"},
      {{"--use-pch=x.pch"}, "precompiled"},
      {{"-pch"}, "precompiled"},
      {{"-o", "x"}, "'-o x' names an output file"},
      {{"--no-cache"}, "is warplab's to set"},
      {{"-Xptxas", "-c"}, "'-Xptxas -c': '-c' is not among the ptxas options warplab accepts"},
      {{"--ptxas-options=--output-file=/tmp/x"}, "is not among the ptxas options"},
      {{"-Xptxas", "-v,-O2"}, "is not among the ptxas options"},
      {{"-Xptxas", "--opt-level="}, "is not among the ptxas options"},
      {{"--use-fast-math"}, "'--use-fast-math' is not among the options warplab passes to NVRTC"},
      {{"-O3"}, "'-O3' is not an NVRTC option; ptxas's is -Xptxas -O3"},
      {{"foo.cu"}, "'foo.cu' is not an option (options start with -)"},
      {{""}, "an empty string is not an option"},
      {{"-lineinfo -G"}, "'-lineinfo -G' is not among the options"},
  };
  for (const auto& [options, text] : cases) {
    const std::string s = refusal(options);
    EXPECT_NE(s.find(text), std::string::npos) << ::testing::PrintToString(options) << ": " << s;
    EXPECT_NE(s.find(where), std::string::npos) << s;
    EXPECT_LE(s.size(), 320u) << s;
  }
}

TEST(NvrtcOptions, CompileRefusesThemBeforeNvrtcRuns) {
  rtc::Source src;
  src.name = "k.cu";
  src.text = "__global__ void k(int* p) { p[0] = 1; }\n";
  rtc::Options o;
  o.arch = "sm_80";
  o.extra = {"-dlto"};
  try {
    rtc::compile(src, o);
    ADD_FAILURE() << "-dlto must be refused";
  } catch (const rtc::Error& e) {
    EXPECT_EQ(e.code(), NVRTC_SUCCESS) << "bad input, not an NVRTC failure";
    EXPECT_EQ(std::string(e.what()).rfind("'-dlto' gives no cubin", 0), 0u) << e.what();
  }
  o.extra = {"--use_fast_math", "-Xptxas", "-O2", "-maxrregcount", "32", "--ftz=true"};
  const rtc::CompileResult r = rtc::compile(src, o);
  EXPECT_TRUE(r.ok) << r.log;
  EXPECT_FALSE(r.cubin.empty());
}

// What a -I among the options supplies is resolved by warplab: it is a dependency (watch
// re-runs on it), and the cache key changes with its bytes.
TEST(NvrtcOptions, IncludeFoldersAmongTheOptionsAreTracked) {
  ScratchDir tmp;
  tmp.write("inc/factor.cuh", "#define FACTOR 2\n");
  const rtc::Source src = rtc::load_source(
      tmp.write("src/k.cu", "#include \"factor.cuh\"\n__global__ void k(int* p) { p[0] = FACTOR; }\n"));
  for (const List& extra :
       {List{"-I" + (tmp.path() / "inc").string()}, List{"-I", (tmp.path() / "inc").string()},
        List{"--include-path=" + (tmp.path() / "inc").string()}}) {
    rtc::Options o;
    o.arch = "sm_80";
    o.extra = extra;
    const rtc::CompileResult r = rtc::compile(src, o);
    ASSERT_TRUE(r.ok) << r.log;
    ASSERT_EQ(r.dependencies.size(), 1u) << ::testing::PrintToString(extra);
    EXPECT_EQ(r.dependencies[0].path.filename(), "factor.cuh");
  }
  EXPECT_EQ(rtc::option_include_dirs({"-DX", "-I", "a", "-Ib", "--include-path=c", "-Xptxas", "-v"}),
            (List{"a", "b", "c"}));
}

// The other inputs that become NVRTC options: a macro value with a line break, an include
// folder that is "" (or relative with no current folder) are one sentence, never NVRTC's
// "failed without an error message" nor a filesystem exception; an option NVRTC's front end
// refuses ("Command-line error") is an error diagnostic.
TEST(NvrtcOptions, OtherInputsThatBecomeOptionsAreOneSentence) {
  rtc::Source src;
  src.name = "k.cu";
  src.text = "__global__ void k(int* p) { p[0] = 1; }\n";
  rtc::Options o;
  o.arch = "sm_80";
  o.defines = {{"X", "1\n#error injected"}};
  auto message = [&] {
    try {
      rtc::compile(src, o);
    } catch (const rtc::Error& e) {
      EXPECT_EQ(e.code(), NVRTC_SUCCESS);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(), "the value of the macro X holds a line break; a macro's value is one line");
  o.defines.clear();
  o.include_dirs = {""};
  EXPECT_EQ(message(), "cannot use the include folder '': it is an empty string");
  o.include_dirs.clear();
  o.extra = {"-DY=1\n#error injected"};
  EXPECT_NE(message().find("an option holds a line break ('-DY=1...')"), std::string::npos) << message();
  o.extra = {"-D1X=2"};
  const rtc::CompileResult r = rtc::compile(src, o);
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.errors(), 1u) << r.log;
  EXPECT_EQ(r.diagnostics[0].message, "in the options: invalid macro definition: 1X=2");
}
