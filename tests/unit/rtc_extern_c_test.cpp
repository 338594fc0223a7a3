// rtc_extern_c_test.cpp: extern "C" kernels' parameter types (rtc/extern_c.hpp,
// rtc/source_params.hpp): the scanner over the source (comments, the declaration found by
// name, plain words, macros and typedefs, what it leaves to the compiler), then whole
// compiles against the real NVRTC, no GPU: sources in three styles, NVRTC's answer where the
// text is not plain, the cases where neither can tell (the list as written kept), the cache.
#include <gtest/gtest.h>

#include "rtc/cache_json.hpp"
#include "rtc/compile.hpp"
#include "rtc/source_params.hpp"
#include "rtc_test_util.hpp"

namespace rtc = warplab::rtc;

namespace {

std::vector<std::string> codes(const std::string& text) { return {rtc::code_only(text)}; }

// The spellings the plain reading of `name`'s list in `text` gives, or "?" when it gives none.
std::string plain(const std::string& text, const std::string& name,
                  const std::vector<std::pair<std::string, std::string>>& defines = {}) {
  const auto c = codes(text);
  const auto w = rtc::written_params(c, name);
  if (!w) return "(not found)";
  const auto t = rtc::PlainWords(c, defines).types(*w);
  if (!t) return "?";
  std::string out;
  for (const auto& p : *t) out += (out.empty() ? "" : ", ") + p.spelling;
  return out;
}

rtc::CompileResult compile(const std::string& text,
                           std::vector<std::pair<std::string, std::string>> defines = {}) {
  rtc::Source s;
  s.name = "externc.cu";
  s.text = text;
  rtc::Options o;
  o.arch = "sm_90";
  o.defines = std::move(defines);
  return rtc::compile(s, o);
}

std::string signature(const rtc::CompileResult& r, const std::string& entry) {
  const auto s = r.signature(entry);
  return s ? s->to_string() : "(unknown)";
}

}  // namespace

TEST(ExternCScan, CodeOnlyBlanksCommentsAndLiteralsAndJoinsLines) {
  const auto blank = [](std::size_t n) { return std::string(n, ' '); };
  EXPECT_EQ(rtc::code_only("a // f(int x)\nb"), "a" + blank(12) + "\nb");
  EXPECT_EQ(rtc::code_only("a /* f(\nint) */ b"), "a" + blank(6) + "\n" + blank(8) + "b");  // lines kept
  EXPECT_EQ(rtc::code_only("s = \"f(int x)\"; c = 'x';"), "s = \"" + blank(8) + "\"; c = ' ';");
  EXPECT_EQ(rtc::code_only("#define K \\\n  int"), "#define K   int");
  EXPECT_EQ(rtc::code_only("n = 1'000; f(x)"), "n = 1'000; f(x)");  // a digit separator
}

TEST(ExternCScan, WrittenParamsFindsTheDeclarationByName) {
  EXPECT_EQ(rtc::written_params(codes("extern \"C\" __global__ void nul(int* p) {}"), "nul"), "int* p");
  // Attributes between void and the name, spaces collapsed, a call left alone.
  EXPECT_EQ(
      rtc::written_params(codes("extern \"C\" __global__ void __launch_bounds__(256) __cluster_dims__(2, 1, "
                                "1)\n k(const float *  x,\n int n) { k2(x); }"),
                          "k"),
      "const float * x, int n");
  // Inside an extern "C" block, with another kernel calling a function of the same name elsewhere.
  EXPECT_EQ(rtc::written_params(
                codes("extern \"C\" {\n__global__ void a(float* x) {}\n}\nvoid f() { a(0); }"), "a"),
            "float* x");
  // A declaration spelled through a macro: void just before the name still says so.
  EXPECT_EQ(rtc::written_params(codes("#define DECL extern \"C\" __global__\nDECL void d(T x) {}"), "d"),
            "T x");
  // The definition wins over a declaration; two definitions that differ (#if) give none.
  EXPECT_EQ(rtc::written_params(codes("__global__ void e(float*);\n__global__ void e(float* x) {}"), "e"),
            "float* x");
  EXPECT_EQ(
      rtc::written_params(
          codes("#if A\n__global__ void e(float* x) {}\n#else\n__global__ void e(int* x) {}\n#endif"), "e"),
      std::nullopt);
  // In a comment only, made by a macro, or a longer name: none.
  EXPECT_EQ(rtc::written_params(codes("// __global__ void g(int x)\n"), "g"), std::nullopt);
  EXPECT_EQ(
      rtc::written_params(codes("#define K(n) extern \"C\" __global__ void n(float* x)\nK(made) {}"), "made"),
      std::nullopt);
  EXPECT_EQ(rtc::written_params(codes("__global__ void gg(int x) {}"), "g"), std::nullopt);
}

TEST(ExternCScan, PlainWordsReadBuiltinAndCudaTypes) {
  EXPECT_EQ(
      plain("extern \"C\" __global__ void k(const float* __restrict__ x, float* y, float a, unsigned n) {}",
            "k"),
      "const float*, float*, float, unsigned int");
  EXPECT_EQ(plain("__global__ void k(size_t n, float4 v, __half h, long int l, float half) {}", "k"),
            "unsigned long, float4, __half, long, float");
  EXPECT_EQ(plain("__global__ void k(void) {}", "k"), "");
  EXPECT_EQ(plain("__global__ void k() {}", "k"), "");
}

TEST(ExternCScan, PlainWordsExpandMacrosAndTypedefsDefinedOnce) {
  EXPECT_EQ(plain("#define T float\ntypedef unsigned int U;\nusing I = long long;\n"
                  "__global__ void k(T* x, U n, const I* i) {}",
                  "k"),
            "float*, unsigned int, const long long*");
  // A macro is text: const PTR is const float*.
  EXPECT_EQ(plain("#define PTR float*\n__global__ void k(const PTR x) {}", "k"), "const float*");
  // -D macros; an include guard does not count as an #if.
  EXPECT_EQ(plain("__global__ void k(T x) {}", "k", {{"T", "double"}}), "double");
  EXPECT_EQ(plain("#ifndef G\n#define G\n#define V int\n__global__ void k(V* x) {}\n#endif", "k"), "int*");
}

TEST(ExternCScan, PlainWordsLeaveTheRestToTheCompiler) {
  // Under #if, defined twice, defined and given with -D, a typedef to a pointer, a class,
  // an unknown word, brackets, a default value, a function-like macro, a cycle.
  EXPECT_EQ(
      plain(
          "#ifdef D\ntypedef double real;\n#else\ntypedef float real;\n#endif\n__global__ void k(real* x) {}",
          "k"),
      "?");
  EXPECT_EQ(plain("#if 1\n#define T float\n#endif\n__global__ void k(T x) {}", "k"), "?");
  EXPECT_EQ(plain("#define T float\n__global__ void k(T x) {}", "k", {{"T", "double"}}), "?");
  EXPECT_EQ(plain("typedef float* fptr;\n__global__ void k(fptr x) {}", "k"), "?");
  EXPECT_EQ(plain("struct S { int a; };\n__global__ void k(S s) {}", "k"), "?");
  EXPECT_EQ(plain("__global__ void k(Thing t) {}", "k"), "?");
  EXPECT_EQ(plain("__global__ void k(float x[], int n) {}", "k"), "?");
  EXPECT_EQ(plain("__global__ void k(int n = 3) {}", "k"), "?");
  EXPECT_EQ(plain("#define F(x) x\n__global__ void k(F(int) n) {}", "k"), "?");
  EXPECT_EQ(plain("#define A B\n#define B A\n__global__ void k(A a) {}", "k"), "?");
  EXPECT_EQ(plain("#define float double\n#undef float\n__global__ void k(float a) {}", "k"), "?");
}

// Three styles of source, each kernel's signature read without a declaration.
TEST(ExternCCompile, PlainTemplateWrapperAndMacroStyles) {
  const rtc::CompileResult r = compile(R"(
extern "C" __global__ void saxpy(const float* x, float* y, float a, unsigned int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
template <class T> __device__ void twice(T* x) { x[threadIdx.x] *= 2; }
extern "C" __global__ void twice_f32(float* x) { twice<float>(x); }
extern "C" __global__ void twice_f64(double* x) { twice<double>(x); }
#define REAL float
typedef int idx_t;
extern "C" __global__ void fill(REAL* x, REAL v, idx_t n) { if (threadIdx.x < n) x[threadIdx.x] = v; }
__global__ void cpp(const float* x) {}
)");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(signature(r, "saxpy"), "saxpy(const float*, float*, float, unsigned int)");
  EXPECT_EQ(signature(r, "twice_f32"), "twice_f32(float*)");
  EXPECT_EQ(signature(r, "twice_f64"), "twice_f64(double*)");
  EXPECT_EQ(signature(r, "fill"), "fill(float*, float, int)");
  EXPECT_EQ(signature(r, "_Z3cppPKf"), "cpp(const float*)");  // C++ kernels: as before
  ASSERT_NE(r.extern_c_params("fill"), nullptr);
  EXPECT_EQ(r.extern_c_params("fill")->written, "REAL* x, REAL v, idx_t n");
  EXPECT_EQ(r.extern_c_params("_Z3cppPKf"), nullptr);
  EXPECT_EQ(r.extern_c.size(), 4u);
}

// Types the text does not say plainly: NVRTC names them, -D and #ifdef included.
TEST(ExternCCompile, NvrtcTellsWhatTheTextDoesNot) {
  const std::string text = R"(
#ifdef WIDE
typedef double real;
#else
typedef float real;
#endif
struct Pair { int a; float b; };
#define KERNEL(name) extern "C" __global__ void name(real* x, int n)
KERNEL(made) { if (threadIdx.x < n) x[threadIdx.x] = 0; }
extern "C" __global__ void by_value(Pair p, real* out) { out[0] = p.a + p.b; }
)";
  const rtc::CompileResult narrow = compile(text);
  ASSERT_TRUE(narrow.ok) << narrow.log;
  EXPECT_EQ(signature(narrow, "made"), "made(float*, int)");
  EXPECT_EQ(narrow.extern_c_params("made")->written, "");  // no list in the text: made by a macro
  EXPECT_EQ(signature(narrow, "by_value"), "by_value(Pair, float*)");
  const rtc::CompileResult wide = compile(text, {{"WIDE", "1"}});
  ASSERT_TRUE(wide.ok) << wide.log;
  EXPECT_EQ(signature(wide, "made"), "made(double*, int)");
  EXPECT_EQ(signature(wide, "by_value"), "by_value(Pair, double*)");
}

// The project-style file: a header's typedef and macro, an extern "C" block, #ifdef.
TEST(ExternCCompile, FileWithHeader) {
  rtc::Options o;
  o.arch = "sm_90";
  const rtc::Source src = rtc::load_source(warplab::test::source_root() / "tests/data/kernels/extern_c.cu");
  const rtc::CompileResult r = rtc::compile(src, o);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(signature(r, "axpy"), "axpy(float, const float*, float*, unsigned int)");
  EXPECT_EQ(signature(r, "scale_f32"), "scale_f32(float*, float, unsigned int)");
  EXPECT_EQ(signature(r, "scale_f64"), "scale_f64(double*, double, unsigned int)");
  EXPECT_EQ(signature(r, "widen"), "widen(const float*, float*, int)");
  EXPECT_EQ(signature(r, "iota_i32"), "iota_i32(int*, int)");
  o.defines = {{"ACC_DOUBLE", "1"}};
  EXPECT_EQ(signature(rtc::compile(src, o), "widen"), "widen(const float*, double*, int)");
}

// Where neither can tell, the list as written and why are kept, for the hint.
TEST(ExternCCompile, UnknownKeepsTheListAsWritten) {
  const rtc::CompileResult r = compile(R"(
namespace lib {
#ifdef WIDE
typedef double real;
#else
typedef float real;
#endif
extern "C" __global__ void hidden(real* p, int n) { p[0] = n; }
}
struct S { int a; };
extern "C" __global__ void member(int S::* f, S* s, int* out) { out[0] = s->*f; }
extern "C" __global__ void fine(int* p) { p[0] = 1; }
)");
  ASSERT_TRUE(r.ok) << r.log;
  const rtc::ExternCParams* hidden = r.extern_c_params("hidden");
  ASSERT_NE(hidden, nullptr);
  EXPECT_FALSE(hidden->known);
  EXPECT_EQ(hidden->written, "real* p, int n");
  EXPECT_EQ(hidden->why, "NVRTC could not tell them");
  EXPECT_EQ(r.signature("hidden"), std::nullopt);
  const rtc::ExternCParams* member = r.extern_c_params("member");
  ASSERT_NE(member, nullptr);
  EXPECT_FALSE(member->known);
  EXPECT_EQ(member->written, "int S::* f, S* s, int* out");
  EXPECT_EQ(member->why, "parameter 1's type, 'int S::*', is not one warplab can pass");
  // One kernel NVRTC cannot name does not cost the others theirs.
  EXPECT_EQ(signature(r, "fine"), "fine(int*)");
}

TEST(ExternCCompile, KeptByTheCache) {
  // One kernel read, one not (a struct inside a namespace), through the cache's JSON and back.
  const rtc::CompileResult r = compile(
      "#define T double\nextern \"C\" __global__ void k(T* x) {}\n"
      "namespace n { struct Q {}; extern \"C\" __global__ void h(Q* x, int S) {} }");
  ASSERT_TRUE(r.ok) << r.log;
  rtc::CompileResult back;
  rtc::from_cache_json(rtc::to_cache_json(r), back);
  ASSERT_EQ(back.extern_c.size(), 2u);
  EXPECT_EQ(signature(back, "k"), "k(double*)");
  EXPECT_EQ(back.extern_c_params("h")->written, "Q* x, int S");
  EXPECT_EQ(back.extern_c_params("h")->known, r.extern_c_params("h")->known);
  EXPECT_EQ(back.extern_c_params("h")->why, r.extern_c_params("h")->why);
}
