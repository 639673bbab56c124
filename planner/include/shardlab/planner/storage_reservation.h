// Storage reservations (docs/cost-model.md §6): shrink per-device capacity
// before partitioning, for dense parameters, KJT inputs and a safety margin.
#pragma once

#include <optional>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/topology.h"

namespace shardlab::planner {

struct ReservationResult {
  ReservationKind kind = ReservationKind::kHeuristical;
  double percentage = 0.15;
  // Per-rank dense and KJT reservations (heuristical and inference only). In
  // the 2026-08 model the fixed-percentage reservation also estimates `kjt`,
  // which it does not subtract from `devices`.
  std::optional<Storage> dense;
  std::optional<Storage> kjt;
  // Storage left on each device after the reservation, rank order.
  std::vector<Storage> devices;
};

// Computes the reservation for `scenario` on the raw `topology`.
// Fails with PlannerErrorType::kInsufficientStorage when device 0's HBM goes
// negative (heuristical only), with TorchRec's message.
Result<ReservationResult> reserve_storage(const Scenario& scenario, const Topology& topology,
                                          const std::vector<ModuleInfo>& modules);

}  // namespace shardlab::planner
