// The enumerator (planner-model.md §2): modules built from the scenario, every
// (table, sharding type, compute kernel) option in TorchRec's order, each shard
// estimated by the perf and storage estimators.
#pragma once

#include <vector>

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

// The modules TorchRec builds for `scenario`, in declaration order
// (scenario.md "Modules built from a scenario").
std::vector<ModuleInfo> build_modules(const Scenario& scenario);

// Sharding types the module's sharder offers on `device`, in the sharder's order.
std::vector<ShardingType> sharder_sharding_types(const ModuleInfo& module, ComputeDevice device);

// Compute kernels the module's sharder offers for `type` on `device`, in order.
std::vector<ComputeKernel> sharder_compute_kernels(const ModuleInfo& module, ShardingType type,
                                                   ComputeDevice device);

// Enumerates and estimates every option. Fails with kNoOptions when a table
// has no option left after constraints. `calibration` (not owned, may be
// null) replaces TorchRec's perf constants (cost_calibration.h); null uses
// the scenario's preset_calibration when it has one.
Result<SearchSpace> enumerate_options(const Scenario& scenario, const Topology& topology,
                                      std::vector<ModuleInfo> modules,
                                      const CostCalibration* calibration = nullptr);

}  // namespace shardlab::planner
