#include <algorithm>
#include <cassert>
#include <cmath>

#include "shardlab/kernels/measurement.h"
#include "shardlab/kernels/workload.h"

namespace shardlab::kernels {

std::string_view to_string(Precision p) { return p == Precision::kFp16 ? "fp16" : "fp32"; }

std::string_view to_string(PoolingMode m) {
  switch (m) {
    case PoolingMode::kSum:
      return "sum";
    case PoolingMode::kMean:
      return "mean";
    case PoolingMode::kNone:
      return "none";
  }
  return "?";
}

std::string_view to_string(OptimizerKind o) {
  return o == OptimizerKind::kSgd ? "sgd" : "rowwise_adagrad";
}

int element_bytes(Precision p) { return p == Precision::kFp16 ? 2 : 4; }

TimingSummary summarize(std::vector<double> samples_ms) {
  assert(!samples_ms.empty());
  std::sort(samples_ms.begin(), samples_ms.end());
  const size_t n = samples_ms.size();
  // Nearest rank: the smallest sample with at least q·n samples at or below it.
  auto rank = [n](double q) {
    return std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(n)))) - 1;
  };
  TimingSummary s;
  s.samples = static_cast<int>(n);
  s.min_ms = samples_ms.front();
  s.median_ms = samples_ms[rank(0.5)];
  s.p90_ms = samples_ms[rank(0.9)];
  return s;
}

}  // namespace shardlab::kernels
