// lab_array_test.cpp: the Lua-free array logic of host/lab: element conversion and its
// sentences, index/count/view/shape/:set checks, the seeded generator, fill/iota/random
// over a pageable host array, JSON decoding and the host hooks. No GPU, no Lua.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "lab/array.hpp"
#include "lab/array_fill.hpp"
#include "lab/json.hpp"
#include "lab/warplab_table.hpp"
#include "lab_test_util.hpp"

using namespace warplab;
using cu::DType;
using test::error_of;

namespace {

lab::Number integer(std::int64_t i) { return {true, i, 0}; }
lab::Number real(double x) { return {false, 0, x}; }

// A zeroed pageable host array of n elements of type t.
lab::HostArray host_array(DType t, std::size_t n) {
  lab::HostArray h;
  h.type = t;
  h.count = n;
  h.buf = std::make_shared<cu::HostBuffer>(cu::HostBuffer::pageable(n * h.elem()));
  return h;
}

std::vector<lab::Number> values(const lab::HostArray& h) {
  std::vector<lab::Number> out;
  for (std::size_t i = 0; i < h.count; ++i) out.push_back(lab::load_element(h.type, h.data() + i * h.elem()));
  return out;
}

}  // namespace

TEST(LabArray, NumbersAreWrittenAsPeopleWriteThem) {
  EXPECT_EQ(lab::num(299), "299");
  EXPECT_EQ(lab::num(0.5), "0.5");
  EXPECT_EQ(lab::num(1e100), "1e+100");
}

TEST(LabArray, ElementsRoundTripThroughMemory) {
  unsigned char buf[8];
  lab::store_element(DType::I32, buf, integer(-7), "value");
  EXPECT_EQ(lab::load_element(DType::I32, buf).i, -7);
  EXPECT_TRUE(lab::load_element(DType::I32, buf).integer);
  lab::store_element(DType::U8, buf, real(200.0), "value");  // an integral float is accepted
  EXPECT_EQ(lab::load_element(DType::U8, buf).i, 200);
  lab::store_element(DType::F32, buf, integer(3), "value");  // an integer into a float array
  EXPECT_FALSE(lab::load_element(DType::F32, buf).integer);
  EXPECT_EQ(lab::load_element(DType::F32, buf).x, 3.0);
  lab::store_element(DType::F64, buf, real(0.1), "value");
  EXPECT_EQ(lab::load_element(DType::F64, buf).x, 0.1);
  std::memset(buf, 0xff, sizeof buf);  // u64 max reads as -1, as Lua shows it
  EXPECT_EQ(lab::load_element(DType::U64, buf).i, -1);
  EXPECT_EQ(error_of([&] { lab::store_element(DType::U64, buf, integer(-1), "value"); }),
            "value -1 does not fit u64");
}

TEST(LabArray, ElementsOutOfRangeSaySo) {
  unsigned char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(error_of([&] { lab::store_element(DType::I32, buf, real(1.5), "value"); }),
            "value 1.5 is not an integer (array type i32)");
  EXPECT_EQ(error_of([&] { lab::store_element(DType::U8, buf, integer(300), "element"); }),
            "element 300 does not fit u8");
  EXPECT_EQ(error_of([&] { lab::store_element(DType::U8, buf, integer(-1), "fill value"); }),
            "fill value -1 does not fit u8");
  EXPECT_EQ(error_of([&] { lab::store_element(DType::I64, buf, real(1e100), "value"); }),
            "value 1e+100 does not fit i64");
  EXPECT_EQ(buf[0], 1);  // nothing written on a refusal
  EXPECT_EQ(lab::not_a_number("value", DType::I32, "string"),
            "value must be a number for an i32 array, got string");
  EXPECT_EQ(lab::not_a_number("fill value", DType::U8, "table"),
            "fill value must be a number for a u8 array, got table");
}

TEST(LabArray, IndicesAreOneBasedAndChecked) {
  EXPECT_EQ(lab::index0(1, 8, "array"), 0u);
  EXPECT_EQ(lab::index0(8, 8, "array"), 7u);
  EXPECT_EQ(error_of([] { lab::index0(9, 8, "array"); }),
            "index 9 out of range: the array has 8 elements (valid: 1..8)");
  EXPECT_EQ(error_of([] { lab::index0(0, 3, "host array"); }),
            "index 0 out of range: the host array has 3 elements (valid: 1..3)");
  EXPECT_NE(error_of([] { lab::index0(-1, 3, "array"); }), "");
}

TEST(LabArray, CountsMustFitTheMemoryOfAnyMachine) {
  EXPECT_EQ(lab::check_count(1000, DType::F32, "cuda.array"), 1000u);
  EXPECT_EQ(lab::check_count(std::int64_t{1} << 54, DType::F32, "cuda.array"), std::size_t{1} << 54);
  EXPECT_EQ(error_of([] { lab::check_count((std::int64_t{1} << 54) + 1, DType::F32, "cuda.array"); }),
            "cuda.array: 18014398509481985 elements of f32 are more than any device holds");
  EXPECT_EQ(error_of([] { lab::check_count(std::int64_t{1} << 60, DType::U8, "cuda.host_array"); }),
            "cuda.host_array: 1152921504606846976 elements of u8 are more than any machine holds");
}

TEST(LabArray, OfflineArraysFitTheProfilesDevice) {
  EXPECT_NO_THROW(lab::check_offline_bytes(1024, 1 << 20, "H200"));
  EXPECT_EQ(error_of([] { lab::check_offline_bytes(4096, 2048, "Tiny GPU"); }),
            "cuda.array: 4 KiB requested, more than the 2 KiB of Tiny GPU (offline, arrays live in host "
            "memory)");
}

TEST(LabArray, CopiesNeedTheSameShape) {
  EXPECT_NO_THROW(lab::check_same_shape(DType::F32, 4, DType::F32, 4));
  EXPECT_EQ(error_of([] { lab::check_same_shape(DType::F32, 4, DType::I32, 4); }),
            "copy needs the same type and length: f32[4] <- i32[4]");
  EXPECT_EQ(error_of([] { lab::check_same_shape(DType::U8, 2, DType::U8, 3); }),
            "copy needs the same type and length: u8[2] <- u8[3]");
}

TEST(LabArray, ViewsStayInsideTheirArray) {
  const lab::Range rest = lab::view_range(3, std::nullopt, 8, "an array");
  EXPECT_EQ(rest.first, 2u);
  EXPECT_EQ(rest.count, 6u);
  const lab::Range two = lab::view_range(7, 2, 8, "an array");
  EXPECT_EQ(two.first, 6u);
  EXPECT_EQ(two.count, 2u);
  EXPECT_EQ(error_of([] { lab::view_range(0, std::nullopt, 8, "an array"); }),
            "view(0) does not fit in an array of 8 elements");
  EXPECT_EQ(error_of([] { lab::view_range(7, 3, 8, "a host array"); }),
            "view(7, 3) does not fit in a host array of 8 elements");
  EXPECT_EQ(error_of([] { lab::view_range(INT64_MAX, std::nullopt, 8, "an array"); }),
            "view(9223372036854775807) does not fit in an array of 8 elements");
  EXPECT_NE(error_of([] { lab::view_range(1, 0, 8, "an array"); }), "");

  lab::HostArray h = host_array(DType::I32, 8);
  const lab::HostArray v = lab::view_of(lab::view_of(h, {2, 6}), {1, 3});  // a view of a view
  EXPECT_TRUE(v.view);
  EXPECT_EQ(v.first, 3u);
  EXPECT_EQ(v.count, 3u);
  EXPECT_EQ(v.data(), h.data() + 3 * 4);
}

TEST(LabArray, SetPlacesValuesInsideTheArray) {
  EXPECT_EQ(lab::set_start(1, 4, 4), 0u);
  EXPECT_EQ(lab::set_start(3, 2, 4), 2u);
  EXPECT_EQ(lab::set_start(5, 0, 4), 4u);
  EXPECT_EQ(error_of([] { lab::set_start(2, 4, 4); }), "set: 4 values at index 2 do not fit in 4 elements");
  EXPECT_EQ(error_of([] { lab::set_start(0, 1, 4); }), "set: 1 values at index 0 do not fit in 4 elements");
}

TEST(LabArray, TheGeneratorIsDeterministic) {
  lab::Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
  lab::Rng u(7);
  for (int i = 0; i < 1000; ++i) {
    const double x = u.uniform();
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
}

TEST(LabArray, FillIotaAndRandomWriteEveryElement) {
  lab::HostArray h = host_array(DType::I16, 5);
  const lab::Elements e = lab::elements_of(h);
  const unsigned char seven[2] = {7, 0};
  lab::fill(e, seven);
  for (const auto& v : values(h)) EXPECT_EQ(v.i, 7);
  lab::iota(e, 10, -3);
  const auto iv = values(h);
  for (std::size_t i = 0; i < iv.size(); ++i) EXPECT_EQ(iv[i].i, 10 - 3 * static_cast<std::int64_t>(i));

  lab::random(e, 5, -2, 2);
  const auto r1 = values(h);
  for (const auto& v : r1) {
    EXPECT_GE(v.i, -2);
    EXPECT_LE(v.i, 2);
  }
  lab::random(e, 5, -2, 2);
  const auto r2 = values(h);
  for (std::size_t i = 0; i < r1.size(); ++i) EXPECT_EQ(r1[i].i, r2[i].i);  // same seed, same values

  lab::HostArray f = host_array(DType::F64, 64);
  lab::random(lab::elements_of(f), 1, 0.25, 0.5);
  for (const auto& v : values(f)) {
    EXPECT_GE(v.x, 0.25);
    EXPECT_LT(v.x, 0.5);
  }
  lab::iota(lab::elements_of(f), 0.5, 0.25);
  EXPECT_EQ(values(f)[3].x, 1.25);
}

TEST(LabArray, FillsRefuseBadArgumentsBeforeWriting) {
  lab::HostArray h = host_array(DType::U8, 4);
  const lab::Elements e = lab::elements_of(h);
  EXPECT_EQ(error_of([&] { lab::iota(e, 0.5, 1); }), "iota: start and step must be integers for a u8 array");
  EXPECT_EQ(error_of([&] { lab::iota(e, 250, 2); }),
            "iota: 4 elements from 250 by 2 end at 256, which does not fit u8");
  EXPECT_EQ(error_of([&] { lab::random(e, 1, 2, 1); }), "random: lo (2) must not exceed hi (1)");
  EXPECT_EQ(error_of([&] { lab::random(e, 1, 0, 300); }), "random: [0, 300] does not fit u8");
  EXPECT_EQ(error_of([&] { lab::random(e, 1, 0.2, 0.8); }), "random: no integer lies in [0.2, 0.8]");
  for (const auto& v : values(h)) EXPECT_EQ(v.i, 0);  // untouched
}

TEST(LabArray, CopiesAndZeroBetweenHostArrays) {
  lab::HostArray a = host_array(DType::I32, 3), b = host_array(DType::I32, 3);
  lab::iota(lab::elements_of(a), 1, 1);
  lab::copy(b, a);
  EXPECT_EQ(values(b)[2].i, 3);
  lab::zero(a);
  EXPECT_EQ(values(a)[2].i, 0);
  lab::HostArray c = host_array(DType::I32, 2);
  EXPECT_EQ(error_of([&] { lab::copy(c, b); }), "copy needs the same type and length: i32[2] <- i32[3]");
  lab::HostArray v = lab::view_of(b, {1, 2});
  lab::release(v, false);  // a view only detaches
  EXPECT_TRUE(v.freed());
  EXPECT_FALSE(b.freed());
  lab::release(b, false);
  EXPECT_TRUE(b.freed());
}

TEST(LabJson, DecodesAndRefusesWithOneSentence) {
  EXPECT_EQ(lab::decode_json(R"({"a": [1, 2.5, null]})")["a"][1].get<double>(), 2.5);
  EXPECT_EQ(
      error_of([] { lab::decode_json("{oops}"); }).rfind("json.decode: invalid JSON at line 1, column ", 0),
      0u);
  EXPECT_EQ(error_of([] { lab::decode_json(std::string(202, '[') + std::string(202, ']')); }),
            "json.decode: nested deeper than 200 levels");
  EXPECT_NO_THROW(lab::decode_json(std::string(201, '[') + std::string(201, ']')));
}

TEST(LabHost, MakeDirMakesParentsAndNamesWhatIsInTheWay) {
  const auto root = std::filesystem::temp_directory_path() / ("lab_host_test_" + std::to_string(::getpid()));
  EXPECT_EQ(lab::make_dir((root / "a" / "b").string()), std::nullopt);
  EXPECT_TRUE(std::filesystem::is_directory(root / "a" / "b"));
  std::ofstream(root / "file") << "x";
  const std::string why =
      lab::make_dir((root / "file" / "sub").string()).value_or("");  // a file is in the way
  EXPECT_EQ(why.rfind("cannot create the folder '" + (root / "file" / "sub").string() + "': ", 0), 0u) << why;
  std::filesystem::remove_all(root);
  const double t0 = lab::now_seconds();
  EXPECT_GE(lab::now_seconds(), t0);
}
