// Divisor search for the column-wise split (shard_layout.cc): TorchRec scans
// every candidate block width from the minimum partition up to the table's
// dim, which is linear in the dim. A dim is bounded only by the byte counts
// it feeds (up to about 2^59), so the search here factors instead.
#pragma once

#include <cstdint>

namespace shardlab::planner::internal {

// The smallest divisor d of `n` with `at_least` <= d < n, or n when there is
// none. REQUIRES: n >= 1, at_least >= 1. Time is polynomial in the number of
// digits of n (Pollard's rho), so any int64 value is answered in microseconds.
uint64_t smallest_divisor_at_least(uint64_t n, uint64_t at_least);

}  // namespace shardlab::planner::internal
