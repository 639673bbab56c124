// Finding the tables that changed between two proposals. Private to the
// planner library.
//
// The planner loop and the partitioner see tens of thousands of proposals
// that usually differ from the previous one in a single table: blocks are
// compared with memcmp (vectorized by the C library) and only a block that
// differs is scanned entry by entry.
#pragma once

#include <cstddef>
#include <cstring>

namespace shardlab::planner {

// Calls fn(i) for every i < n with a[i] != b[i], in increasing order.
template <typename Fn>
void for_each_difference(const int* a, const int* b, size_t n, Fn&& fn) {
  constexpr size_t kBlock = 64;
  for (size_t i = 0; i < n; i += kBlock) {
    const size_t end = i + kBlock < n ? i + kBlock : n;
    if (std::memcmp(a + i, b + i, (end - i) * sizeof(int)) == 0) continue;
    for (size_t j = i; j < end; ++j) {
      if (a[j] != b[j]) fn(j);
    }
  }
}

}  // namespace shardlab::planner
