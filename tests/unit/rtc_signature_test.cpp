// rtc_signature_test.cpp: parameter types from mangled names (as NVRTC lowers them) and
// from declared text, the spellings and kinds the launch checks rely on, error sentences.
#include <gtest/gtest.h>

#include "rtc/compile.hpp"

namespace rtc = warplab::rtc;
using Kind = rtc::ParamType::Kind;

namespace {

rtc::Signature must_demangle(const std::string& mangled) {
  const auto s = rtc::demangle(mangled);
  if (!s) ADD_FAILURE() << mangled << " did not demangle";
  return s.value_or(rtc::Signature{});
}

}  // namespace

TEST(Demangle, PointersConstAndInt) {
  const auto s = must_demangle("_Z1kPKfPfi");
  EXPECT_EQ(s.name, "k");
  EXPECT_EQ(s.base, "k");
  EXPECT_EQ(s.demangled, "k(float const*, float*, int)");
  EXPECT_EQ(s.to_string(), "k(const float*, float*, int)");
  ASSERT_EQ(s.params.size(), 3u);
  EXPECT_EQ(s.params[0].kind, Kind::Pointer);
  EXPECT_EQ(s.params[0].pointee, "float");
  EXPECT_TRUE(s.params[0].pointee_const);
  EXPECT_EQ(s.params[0].size, 8);
  EXPECT_FALSE(s.params[1].pointee_const);
  EXPECT_EQ(s.params[2].kind, Kind::Signed);
  EXPECT_EQ(s.params[2].size, 4);
}

TEST(Demangle, IntegerWidthsAndSigns) {
  // unsigned long, long long, signed char, short, unsigned short, unsigned char,
  // unsigned int, bool, double, char, unsigned long long
  const auto s = must_demangle("_Z1kmxasthjbdcy");
  const std::vector<std::tuple<std::string, Kind, int>> want = {{"unsigned long", Kind::Unsigned, 8},
                                                                {"long long", Kind::Signed, 8},
                                                                {"signed char", Kind::Signed, 1},
                                                                {"short", Kind::Signed, 2},
                                                                {"unsigned short", Kind::Unsigned, 2},
                                                                {"unsigned char", Kind::Unsigned, 1},
                                                                {"unsigned int", Kind::Unsigned, 4},
                                                                {"bool", Kind::Bool, 1},
                                                                {"double", Kind::Float, 8},
                                                                {"char", Kind::Signed, 1},
                                                                {"unsigned long long", Kind::Unsigned, 8}};
  ASSERT_EQ(s.params.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(s.params[i].spelling, std::get<0>(want[i])) << i;
    EXPECT_EQ(s.params[i].kind, std::get<1>(want[i])) << i;
    EXPECT_EQ(s.params[i].size, std::get<2>(want[i])) << i;
  }
}

TEST(Demangle, HalfBfloatAndVectorTypes) {
  // k(__half*, __half, __nv_bfloat16 const*, float2, int4, double2*, uchar3)
  const auto s = must_demangle("_Z1kP6__halfS_PK13__nv_bfloat166float24int4P7double26uchar3");
  ASSERT_EQ(s.params.size(), 7u) << s.demangled;
  EXPECT_EQ(s.params[0].pointee, "__half");
  EXPECT_EQ(s.params[1].kind, Kind::Float);
  EXPECT_EQ(s.params[1].size, 2);
  EXPECT_EQ(s.params[2].spelling, "const __nv_bfloat16*");
  EXPECT_EQ(s.params[2].pointee, "__nv_bfloat16");
  EXPECT_EQ(s.params[3].kind, Kind::Other);
  EXPECT_EQ(s.params[3].size, 8);
  EXPECT_EQ(s.params[4].size, 16);
  EXPECT_EQ(s.params[5].pointee, "double2");
  EXPECT_EQ(s.params[6].size, 3);
}

TEST(Demangle, TemplatesAndNamespaces) {
  const auto r = must_demangle("_Z6reduceILi256EEvPf");
  EXPECT_EQ(r.name, "reduce<256>");
  EXPECT_EQ(r.base, "reduce");
  EXPECT_EQ(r.to_string(), "reduce<256>(float*)");

  const auto n = must_demangle("_ZN1a1b1kIfLi4EEEvP7double2");
  EXPECT_EQ(n.name, "a::b::k<float, 4>");
  EXPECT_EQ(n.base, "k");

  const auto nested = must_demangle("_Z1kIN2ns3FooIiEEEvT_");
  EXPECT_EQ(nested.name, "k<ns::Foo<int>>");
  ASSERT_EQ(nested.params.size(), 1u);
  EXPECT_EQ(nested.params[0].spelling, "ns::Foo<int>");
  EXPECT_EQ(nested.params[0].kind, Kind::Other);

  const auto anon = must_demangle("_ZN12_GLOBAL__N_11kEi");
  EXPECT_EQ(anon.name, "(anonymous namespace)::k");
  EXPECT_EQ(anon.base, "k");

  const auto ns = must_demangle("_ZN2ns5innerEPy6__half");
  EXPECT_EQ(ns.to_string(), "ns::inner(unsigned long long*, __half)");
  EXPECT_TRUE(must_demangle("_Z1kILb1EEvv").params.empty());
}

TEST(Demangle, PointerToPointerAndVolatile) {
  const auto s = must_demangle("_Z1kPPKfPVKi");
  ASSERT_EQ(s.params.size(), 2u);
  EXPECT_EQ(s.params[0].spelling, "const float**");
  EXPECT_EQ(s.params[0].pointee, "const float*");
  EXPECT_FALSE(s.params[0].pointee_const);
  EXPECT_EQ(s.params[1].pointee, "int");
  EXPECT_TRUE(s.params[1].pointee_const);
}

TEST(Demangle, ExternCAndGarbageAreNotMangled) {
  EXPECT_FALSE(rtc::demangle("plain").has_value());
  EXPECT_FALSE(rtc::demangle("_Zgarbage").has_value());
  EXPECT_FALSE(rtc::demangle("").has_value());
}

TEST(Demangle, AgreesWithWhatNvrtcLowers) {
  // The lowered names of real kernels demangle to the parameters they were declared with.
  rtc::Source src;
  src.name = "sig.cu";
  src.text = R"(
#include <cuda_fp16.h>
#include <cuda/std/cstdint>
using cuda::std::int8_t;
namespace lab { template <int B, typename T> __global__ void tile(const T* in, T* out, size_t n, int8_t s) {} }
template __global__ void lab::tile<128, __half>(const __half*, __half*, size_t, int8_t);
)";
  rtc::Options o;
  o.arch = "sm_90";
  o.name_expressions = {"lab::tile<128, __half>"};
  const auto r = rtc::compile(src, o);
  ASSERT_TRUE(r.ok) << r.log;
  const auto s = must_demangle(r.lowered_name("lab::tile<128, __half>"));
  EXPECT_EQ(s.to_string(), "lab::tile<128, __half>(const __half*, __half*, unsigned long, signed char)");
}

TEST(ParseSignature, DeclaredTextWithAndWithoutNames) {
  const auto s = rtc::parse_signature("saxpy", "const float* x, float *y, float a, size_t n");
  EXPECT_EQ(s.to_string(), "saxpy(const float*, float*, float, unsigned long)");
  EXPECT_EQ(s.base, "saxpy");
  EXPECT_EQ(s.params[3].kind, Kind::Unsigned);

  const auto t = rtc::parse_signature("k", "unsigned, long int, uint8_t*, half*, std::int64_t, MyStruct s");
  EXPECT_EQ(t.to_string(), "k(unsigned int, long, unsigned char*, __half*, long, MyStruct)");
  EXPECT_EQ(t.params[5].size, 0);  // unknown struct: size unknown

  EXPECT_TRUE(rtc::parse_signature("k", "").params.empty());
  EXPECT_TRUE(rtc::parse_signature("k", " void ").params.empty());
  EXPECT_EQ(rtc::parse_signature("k", "float const * const p").params[0].spelling, "const float* const");
}

TEST(ParseSignature, BadTextIsOneSentence) {
  auto message = [](const std::string& text) {
    try {
      rtc::parse_signature("k", text);
    } catch (const rtc::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("const float*, , int"),
            "bad signature for kernel 'k' (\"const float*, , int\"): parameter 2 is empty");
  EXPECT_EQ(message("float$"),
            "bad signature for kernel 'k' (\"float$\"): parameter 1 ('float$') has an unexpected '$'");
  EXPECT_EQ(message("int, const"),
            "bad signature for kernel 'k' (\"int, const\"): parameter 2 ('const') names no type");
  EXPECT_EQ(message("short long"),
            "bad signature for kernel 'k' (\"short long\"): parameter 1 ('short long') is not a valid "
            "combination of integer words");
  EXPECT_EQ(message("vector<int"), "bad signature for kernel 'k' (\"vector<int\"): unbalanced brackets");
  EXPECT_EQ(message("int, void"),
            "bad signature for kernel 'k' (\"int, void\"): parameter 2 ('void') has type void");
  EXPECT_EQ(message("int a b"),
            "bad signature for kernel 'k' (\"int a b\"): parameter 1 ('int a b') has text after the "
            "parameter name 'a'");
}

TEST(ParamType, ParseOneType) {
  EXPECT_EQ(rtc::parse_param_type("unsigned long long").size, 8);
  EXPECT_EQ(rtc::parse_param_type("_Float16").spelling, "__half");
  EXPECT_EQ(rtc::parse_param_type("void (*)(int)").kind, Kind::Pointer);
  EXPECT_EQ(rtc::parse_param_type("long double").kind, Kind::Float);
  EXPECT_THROW(rtc::parse_param_type("unsigned float"), rtc::Error);
  EXPECT_THROW(rtc::parse_param_type("int x"), rtc::Error);  // names only in signatures
}

TEST(Ptx, EntriesInOrderIncludingWeakTemplates) {
  rtc::Source src;
  src.name = "e.cu";
  src.text =
      "template <int N> __global__ void t(int* p) { p[0] = N; }\n"
      "template __global__ void t<3>(int*);\n"
      "extern \"C\" __global__ void c_kernel() {}\n"
      "__device__ int helper(int x) { return x + 1; }\n"
      "__global__ void k(float* p) { p[0] = helper(1); }\n";
  rtc::Options o;
  o.arch = "sm_80";
  const auto r = rtc::compile(src, o);
  ASSERT_TRUE(r.ok) << r.log;
  auto sorted = rtc::ptx_entries(r.ptx);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::string>{"_Z1kPf", "_Z1tILi3EEvPi", "c_kernel"}));
  EXPECT_EQ(rtc::ptx_entries(".visible .entry a(\n)\n// .entry not_me\n.weak .entry b()\n"),
            (std::vector<std::string>{"a", "b"}));
}
