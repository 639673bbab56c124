// Pieces both calibration fits share (calibration_fit.cc for lookups and
// collectives, calibration_gemm.cc for the dense model's GEMMs): the seeded
// per-group hold-out split and the error sums. Private to the kernels library.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "shardlab/kernels/calibration.h"

namespace shardlab::kernels::internal {

// splitmix64: a portable generator, so a seed gives the same split everywhere.
struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); the modulo bias (n < 2^32 here) is negligible.
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
};

// Splits one group's records (indices, in any order): a group of 2 or more
// holds out round(fraction · n) of them, at least 1 when fraction > 0 and
// keeps at least 1 for the fit. Fisher-Yates on the group's own stream:
// `seed` mixed with the FNV-1a hash of the group's name ("fwd fused/full",
// "comm inter_host", "gemm tf32"), so a group's split depends only on its
// records, its name and the seed, never on how many groups there are.
// Appends to `out` unsorted.
inline void split_group(std::vector<size_t> recs, double fraction, uint64_t seed,
                        std::string_view group, HoldoutSplit* out) {
  const size_t n = recs.size();
  size_t held = 0;
  if (n >= 2 && fraction > 0.0) {
    held = static_cast<size_t>(std::llround(fraction * static_cast<double>(n)));
    held = std::clamp<size_t>(held, 1, n - 1);
  }
  uint64_t name_hash = 0xCBF29CE484222325ull;
  for (const char c : group)
    name_hash = (name_hash ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  SplitMix rng{seed ^ name_hash};
  for (size_t i = n; i > 1; --i) std::swap(recs[i - 1], recs[rng.below(i)]);
  out->held_out.insert(out->held_out.end(), recs.begin(),
                       recs.begin() + static_cast<std::ptrdiff_t>(held));
  out->fit.insert(out->fit.end(), recs.begin() + static_cast<std::ptrdiff_t>(held), recs.end());
}

// The options' ranges (hold-out fraction, bandwidths, backward multiplier):
// kInvalidArgument naming the first out of range, else OK.
Status check_calibration_options(const CalibrationOptions& options);

// Mean absolute percentage error of one model over some records.
struct ErrorSum {
  double sum = 0.0;
  int n = 0;
  void add(double predicted, double measured) {
    sum += std::abs(predicted - measured) / measured;
    ++n;
  }
  std::optional<double> mape() const {
    return n > 0 ? std::optional<double>(100.0 * sum / n) : std::nullopt;
  }
};

}  // namespace shardlab::kernels::internal
