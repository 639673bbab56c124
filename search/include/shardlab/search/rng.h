// The search's random numbers: xoshiro256** seeded through splitmix64, with
// integer and real draws defined here rather than by the standard library's
// distributions (whose algorithms differ between implementations), so a seed
// gives the same sequence with any compiler and library.
#pragma once

#include <cstdint>

namespace shardlab::search {

class Rng {
  __extension__ using Wide = unsigned __int128;

 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      s = z ^ (z >> 31);
    }
  }

  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, n), n >= 1 (Lemire's multiply-shift; the bias for the n
  // of a plan search, far below 2^32, is under 2^-32 and ignored).
  int below(int n) {
    return static_cast<int>((static_cast<Wide>(next()) * static_cast<uint64_t>(n)) >> 64);
  }

  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // True with probability p.
  bool chance(double p) { return uniform() < p; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

}  // namespace shardlab::search
