#include "shardlab/planner/perf_model.h"

#include <algorithm>

namespace shardlab::planner {

double TorchRecPerfModel::rate(const SearchSpace&, const PartitionedPlan&, const Topology&,
                               const std::vector<double>& device_perf_total) {
  return device_perf_total.empty()
             ? 0.0
             : *std::max_element(device_perf_total.begin(), device_perf_total.end());
}

}  // namespace shardlab::planner
