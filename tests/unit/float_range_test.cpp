// float_range_test.cpp: a finite number never silently becomes inf: beyond a float type's
// range it is refused with the range, as an integer that does not fit is, for a kernel's
// float/half parameter (lab::put_float, range_text), an array element (store_element) and
// fill/iota/random; infinities and NaN pass as themselves. No GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "cu/dtype.hpp"
#include "lab/array.hpp"
#include "lab/array_fill.hpp"
#include "lab/launch.hpp"
#include "lab_test_util.hpp"

using namespace warplab;
using cu::DType;
using test::error_of;

namespace {

lab::ArgSlot float_slot(std::size_t size) {
  lab::ArgSlot s;
  s.kind = rtc::ParamType::Kind::Float;
  s.size = size;
  return s;
}

lab::HostArray host_array(DType t, std::size_t n) {
  lab::HostArray h;
  h.type = t;
  h.count = n;
  h.buf = std::make_shared<cu::HostBuffer>(cu::HostBuffer::pageable(n * h.elem()));
  return h;
}

}  // namespace

TEST(FloatRange, FitsUpToTheLargestFiniteValue) {
  EXPECT_TRUE(cu::float_fits(DType::F32, 3.4e38));
  EXPECT_FALSE(cu::float_fits(DType::F32, 1e300));
  EXPECT_FALSE(cu::float_fits(DType::F32, -1e39));
  EXPECT_TRUE(cu::float_fits(DType::F16, 65504));
  EXPECT_TRUE(cu::float_fits(DType::F16, 65519));   // rounds down to 65504
  EXPECT_FALSE(cu::float_fits(DType::F16, 65520));  // rounds to inf
  EXPECT_FALSE(cu::float_fits(DType::F16, -70000));
  EXPECT_TRUE(cu::float_fits(DType::F64, 1e308));
  EXPECT_TRUE(cu::float_fits(DType::F32, std::numeric_limits<double>::infinity()));  // inf as itself
  EXPECT_TRUE(cu::float_fits(DType::F16, std::nan("")));
  EXPECT_EQ(cu::float_max(DType::F16), 65504.0);
  EXPECT_EQ(cu::float_max(DType::F32), static_cast<double>(std::numeric_limits<float>::max()));
}

TEST(FloatRange, KernelParametersRefuseWhatWouldBecomeInf) {
  unsigned char buf[8] = {};
  EXPECT_TRUE(lab::put_float(float_slot(4), buf, 2.5));
  float f = 0;
  std::memcpy(&f, buf, 4);
  EXPECT_EQ(f, 2.5f);
  std::memset(buf, 0x5a, sizeof buf);
  EXPECT_FALSE(lab::put_float(float_slot(4), buf, 1e300));
  EXPECT_EQ(buf[0], 0x5a);  // nothing written on a refusal
  EXPECT_FALSE(lab::put_float(float_slot(2), buf, 1e5));
  EXPECT_TRUE(lab::put_float(float_slot(4), buf, -std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(lab::put_float(float_slot(8), buf, 1e300));
  EXPECT_EQ(lab::range_text(float_slot(4)), "float: finite values up to ±3.4028234663853e+38");
  EXPECT_EQ(lab::range_text(float_slot(2)), "half: finite values up to ±65504");
}

TEST(FloatRange, ArrayElementsRefuseWhatWouldBecomeInf) {
  unsigned char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(error_of([&] {
              lab::store_element(DType::F32, buf, {false, 0, 1e300}, "value");
            }),
            "value 1e+300 does not fit f32 (finite values up to ±3.4028234663853e+38)");
  EXPECT_EQ(error_of([&] {
              lab::store_element(DType::F16, buf, {true, 70000, 0}, "fill value");
            }),
            "fill value 70000 does not fit f16 (finite values up to ±65504)");
  EXPECT_EQ(buf[0], 1);  // nothing written
  EXPECT_EQ(
      error_of([&] {
        lab::store_element(DType::F32, buf, {false, 0, std::numeric_limits<double>::infinity()}, "value");
      }),
      "");
  float f = 0;
  std::memcpy(&f, buf, 4);
  EXPECT_TRUE(std::isinf(f));
}

TEST(FloatRange, IotaAndRandomStayInRange) {
  const lab::HostArray h = host_array(DType::F16, 4);
  const lab::Elements e = lab::elements_of(h);
  EXPECT_EQ(error_of([&] { lab::iota(e, 0, 30000); }),
            "iota: 4 elements from 0 by 30000 end at 90000, beyond f16's finite values (up to ±65504)");
  EXPECT_EQ(error_of([&] { lab::iota(e, 0, 20000); }), "");
  EXPECT_EQ(error_of([&] { lab::random(e, 1, 0, 1e6); }),
            "random: [0, 1000000] goes beyond f16's finite values (up to ±65504)");
  EXPECT_EQ(error_of([&] { lab::random(e, 1, -1, 1); }), "");
}
