// Storage checks and updates of a table-row-wise option on one host: shard
// i goes to the host's i-th device. Private to the partitioners.
//
// The greedy partitioner runs these for nearly every option of nearly every
// proposal that fits, so they are written for the vectorizer: contiguous
// arrays, `restrict` parameters (GCC ignores it on local pointers), no early
// exit. `free_*` point at the host's first device.
#pragma once

#include <cstdint>

#include "shardlab/planner/types.h"

namespace shardlab::planner {

// The HBM and DDR of a shard without SSD, 16 bytes (the greedy partitioner
// keeps two per option in its hot data; options with SSD read their shards).
struct HbmDdr {
  int64_t hbm = 0;
  int64_t ddr = 0;
  Storage storage() const { return Storage{hbm, ddr, 0}; }
};

// Whether shard i (storage need_*[i]) fits device i, for every i < n.
inline bool row_wise_fits(const int64_t* __restrict need_hbm, const int64_t* __restrict need_ddr,
                          int n, const int64_t* __restrict free_hbm,
                          const int64_t* __restrict free_ddr) {
  bool fits = true;
  for (int i = 0; i < n; ++i) fits &= (need_hbm[i] <= free_hbm[i]) & (need_ddr[i] <= free_ddr[i]);
  return fits;
}

// The same for shards 0..n-2 of storage `head` and shard n-1 of `tail`.
inline bool row_wise_fits(const HbmDdr& head, const HbmDdr& tail, int n, const int64_t* free_hbm,
                          const int64_t* free_ddr) {
  bool fits = tail.hbm <= free_hbm[n - 1] && tail.ddr <= free_ddr[n - 1];
  for (int i = 0; i + 1 < n; ++i) fits &= (head.hbm <= free_hbm[i]) & (head.ddr <= free_ddr[i]);
  return fits;
}

// The same answer with subtractions, which SSE2 vectorizes (it has no
// 64-bit compare): need <= free exactly when free - need has no sign bit,
// provided the difference does not overflow, i.e. when every value lies in
// (-2^62, 2^62); the caller checks that (kSmallStorage).
inline bool row_wise_fits_small(const int64_t* __restrict need_hbm,
                                const int64_t* __restrict need_ddr, int n,
                                const int64_t* __restrict free_hbm,
                                const int64_t* __restrict free_ddr) {
  int64_t signs = 0;
  for (int i = 0; i < n; ++i) signs |= (free_hbm[i] - need_hbm[i]) | (free_ddr[i] - need_ddr[i]);
  return signs >= 0;
}

// Shards 0..n-2 of storage `head` and shard n-1 of storage `tail` (n >= 1),
// by subtractions as above.
inline bool head_tail_fits_small(const HbmDdr& head, const HbmDdr& tail, int n,
                                 const int64_t* __restrict free_hbm,
                                 const int64_t* __restrict free_ddr) {
  const int64_t hbm = head.hbm;
  const int64_t ddr = head.ddr;
  int64_t signs = (free_hbm[n - 1] - tail.hbm) | (free_ddr[n - 1] - tail.ddr);
  for (int i = 0; i + 1 < n; ++i) signs |= (free_hbm[i] - hbm) | (free_ddr[i] - ddr);
  return signs >= 0;
}

inline void head_tail_take(const HbmDdr& head, const HbmDdr& tail, int n, int base,
                           int64_t* __restrict free_hbm, int64_t* __restrict free_ddr,
                           int* __restrict ranks) {
  const int64_t hbm = head.hbm;
  const int64_t ddr = head.ddr;
  for (int i = 0; i + 1 < n; ++i) {
    free_hbm[i] -= hbm;
    free_ddr[i] -= ddr;
  }
  free_hbm[n - 1] -= tail.hbm;
  free_ddr[n - 1] -= tail.ddr;
  for (int i = 0; i < n; ++i) ranks[i] = base + i;
}

inline void row_wise_take(const int64_t* __restrict need_hbm, const int64_t* __restrict need_ddr,
                          int n, int base, int64_t* __restrict free_hbm,
                          int64_t* __restrict free_ddr, int* __restrict ranks) {
  for (int i = 0; i < n; ++i) {
    free_hbm[i] -= need_hbm[i];
    free_ddr[i] -= need_ddr[i];
    ranks[i] = base + i;
  }
}

}  // namespace shardlab::planner
