// The one interval arithmetic trace/ needs: how long a set of [start, end)
// intervals covers, overlaps counted once.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace shardlab::trace::detail {

// The length of the union of `intervals` (sorted here), in their unit.
inline double union_length(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double covered = 0.0;
  double reach = -1e300;
  for (const auto& [s, e] : intervals) {
    if (e <= reach) continue;
    covered += e - std::max(s, reach);
    reach = e;
  }
  return covered;
}

}  // namespace shardlab::trace::detail
