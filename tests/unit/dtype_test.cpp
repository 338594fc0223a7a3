// dtype_test.cpp: element types: parsing, sizes, range checks, binary16 conversion,
// and which kernel pointer types accept which arrays.
#include <gtest/gtest.h>

#include <cmath>

#include "cu/dtype.hpp"

using namespace warplab::cu;

TEST(DType, ParseAndSizes) {
  EXPECT_EQ(parse_dtype("f32"), DType::F32);
  EXPECT_EQ(parse_dtype("float"), DType::F32);
  EXPECT_EQ(parse_dtype("u8"), DType::U8);
  EXPECT_FALSE(parse_dtype("f128").has_value());
  EXPECT_EQ(dtype_info(DType::F16).size, 2);
  EXPECT_EQ(dtype_info(DType::U64).size, 8);
  EXPECT_EQ(dtype_names(), "i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64");
}

TEST(DType, RoundTripsEveryType) {
  unsigned char buf[8];
  for (auto t :
       {DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64}) {
    store_int(t, buf, 100);
    EXPECT_EQ(load_int(t, buf), 100) << dtype_info(t).name;
  }
  store_int(DType::I8, buf, -5);
  EXPECT_EQ(load_int(DType::I8, buf), -5);
  store_float(DType::F64, buf, 0.1);
  EXPECT_EQ(load_float(DType::F64, buf), 0.1);
  store_float(DType::F32, buf, 0.1);
  EXPECT_EQ(load_float(DType::F32, buf), static_cast<double>(0.1f));
}

TEST(DType, Ranges) {
  EXPECT_TRUE(int_fits(DType::U8, 255));
  EXPECT_FALSE(int_fits(DType::U8, 256));
  EXPECT_FALSE(int_fits(DType::U32, -1));
  EXPECT_TRUE(int_fits(DType::I32, -2147483648ll));
  EXPECT_FALSE(int_fits(DType::I32, 2147483648ll));
}

TEST(DType, HalfConversion) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);               // largest finite
  EXPECT_EQ(float_to_half(1e6f), 0x7C00);                   // overflow -> inf
  EXPECT_EQ(float_to_half(5.960464477539063e-8f), 0x0001);  // smallest subnormal
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
  // Every finite half survives half -> float -> half exactly.
  for (unsigned h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00) continue;
    ASSERT_EQ(float_to_half(half_to_float(static_cast<std::uint16_t>(h))), h) << h;
  }
  // Ties round to even: 1 + 2^-11 is halfway between 1 and the next half.
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3C00);
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048), 0x3C02);
}

TEST(DType, PointeeMatching) {
  EXPECT_TRUE(pointee_accepts("float", DType::F32));
  EXPECT_FALSE(pointee_accepts("int", DType::F32));
  EXPECT_TRUE(pointee_accepts("void", DType::U8));
  EXPECT_TRUE(pointee_accepts("unsigned long long", DType::U64));
  EXPECT_TRUE(pointee_accepts("__half", DType::F16));
  EXPECT_FALSE(pointee_accepts("unsigned int", DType::I32));
}

TEST(DType, Articles) {
  EXPECT_EQ(dtype_article(DType::F32), "an");
  EXPECT_EQ(dtype_article(DType::I8), "an");
  EXPECT_EQ(dtype_article(DType::U8), "a");
}
