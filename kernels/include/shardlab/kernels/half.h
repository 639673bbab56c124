// IEEE binary16 storage for fp16 embedding tables, shared by host and device
// code. Only conversions live here: arithmetic is done in fp32 (load, compute,
// round back), as the replay semantics prescribe.
//
// float -> half rounds to nearest, ties to even, with overflow to infinity and
// gradual underflow to subnormals; NaN stays NaN (quiet). half -> float is exact.
#pragma once

#include <cstdint>
#include <cstring>

#include "shardlab/kernels/id_stream.h"  // SHARDLAB_HD

namespace shardlab::kernels {

SHARDLAB_HD inline uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

SHARDLAB_HD inline float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

SHARDLAB_HD inline uint16_t float_to_half_bits(float value) {
  const uint32_t x = float_bits(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u)
    return static_cast<uint16_t>(sign | (abs > 0x7F800000u ? 0x7E00u : 0x7C00u));
  // 65520 (halfway between 65504 and the next binade) ties to the even side: infinity.
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  if (abs < 0x38800000u) {  // below 2^-14: a subnormal half (units of 2^-24) or zero
    if (abs < 0x33000000u)
      return static_cast<uint16_t>(sign);  // <= 2^-25 rounds to zero (the tie is even)
    const uint32_t exponent = abs >> 23;   // 102 .. 112
    const uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - exponent;  // 14 .. 24
    uint32_t q = mantissa >> shift;
    const uint32_t rem = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (q & 1u)))
      ++q;  // may carry into the smallest normal: still right
    return static_cast<uint16_t>(sign | q);
  }
  const uint32_t rebased = abs - ((127u - 15u) << 23);
  uint32_t q = rebased >> 13;
  const uint32_t rem = rebased & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))
    ++q;  // a carry bumps the exponent, as it should
  return static_cast<uint16_t>(sign | q);
}

SHARDLAB_HD inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0) {
    if (mantissa == 0) return bits_float(sign);
    uint32_t e = 113;  // 2^-14 biased for fp32, then normalise the subnormal
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --e;
    }
    return bits_float(sign | (e << 23) | ((mantissa & 0x3FFu) << 13));
  }
  if (exponent == 31) return bits_float(sign | 0x7F800000u | (mantissa << 13));
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

// One fp16 element: the bits, nothing else (same size and layout as CUDA's __half).
struct Half {
  uint16_t bits = 0;

  SHARDLAB_HD static Half from_float(float f) { return Half{float_to_half_bits(f)}; }
  SHARDLAB_HD float to_float() const { return half_bits_to_float(bits); }
};
static_assert(sizeof(Half) == 2, "Half must be 2 bytes");

}  // namespace shardlab::kernels
