// Storage reservations (planner-model.md §6).
#include "shardlab/planner/storage_reservation.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "planner_messages.h"

namespace shardlab::planner {
namespace {

// Subtracts `bytes` from HBM on cuda and from DDR elsewhere.
Storage by_device_type(ComputeDevice device, int64_t bytes) {
  return device == ComputeDevice::kCuda ? Storage{bytes, 0} : Storage{0, bytes};
}

// KJT bytes: indices of every input of every table, walked in the modules'
// natural (declaration) order. num_poolings is ignored, as in TorchRec (ODD-21).
double kjt_input_sum(const Scenario& s, const std::vector<ModuleInfo>& modules) {
  double sum = 0.0;
  for (const ModuleInfo& m : modules) {
    for (int t : m.tables) {
      const auto& c = s.constraints[t];
      const std::vector<double> pf = (c && c->pooling_factors) ? *c->pooling_factors : std::vector<double>{1.0};
      for (size_t i = 0; i < pf.size(); ++i) {
        const int64_t bs = (c && c->batch_sizes && !c->batch_sizes->empty()) ? (*c->batch_sizes)[i] : s.batch_size;
        sum += pf[i] * static_cast<double>(bs);
      }
    }
  }
  return sum;
}

// Non-embedding bytes times `multiplier` (§6): module_size(root) minus the
// sharded modules' sizes, each rounded half to even. Training tables are
// parameters (multiplied); quantized tables are buffers (not multiplied).
int64_t dense_bytes(const Scenario& s, const std::vector<ModuleInfo>& modules, double multiplier) {
  const bool tables_are_buffers = s.planner.is_inference;
  double root_params = 0.0;
  int64_t root_buffers = 0;
  if (s.module.dense_param_bytes > 0) root_params += multiplier * static_cast<double>(s.module.dense_param_bytes);
  int64_t sharded = 0;
  for (const ModuleInfo& m : modules) {
    double params = 0.0;
    int64_t buffers = 0;
    for (int t : m.tables) {
      const TableSpec& table = s.tables[t];
      const int64_t bytes = table.num_embeddings * table.embedding_dim * (table.data_type == DataType::kFp32 ? 4 : 2);
      if (tables_are_buffers) {
        buffers += bytes;
      } else {
        params += multiplier * static_cast<double>(bytes);
      }
    }
    sharded += static_cast<int64_t>(std::nearbyint(params + static_cast<double>(buffers)));
    // The root sums its children's parameters in the same order.
  }
  for (const ModuleInfo& m : modules) {
    for (int t : m.tables) {
      const TableSpec& table = s.tables[t];
      const int64_t bytes = table.num_embeddings * table.embedding_dim * (table.data_type == DataType::kFp32 ? 4 : 2);
      if (tables_are_buffers) {
        root_buffers += bytes;
      } else {
        root_params += multiplier * static_cast<double>(bytes);
      }
    }
  }
  const auto root = static_cast<int64_t>(std::nearbyint(root_params + static_cast<double>(root_buffers)));
  return root - sharded;
}

}  // namespace

Result<ReservationResult> reserve_storage(const Scenario& s, const Topology& topology,
                                          const std::vector<ModuleInfo>& modules) {
  const StorageReservationSpec& spec = s.planner.storage_reservation;
  ReservationResult r;
  r.kind = spec.kind;
  r.percentage = spec.percentage;
  const double keep = 1 - spec.percentage;
  r.devices.reserve(topology.devices.size());
  for (const Device& d : topology.devices) {
    r.devices.push_back(Storage{static_cast<int64_t>(keep * static_cast<double>(d.storage.hbm)), d.storage.ddr});
  }
  if (spec.kind == ReservationKind::kFixedPercentage) return r;

  const bool heuristical = spec.kind == ReservationKind::kHeuristical;
  const double multiplier = heuristical ? spec.parameter_multiplier : 1.0;
  const int64_t dense = spec.dense_tensor_estimate.value_or(0) != 0 ? *spec.dense_tensor_estimate
                                                                     : dense_bytes(s, modules, multiplier);
  const auto kjt = static_cast<int64_t>(std::ceil(kjt_input_sum(s, modules) * 8.0)) * (heuristical ? 20 : 1);
  r.dense = by_device_type(topology.compute_device, dense);
  r.kjt = by_device_type(topology.compute_device, kjt);
  for (Storage& d : r.devices) {
    d -= *r.dense;
    d -= *r.kjt;
  }
  // TorchRec checks only device 0's HBM (ODD-20).
  if (heuristical && !r.devices.empty() && r.devices[0].hbm < 0) {
    return Status::planner(PlannerErrorType::kInsufficientStorage,
                           reservation_failure_message(r, topology.devices[0].storage, s.batch_size));
  }
  return r;
}

}  // namespace shardlab::planner
