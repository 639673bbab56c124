// Sums of byte counts across ranks and shards (limits.h): per-rank values fit
// in int64 with room to spare, but an option's total over 65,536 shards or a
// proposal's total over every table may not. Such sums saturate at INT64_MAX,
// more than any device or cluster holds, so fit checks keep TorchRec's answer;
// running sums that also subtract are kept exactly in 128 bits.
#pragma once

#include <cstdint>
#include <limits>

#include "shardlab/planner/types.h"

namespace shardlab::planner::internal {

inline int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return r;
}

inline void saturating_add(Storage& acc, const Storage& s) {
  acc.hbm = saturating_add(acc.hbm, s.hbm);
  acc.ddr = saturating_add(acc.ddr, s.ddr);
  acc.ssd = saturating_add(acc.ssd, s.ssd);
}

inline int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                              : std::numeric_limits<int64_t>::max();
  }
  return r;
}

// `count` copies of `s` summed (count >= 0), each component saturating as
// `count` saturating additions of it would.
inline Storage saturating_mul(const Storage& s, int64_t count) {
  return Storage{saturating_mul(s.hbm, count), saturating_mul(s.ddr, count),
                 saturating_mul(s.ssd, count)};
}

// A running storage sum that is added to and subtracted from: exact in 128
// bits, read back saturated.
class WideStorage {
 public:
  void add(const Storage& s, int sign) {
    hbm_ += sign * static_cast<Int128>(s.hbm);
    ddr_ += sign * static_cast<Int128>(s.ddr);
    ssd_ += sign * static_cast<Int128>(s.ssd);
  }
  Storage saturated() const { return Storage{clamp(hbm_), clamp(ddr_), clamp(ssd_)}; }

 private:
  __extension__ using Int128 = __int128;  // GCC/Clang builtin; -Wpedantic would flag it
  static int64_t clamp(Int128 v) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    return v > kMax ? kMax : (v < kMin ? kMin : static_cast<int64_t>(v));
  }
  Int128 hbm_ = 0;
  Int128 ssd_ = 0;
  Int128 ddr_ = 0;
};

}  // namespace shardlab::planner::internal
