// fp16 conversions against the compiler's own _Float16 (IEEE binary16 with
// round-to-nearest-even), exhaustively for half -> float and on every float
// class plus random bit patterns for float -> half.

#include "shardlab/kernels/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "shardlab/kernels/embedding_bag.h"

namespace shardlab::kernels {
namespace {

uint16_t reference_half_bits(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

bool is_nan_half(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }

TEST(HalfTest, EveryHalfConvertsToTheSameFloatAsTheCompiler) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    _Float16 ref;
    std::memcpy(&ref, &bits, sizeof ref);
    const float mine = half_bits_to_float(bits);
    if (is_nan_half(bits)) {
      EXPECT_TRUE(std::isnan(mine)) << h;
      continue;
    }
    EXPECT_EQ(float_bits(mine), float_bits(static_cast<float>(ref))) << "half bits " << h;
    // And back: every half round-trips.
    EXPECT_EQ(float_to_half_bits(mine), bits) << "half bits " << h;
  }
}

TEST(HalfTest, FloatToHalfRoundsToNearestEvenLikeTheCompiler) {
  const float cases[] = {0.0f,
                         -0.0f,
                         1.0f,
                         65504.0f,
                         65519.99f,
                         65520.0f,
                         1e9f,
                         -1e9f,
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(),
                         std::ldexp(1.0f, -24),
                         std::ldexp(1.0f, -25),
                         std::ldexp(1.5f, -25),
                         std::ldexp(1.0f, -26),
                         std::ldexp(1.0f, -14),
                         std::ldexp(1023.5f, -24),
                         1.0f + std::ldexp(1.0f, -11),
                         1.0f + std::ldexp(3.0f, -11),
                         2049.0f,
                         2051.0f};
  for (float f : cases) EXPECT_EQ(float_to_half_bits(f), reference_half_bits(f)) << f;
  EXPECT_TRUE(is_nan_half(float_to_half_bits(std::numeric_limits<float>::quiet_NaN())));

  std::mt19937 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const float f = bits_float(rng());
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_half_bits(f), reference_half_bits(f)) << "float bits " << float_bits(f);
  }
  // Dense around the half range's interesting part (exponents 2^-26 .. 2^17).
  std::uniform_int_distribution<uint32_t> near(0x32000000u, 0x48000000u);
  for (int i = 0; i < 2000000; ++i) {
    const float f = bits_float(near(rng)) * ((i & 1) ? -1.0f : 1.0f);
    ASSERT_EQ(float_to_half_bits(f), reference_half_bits(f)) << "float bits " << float_bits(f);
  }
}

TEST(HalfTest, VectorisedRoundingEqualsTheScalarConversion) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> near(0x30000000u, 0x48000000u);
  std::vector<float> in;
  for (int i = 0; i < 1 << 21; ++i) {
    const float f =
        (i % 3 == 0) ? bits_float(rng()) : bits_float(near(rng)) * ((i & 1) ? -1.0f : 1.0f);
    in.push_back(std::isnan(f) ? 0.0f : f);
  }
  std::vector<Half> out(in.size());
  // Odd lengths and offsets: vector bodies and scalar tails.
  for (size_t start : {size_t{0}, size_t{3}}) {
    round_to_halves(std::span<const float>(in).subspan(start, in.size() - start - 5),
                    std::span<Half>(out).subspan(start));
    for (size_t i = start; i < in.size() - 5; ++i) {
      ASSERT_EQ(out[i].bits, float_to_half_bits(in[i])) << "float bits " << float_bits(in[i]);
    }
  }
}

}  // namespace
}  // namespace shardlab::kernels
