// The simulator's side of iteration_traffic.h: building the traffic over an
// already built topology graph, and the estimate-mode collectives.
#pragma once

#include <vector>

#include "shardlab/planner/topology.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::sim::detail {

using sim::CollectiveKind;
using sim::CollectiveSpec;
using sim::IterationTraffic;
using sim::RankWork;

// The collectives of CommModel::kEstimates: one barrier per comm phase with
// each rank's summed shard estimates (input dist has none in TorchRec's model).
std::vector<CollectiveSpec> estimate_collectives(const std::vector<RankWork>& ranks, bool training);
// The DDP bucket all-reduces among `collectives` (TorchRec's model has no
// estimate for them: they stay flows under CommModel::kEstimates).
std::vector<CollectiveSpec> ddp_collectives(const std::vector<CollectiveSpec>& collectives);

// Fails when a shard is unplaced or placed on a rank outside the topology.
// `calibration` (may be null): its GEMM efficiencies replace the GPU preset's
// in the dense model.
Result<IterationTraffic> build_traffic(const planner::Scenario& scenario,
                                       const planner::SearchSpace& space,
                                       const planner::PartitionedPlan& plan,
                                       const planner::Topology& topology,
                                       const planner::CostCalibration* calibration = nullptr);

}  // namespace shardlab::sim::detail
