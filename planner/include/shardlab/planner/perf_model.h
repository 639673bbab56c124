// How the planner rates a partitioned plan (lower is better).
//
// TorchRec's planner hands every plan that partitions to a perf model and keeps
// the plan with the lowest rating. Its default (NoopPerfModel) rates a plan by
// the slowest device's summed shard estimates; ShardLab's simulator provides
// another implementation (sim/simulated_perf_model.h) that rates by simulated
// iteration time. The planner owns neither: it is handed one.
#pragma once

#include <string_view>
#include <vector>

#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

class PerfModel {
 public:
  virtual ~PerfModel() = default;

  // Short name for reports and the CLI ("torchrec", "simulated").
  virtual std::string_view name() const = 0;

  // Rating of `plan` (every shard placed) in the perf model's unit, lower is
  // better. `device_perf_total` is TorchRec's per-rank sum of shard perf for
  // the same plan, already computed by the planner, for models that need it.
  virtual double rate(const SearchSpace& space, const PartitionedPlan& plan,
                      const Topology& topology, const std::vector<double>& device_perf_total) = 0;
};

// TorchRec's NoopPerfModel: max over ranks of the summed shard perf.
class TorchRecPerfModel final : public PerfModel {
 public:
  std::string_view name() const override { return "torchrec"; }
  double rate(const SearchSpace& space, const PartitionedPlan& plan, const Topology& topology,
              const std::vector<double>& device_perf_total) override;
};

}  // namespace shardlab::planner
