// rtc_diagnostics_test.cpp: compile errors as the user sees them: exact file/line/col for
// an error in the file, in an included header, for a missing include and in an inline
// source with a line offset; the formatted caret; truncation to the first N.
#include <gtest/gtest.h>

#include "rtc/compile.hpp"
#include "rtc_test_util.hpp"

namespace rtc = warplab::rtc;
namespace fs = std::filesystem;
using warplab::test::bad_kernels;

namespace {

rtc::CompileResult compile_file(const fs::path& p, const std::string& arch = "sm_90") {
  rtc::Options o;
  o.arch = arch;
  return rtc::compile(rtc::load_source(p), o);
}

bool same_file(const std::string& shown, const fs::path& expected) {
  return fs::canonical(fs::absolute(shown)) == fs::canonical(expected);
}

}  // namespace

TEST(Diagnostics, ErrorHasExactLocationAndCaret) {
  const fs::path file = bad_kernels() / "syntax_error.cu";
  const auto r = compile_file(file);
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.diagnostics.size(), 1u) << r.log;
  const rtc::Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.file, file.string());
  EXPECT_EQ(d.line, 4);
  EXPECT_EQ(d.col, 31);
  EXPECT_EQ(d.severity, rtc::Severity::Error);
  EXPECT_EQ(d.message, "identifier \"undefined_factor\" is undefined");
  EXPECT_EQ(d.source_line, "  if (i < n) out[i] = in[i] * undefined_factor;");
  const std::string text = rtc::format_diagnostics(r, 10, false);
  EXPECT_EQ(text, file.string() +
                      ":4:31: error: identifier \"undefined_factor\" is undefined\n"
                      "    if (i < n) out[i] = in[i] * undefined_factor;\n"
                      "                                ^\n");
}

TEST(Diagnostics, ErrorInHeaderPointsAtHeader) {
  const auto r = compile_file(bad_kernels() / "header_error.cu", "sm_80");
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.errors(), 1u) << r.log;
  const rtc::Diagnostic& d = r.diagnostics[0];
  EXPECT_TRUE(same_file(d.file, bad_kernels() / "include/bad_header.cuh")) << d.file;
  EXPECT_EQ(d.line, 4);
  EXPECT_EQ(d.col, 18);  // at the initializer `i`
  EXPECT_EQ(d.source_line, "  float* wrong = i;");
  EXPECT_NE(d.message.find("\"unsigned int\""), std::string::npos) << d.message;
}

TEST(Diagnostics, MissingIncludePointsAtTheDirective) {
  const fs::path file = bad_kernels() / "missing_include.cu";
  const auto r = compile_file(file);
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.errors(), 1u) << r.log;
  const rtc::Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.file, file.string());
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.col, 11);  // the name inside the quotes
  EXPECT_EQ(d.message.rfind("cannot open source file \"no_such_header.cuh\" (searched ", 0), 0u) << d.message;
  EXPECT_NE(d.message.find(rtc::display_path(bad_kernels())), std::string::npos) << d.message;
}

TEST(Diagnostics, InlineSourceReportsLuaLines) {
  rtc::Source s;
  s.name = "examples/demo.lua";
  s.text = "__global__ void k(int* p) {\n  p[0] = 1;\n  p[1] = oops;\n}\n";
  s.line_offset = 20;
  rtc::Options o;
  o.arch = "sm_90";
  const auto r = rtc::compile(s, o);
  ASSERT_EQ(r.errors(), 1u) << r.log;
  EXPECT_EQ(r.diagnostics[0].file, "examples/demo.lua");
  EXPECT_EQ(r.diagnostics[0].line, 23);
  EXPECT_EQ(r.diagnostics[0].col, 10);
  EXPECT_EQ(rtc::format_diagnostics(r, 1, false).rfind("examples/demo.lua:23:10: error: ", 0), 0u);
}

TEST(Diagnostics, OnlyTheFirstNAreShown) {
  const fs::path file = bad_kernels() / "many_errors.cu";
  const auto r = compile_file(file);
  ASSERT_EQ(r.errors(), 6u) << r.log;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r.diagnostics[i].line, 3 + i);
  const std::string text = rtc::format_diagnostics(r, 2, false);
  EXPECT_NE(text.find(":3:10: error: identifier \"e1\""), std::string::npos) << text;
  EXPECT_NE(text.find(":4:10: error: identifier \"e2\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\"e3\""), std::string::npos) << text;
  EXPECT_NE(text.find("... and 4 more not shown (4 errors)\n"), std::string::npos) << text;
  EXPECT_EQ(rtc::format_diagnostics(r, 0, false).find("more not shown"), std::string::npos);
}

TEST(Diagnostics, ErrorsAreShownBeforeWarnings) {
  rtc::Options o;
  o.arch = "sm_90";
  rtc::Source s;
  s.name = "w.cu";
  s.text = "__device__ void f() {\n  int unused;\n}\n__global__ void k(int* p) { p[0] = bad; }\n";
  const auto r = rtc::compile(s, o);
  ASSERT_EQ(r.diagnostics.size(), 2u) << r.log;
  EXPECT_EQ(r.diagnostics[0].severity, rtc::Severity::Warning);
  EXPECT_EQ(r.diagnostics[0].code, "177-D");
  const std::string text = rtc::format_diagnostics(r, 1, false);
  EXPECT_EQ(text.rfind("w.cu:4:36: error: identifier \"bad\" is undefined", 0), 0u) << text;
  EXPECT_NE(text.find("... and 1 more not shown (1 warning)"), std::string::npos) << text;
}

TEST(Diagnostics, PtxasErrorsAreReadable) {
  // NVRTC puts the ptxas part of its log after a NUL byte; the error must not be lost,
  // and its mangled name and hex sizes are shown the way the user wrote them.
  const auto r = compile_file(bad_kernels() / "too_much_shared.cu");
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.errors(), 1u) << r.log;
  EXPECT_EQ(r.diagnostics[0].message,
            "ptxas: Entry function 'big(float*)' uses too much shared data (240000 bytes, 49152 max)");
}

TEST(Diagnostics, InstantiationContextBecomesANote) {
  rtc::Source s;
  s.name = "t.cu";
  s.text =
      "template <typename T> __device__ T f(T a) { return a.x; }\n"
      "__global__ void k(float* p) { p[0] = f(p[1]); }\n";
  s.line_offset = 100;
  rtc::Options o;
  o.arch = "sm_90";
  const auto r = rtc::compile(s, o);
  ASSERT_EQ(r.errors(), 1u) << r.log;
  EXPECT_EQ(r.diagnostics[0].line, 101);
  ASSERT_EQ(r.diagnostics[0].notes.size(), 1u) << r.log;
  // NVRTC's "at line 2" is shifted like every other line of an inline source.
  EXPECT_NE(r.diagnostics[0].notes[0].find("at line 102"), std::string::npos) << r.diagnostics[0].notes[0];
}

// The parser on its own: forms NVRTC 13 does not print today but may (a column in the
// location, no caret), tabs in the caret line, unknown files.
TEST(DiagnosticsParser, ColumnInLocationAndQuotedIdentifierFallback) {
  std::map<std::string, rtc::LogFile> files;
  files["a.cu"] = {"shown/a.cu", "int x;\n\tfoo = bar + 1;\n", 0};
  const auto d = rtc::parse_log(
      "a.cu(2,3): error: with column\n"
      "a.cu(2): error: identifier \"bar\" is undefined\n"
      "a.cu(2): warning: no caret and nothing quoted\n"
      "/usr/include/x.h(9): error: elsewhere\n  int y = z;\n          ^\n\n"
      "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
      "ptxas info    : Used 4 registers\n",
      files);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].file, "shown/a.cu");
  EXPECT_EQ(d[0].col, 3);
  EXPECT_EQ(d[1].col, 8);  // "bar" in "\tfoo = bar + 1;"
  EXPECT_EQ(d[2].col, 1);
  EXPECT_EQ(d[2].severity, rtc::Severity::Warning);
  EXPECT_EQ(d[3].file, "/usr/include/x.h");
  EXPECT_EQ(d[3].source_line, "int y = z;");
  EXPECT_EQ(d[3].col, 9);
  EXPECT_EQ(d[4].file, "");
  EXPECT_EQ(d[4].message, "invalid value for --gpu-architecture (-arch)");
  // The caret line copies the tab so the caret lands under "bar" on a terminal.
  EXPECT_NE(rtc::format_diagnostics({d[1]}, 0, false).find("\n  \tfoo = bar + 1;\n  \t      ^\n"),
            std::string::npos);
  EXPECT_NE(rtc::format_diagnostics({d[1]}, 0, true).find("\033[1;31merror:\033[0m"), std::string::npos);
}

// An ambiguous overload: NVRTC lists the candidates first, then echoes the line and its
// caret. The echo is the diagnostic's own line and column, not two notes more.
TEST(DiagnosticsParser, SourceEchoedAfterTheCandidates) {
  std::map<std::string, rtc::LogFile> files;
  files["a.cu"] = {"a.cu", "__global__ void k(float* p, long long n) {\n  p[0] = max(p[1], n);\n}\n", 0};
  const auto d = rtc::parse_log(
      "a.cu(2): error: more than one instance of overloaded function \"max\" matches the argument list:\n"
      "            function \"max(float, double)\" (declared implicitly)\n"
      "            function \"max(long long, long long)\" (declared implicitly)\n"
      "            argument types are: (float, long long)\n"
      "    p[0] = max(p[1], n);\n"
      "           ^\n\n",
      files);
  ASSERT_EQ(d.size(), 1u);
  ASSERT_EQ(d[0].notes.size(), 3u);
  EXPECT_EQ(d[0].notes[2], "argument types are: (float, long long)");
  EXPECT_EQ(d[0].col, 10);  // the caret's column (under "max")
  const std::string shown = rtc::format_diagnostics(d, 0, false);
  EXPECT_EQ(shown.find("note: ^"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("note: p[0]"), std::string::npos) << shown;
}

// Logs the regexes must survive (issue 12 bad-input suite): a caret under column 300000
// and a 200000-character message overflowed the stack of libstdc++'s recursive regex;
// a line number past INT_MAX (after "#line 2147483647") made std::stoi throw.
TEST(DiagnosticsParser, LongLinesAndHugeLineNumbers) {
  std::map<std::string, rtc::LogFile> files;
  const std::string wide(300000, ' ');
  const std::string ident(200000, 'q');
  const auto d = rtc::parse_log("a.cu(1): error: identifier \"" + ident + "\" is undefined\n" + "  " +
                                    std::string(400000, 'x') + "\n" + wide + "^\n\n" +
                                    "a.cu(2147483648): error: past INT_MAX\n" +
                                    "a.cu(3, 99999999999): warning: a column past INT_MAX\n" +
                                    "ptxas error   : '_Z1kv' at 0x" + std::string(40, 'f') + "\n",
                                files);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].message.size(), ident.size() + 26);
  EXPECT_EQ(d[0].col, 300000 - 1);
  EXPECT_EQ(d[1].line, 0);  // no location rather than a wrong one
  EXPECT_EQ(d[1].message, "past INT_MAX");
  EXPECT_EQ(d[2].line, 3);
  EXPECT_EQ(d[2].severity, rtc::Severity::Warning);
  EXPECT_NE(d[3].message.find("'k()' at 0x" + std::string(40, 'f')), std::string::npos) << d[3].message;
}

// Static shared memory stops at 48 KiB a block; the error points to dynamic shared memory.
TEST(Diagnostics, TooMuchStaticSharedMemoryPointsToDynamic) {
  rtc::Source s;
  s.name = "big.cu";
  s.text =
      "__global__ void big(float* out) {\n  __shared__ float s[65536];\n  s[threadIdx.x] = 1;\n"
      "  __syncthreads();\n  out[threadIdx.x] = s[threadIdx.x ^ 1];\n}\n";
  rtc::Options o;
  o.arch = "sm_90";
  const auto r = rtc::compile(s, o);
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.errors(), 1u) << r.log;
  const rtc::Diagnostic& d = r.diagnostics[0];
  EXPECT_NE(d.message.find("uses too much shared data (262144 bytes, 49152 max)"), std::string::npos)
      << d.message;
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("`extern __shared__ float s[];`"), std::string::npos) << d.notes[0];
  EXPECT_NE(d.notes[0].find("`shared =`"), std::string::npos) << d.notes[0];
  EXPECT_NE(
      rtc::format_diagnostics(r, 10, false).find("note: static __shared__ arrays are limited to 48 KiB"),
      std::string::npos);
}
