// The enumerator (docs/cost-model.md §2): modules built from the scenario, every
// (table, sharding type, compute kernel) option in TorchRec's order, each shard
// estimated by the perf and storage estimators.
#pragma once

#include <span>
#include <vector>

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/estimators.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

// The modules TorchRec builds for `scenario`, in declaration order
// (docs/cost-model.md §2.7).
std::vector<ModuleInfo> build_modules(const Scenario& scenario);

// Sharding types the module's sharder offers on `device`, in the sharder's
// order, in the TorchRec version of `behaviour`.
std::span<const ShardingType> sharder_sharding_types(const ModuleInfo& module, ComputeDevice device,
                                                     const TorchRecBehaviour& behaviour);

// Compute kernels the module's sharder offers for `type` on `device`, in order.
std::span<const ComputeKernel> sharder_compute_kernels(const ModuleInfo& module, ShardingType type,
                                                       ComputeDevice device);

// How many options and shards enumerate_options() builds, counted without
// building them (for the memory estimate before enumerating).
struct EnumerationSize {
  int64_t options = 0;
  int64_t shards = 0;
  int64_t shard_runs = 0;   // runs holding them (shard_list.h), at most
  int64_t plan_shards = 0;  // shards of a plan, at most: Σ over tables of their largest option's
  int64_t inputs = 0;       // Σ over options of the option's inputs
};
EnumerationSize enumeration_size(const Scenario& scenario, const Topology& topology,
                                 const std::vector<ModuleInfo>& modules);

// Estimates options as enumerate_options() does: TorchRec's perf and storage
// estimators for one scenario, topology, version and calibration. Proposers
// use it for options they derive from enumerated ones. Without
// `calibration`, the scenario's GPU preset profile applies, if it has one.
// REQUIRES: `scenario`, `topology` and `calibration` outlive the estimator.
class OptionEstimator {
 public:
  OptionEstimator(const Scenario& scenario, const Topology& topology,
                  const CostCalibration* calibration);
  // Fills the option's shard perf and storage and its totals. Fails when its
  // kernel has no bandwidth on the device.
  Status estimate(ShardingOption* option) const;

 private:
  EstimatorContext ctx_;
};

// Enumerates and estimates every option. Fails with kNoOptions when a table
// has no option left after constraints. `calibration` (not owned, may be
// null) replaces TorchRec's perf constants (cost_calibration.h); null uses
// the scenario's preset_calibration when it has one.
Result<SearchSpace> enumerate_options(const Scenario& scenario, const Topology& topology,
                                      std::vector<ModuleInfo> modules,
                                      const CostCalibration* calibration = nullptr);

}  // namespace shardlab::planner
