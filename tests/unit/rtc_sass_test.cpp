// rtc_sass_test.cpp: the one disassembler finder (rtc/sass.hpp): cuobjdump before nvdisasm,
// on PATH before the toolkit folders, told where nvdisasm is; a CUBIN disassembled by the
// tool found (a stand-in script here: the toolkit's tools are not needed to test what
// warplab does with them); one kernel cut out of either tool's output; a failure with the
// tool's own reason; the note, and where nvdisasm comes from, when it is missing.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "rtc/compile.hpp"
#include "rtc/error.hpp"
#include "rtc/sass.hpp"
#include "rtc_test_util.hpp"

namespace rtc = warplab::rtc;
using warplab::test::ScratchDir;

namespace {

// Sets an environment variable for one scope, restoring the old value.
class Env {
 public:
  Env(const char* name, const std::string& value) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v, had_ = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~Env() { had_ ? ::setenv(name_, old_.c_str(), 1) : ::unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

void executable(const ScratchDir& d, const std::string& name, const std::string& script) {
  ::chmod(d.write(name, script).c_str(), 0755);
}

const char* kCuobjdump = R"(code for sm_90
		Function : _Z1aPi
	.headerflags	@"EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */
        /*0010*/                   EXIT ;                   /* 0x000000000000794d */
		..........
		Function : _Z1bPf
        /*0000*/                   BRA 0x10 ;               /* 0x000000000000794d */
)";

const char* kNvdisasm = R"(	.section	.text._Z1aPi,"ax",@progbits
_Z1aPi:
.text._Z1aPi:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
	.section	.text._Z1bPf,"ax",@progbits
.text._Z1bPf:
        /*0000*/                   EXIT ;
)";

}  // namespace

TEST(Sass, OneKernelFromEitherToolsOutput) {
  const std::string a = rtc::sass_of(kCuobjdump, "_Z1aPi");
  EXPECT_EQ(a.rfind("\t\tFunction : _Z1aPi\n", 0), 0u) << a;
  EXPECT_NE(a.find("LDC R1"), std::string::npos);
  EXPECT_EQ(a.find("BRA"), std::string::npos) << "the next kernel is not part of it";
  EXPECT_NE(rtc::sass_of(kCuobjdump, "_Z1bPf").find("BRA 0x10"), std::string::npos);
  const std::string n = rtc::sass_of(kNvdisasm, "_Z1bPf");
  EXPECT_NE(n.find("EXIT"), std::string::npos) << n;
  EXPECT_EQ(n.find("MOV R1"), std::string::npos) << n;
  EXPECT_EQ(rtc::sass_of(kCuobjdump, "_Z1cv"), "");
}

TEST(Sass, CuobjdumpOnPathFirstAndItsOutputReturned) {
  ScratchDir d;
  executable(d, "bin/nvdisasm", "#!/bin/sh\necho nvdisasm \"$@\"\n");
  // Shell builtins only (PATH holds nothing else): the CUBIN's name and first bytes echoed.
  executable(
      d, "bin/cuobjdump",
      "#!/bin/sh\n[ \"$1\" = -sass ] || exit 8\ncase \"$2\" in */warplab-sass-*.cubin) ;; *) exit 9 ;; esac\n"
      "IFS= read -r x < \"$2\"\necho \"Function : $x\"\n");
  Env path("PATH", (d.path() / "bin").string());
  const rtc::SassTool tool = rtc::find_sass_tool();
  ASSERT_TRUE(tool.found());
  EXPECT_FALSE(tool.nvdisasm);
  EXPECT_EQ(tool.path, (d.path() / "bin" / "cuobjdump").string());
  EXPECT_EQ(tool.argv(), (std::vector<std::string>{tool.path, "-sass"}));
  // The CUBIN reaches the tool as a private .cubin file; its stdout comes back.
  EXPECT_EQ(rtc::disassemble({'E', 'L', 'F'}, "--sass"), "Function : ELF\n");
  EXPECT_THROW(rtc::disassemble({}, "--sass"), rtc::Error);  // PTX only: nothing to disassemble
}

TEST(Sass, NvdisasmWhenNoCuobjdumpAndAFailureSaysSo) {
  ScratchDir d;
  executable(d, "bin/nvdisasm", "#!/bin/sh\nexit 3\n");
  Env path("PATH", (d.path() / "bin").string());
  Env home("CUDA_HOME", d.path().string());
  const rtc::SassTool tool = rtc::find_sass_tool();
  if (tool.path.rfind("/usr/local/cuda/", 0) == 0) GTEST_SKIP() << "a toolkit's cuobjdump is installed";
  EXPECT_TRUE(tool.nvdisasm);
  EXPECT_EQ(tool.argv(), (std::vector<std::string>{tool.path}));
  try {
    rtc::disassemble({'E', 'L', 'F'}, "k.sass");
    FAIL() << "no error";
  } catch (const rtc::Error& e) {
    EXPECT_EQ(std::string(e.what()), "k.sass: " + tool.path + " failed (exit 3, nothing on stderr)");
    EXPECT_EQ(e.kind(), warplab::ErrorKind::failed);
  }
}

// cuobjdump prints SASS through nvdisasm. Without one anywhere it fails as the real one does
// (its words on stderr, exit 1): the sentence keeps its reason and says where nvdisasm comes
// from, and the kind is a missing tool (exit 8), not a failure.
TEST(Sass, CuobjdumpWithoutNvdisasmSaysItsReasonAndIsAMissingTool) {
  ScratchDir d;
  executable(
      d, "bin/cuobjdump",
      "#!/bin/sh\nprintf '\\n\\tcode for sm_90\\n'\n"
      "echo \"cuobjdump fatal   : Could not find executable file 'nvdisasm'; you can try adding path to "
      "environment variables PATH or NVDISASM_PATH\" >&2\nexit 1\n");
  Env path("PATH", (d.path() / "bin").string());
  Env home("CUDA_HOME", d.path().string());
  Env cpath("CUDA_PATH", d.path().string());
  const rtc::SassTool tool = rtc::find_sass_tool();
  if (!tool.nvdisasm_dir.empty()) GTEST_SKIP() << "/usr/local/cuda/bin has nvdisasm";
  try {
    rtc::disassemble({'E', 'L', 'F'}, "--sass");
    FAIL() << "no error";
  } catch (const rtc::Error& e) {
    const std::string w = e.what();
    EXPECT_EQ(e.kind(), warplab::ErrorKind::tool) << w;
    EXPECT_EQ(
        w.rfind("--sass: " + tool.path +
                    " failed (exit 1): cuobjdump fatal : Could not find executable file 'nvdisasm'; you "
                    "can try adding path to environment variables PATH or NVDISASM_PATH; cuobjdump needs "
                    "nvdisasm for SASS and none was found (PATH, CUDA_HOME, /usr/local/cuda): nvdisasm "
                    "comes with the CUDA toolkit (NVIDIA's package cuda-nvdisasm-",
                0),
        0u)
        << w;
    EXPECT_EQ(w.find('\n'), std::string::npos) << "one sentence: " << w;
  }
}

// An nvdisasm warplab finds where cuobjdump would not look (CUDA_HOME, not PATH) is handed to
// it as NVDISASM_PATH; one the user set is left alone.
TEST(Sass, CuobjdumpIsToldWhereNvdisasmIs) {
  ScratchDir d;
  executable(d, "bin/cuobjdump", "#!/bin/sh\necho \"Function : $NVDISASM_PATH\"\n");
  executable(d, "toolkit/bin/nvdisasm", "#!/bin/sh\nexit 0\n");
  Env path("PATH", (d.path() / "bin").string());
  Env home("CUDA_HOME", (d.path() / "toolkit").string());
  const rtc::SassTool tool = rtc::find_sass_tool();
  ASSERT_FALSE(tool.nvdisasm);
  EXPECT_EQ(tool.nvdisasm_dir, (d.path() / "toolkit" / "bin").string());
  {
    Env unset("NVDISASM_PATH", "");
    ::unsetenv("NVDISASM_PATH");
    EXPECT_EQ(rtc::disassemble({'E', 'L', 'F'}, "--sass"), "Function : " + tool.nvdisasm_dir + "\n");
  }
  Env mine("NVDISASM_PATH", "/elsewhere");
  EXPECT_EQ(rtc::disassemble({'E', 'L', 'F'}, "--sass"), "Function : /elsewhere\n");
}

TEST(Sass, SectionsInOrder) {
  const auto s = rtc::sass_sections(kCuobjdump);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].first, "_Z1aPi");
  EXPECT_EQ(s[1].first, "_Z1bPf");
  EXPECT_NE(s[1].second.find("BRA 0x10"), std::string::npos);
  const auto n = rtc::sass_sections(kNvdisasm);
  ASSERT_EQ(n.size(), 2u);
  EXPECT_EQ(n[1].first, "_Z1bPf");
}

TEST(Sass, NeitherToolIsOneSentence) {
  ScratchDir d;
  Env path("PATH", (d.path() / "empty").string());
  Env home("CUDA_HOME", d.path().string());
  Env cpath("CUDA_PATH", d.path().string());
  if (rtc::find_sass_tool().found()) GTEST_SKIP() << "/usr/local/cuda/bin has a disassembler";
  try {
    rtc::disassemble({'E', 'L', 'F'}, "--sass");
    FAIL() << "no error";
  } catch (const rtc::Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "--sass: neither cuobjdump nor nvdisasm found (PATH, CUDA_HOME, /usr/local/cuda): nvdisasm comes "
        "with the CUDA toolkit (NVIDIA's package cuda-nvdisasm-" +
            [] {
              std::string v = rtc::nvrtc_version();
              std::replace(v.begin(), v.end(), '.', '-');
              return v;
            }() +
            ")");
    EXPECT_EQ(e.kind(), warplab::ErrorKind::tool);
  }
}
