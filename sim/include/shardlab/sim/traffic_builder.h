// iteration_traffic() for many plans of one scenario: the topology graph and
// the planner topology are built once, so each plan costs only its own
// traffic. Callers that evaluate thousands of plans or plan fragments (the
// plan search in search/) use this instead of iteration_traffic().
//
// Thread safety: the graph caches routes as they are asked for, so one
// builder is used by one thread at a time.
#pragma once

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::sim {

class TrafficBuilder {
 public:
  // Fails as iteration_traffic() does on a fabric that does not fit the
  // topology. `scenario` and `calibration` (may be null: its GEMM
  // efficiencies replace the GPU preset's in the dense model) must outlive
  // the builder.
  static Result<TrafficBuilder> create(const planner::Scenario& scenario,
                                       const planner::CostCalibration* calibration = nullptr);

  // The traffic of `plan`, exactly as iteration_traffic(scenario, space, plan)
  // computes it. `plan` may hold any subset of the scenario's tables (its
  // proposal lists the options present); every shard must be placed.
  Result<IterationTraffic> build(const planner::SearchSpace& space,
                                 const planner::PartitionedPlan& plan) const;

  const TopologyGraph& graph() const { return graph_; }
  const planner::Topology& topology() const { return topology_; }

 private:
  TrafficBuilder(const planner::Scenario& scenario, const planner::CostCalibration* calibration,
                 TopologyGraph graph);
  const planner::Scenario* scenario_;
  const planner::CostCalibration* calibration_;
  TopologyGraph graph_;
  planner::Topology topology_;
};

}  // namespace shardlab::sim
