// Storage reservations (docs/cost-model.md §6).
#include "shardlab/planner/storage_reservation.h"

#include <cmath>
#include <string>

#include "planner_messages.h"

namespace shardlab::planner {
namespace {

__extension__ using int128 = __int128;  // GCC/Clang builtin; -Wpedantic would flag it

// `bytes` in HBM on cuda (and mtia once it has HBM), in DDR elsewhere.
Storage by_device_type(ComputeDevice device, int64_t bytes, const TorchRecBehaviour& behaviour) {
  return device_has_hbm(device, behaviour) ? Storage{bytes, 0} : Storage{0, bytes};
}

// KJT bytes: indices of every input of every table, walked in the modules'
// natural (declaration) order. num_poolings is ignored, as in TorchRec (docs/cost-model.md O21).
double kjt_input_sum(const Scenario& s, const std::vector<ModuleInfo>& modules) {
  double sum = 0.0;
  for (const ModuleInfo& m : modules) {
    for (int t : m.tables) {
      const auto& c = s.constraints[t];
      const std::vector<double> pf =
          (c && c->pooling_factors) ? *c->pooling_factors : std::vector<double>{1.0};
      for (size_t i = 0; i < pf.size(); ++i) {
        const int64_t bs =
            (c && c->batch_sizes && !c->batch_sizes->empty()) ? (*c->batch_sizes)[i] : s.batch_size;
        sum += pf[i] * static_cast<double>(bs);
      }
    }
  }
  return sum;
}

// Bytes of a training table's weight (fp32, or fp16 for every other type).
int64_t table_weight_bytes(const TableSpec& t) {
  return t.num_embeddings * t.embedding_dim * (t.data_type == DataType::kFp32 ? 4 : 2);
}

// Size of a module as TorchRec measures it (§6): a running double sum of
// multiplier x parameter bytes, plus the integer sum of buffer bytes, rounded
// half to even. Training tables are parameters; quantized tables are buffers.
// Python's integers hold it whatever its size; here 128 bits do (limits.h
// bounds it far below 2^127), and only the dense difference must fit int64.
int128 module_size(const Scenario& s, const std::vector<int>& tables, double multiplier,
                   double own_params) {
  double params = own_params;
  int64_t buffers = 0;
  for (int t : tables) {
    if (s.planner.is_inference) {
      buffers += table_weight_bytes(s.tables[t]);
    } else {
      params += multiplier * static_cast<double>(table_weight_bytes(s.tables[t]));
    }
  }
  return static_cast<int128>(std::nearbyint(params + static_cast<double>(buffers)));
}

// Non-embedding bytes times `multiplier`: the root module's size minus the
// sharded modules' sizes. The root's parameters are the dense parameter,
// then the children's tables in declaration order.
int64_t dense_bytes(const Scenario& s, const std::vector<ModuleInfo>& modules, double multiplier) {
  std::vector<int> all_tables;
  int128 sharded = 0;
  for (const ModuleInfo& m : modules) {
    sharded += module_size(s, m.tables, multiplier, 0.0);
    all_tables.insert(all_tables.end(), m.tables.begin(), m.tables.end());
  }
  const double dense_param = s.module.dense_param_bytes > 0
                                 ? multiplier * static_cast<double>(s.module.dense_param_bytes)
                                 : 0.0;
  return static_cast<int64_t>(module_size(s, all_tables, multiplier, dense_param) - sharded);
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
    r.devices.push_back(Storage{static_cast<int64_t>(keep * static_cast<double>(d.storage.hbm)),
                                d.storage.ddr, d.storage.ssd});
  }
  const TorchRecBehaviour& behaviour = s.behaviour();
  auto kjt_bytes = [&](int copies) {
    return static_cast<int64_t>(std::ceil(kjt_input_sum(s, modules) * 8.0)) * copies;
  };
  if (spec.kind == ReservationKind::kFixedPercentage) {
    // 2026-08 estimates the KJT storage (2 pipelined batches x 10 copies)
    // without reserving it; the stats count it.
    if (behaviour.fixed_percentage_estimates_kjt)
      r.kjt = by_device_type(topology.compute_device, kjt_bytes(20), behaviour);
    return r;
  }

  const bool heuristical = spec.kind == ReservationKind::kHeuristical;
  const double multiplier = heuristical ? spec.parameter_multiplier : 1.0;
  const int64_t dense = spec.dense_tensor_estimate.value_or(0) != 0
                            ? *spec.dense_tensor_estimate
                            : dense_bytes(s, modules, multiplier);
  r.dense = by_device_type(topology.compute_device, dense, behaviour);
  r.kjt = by_device_type(topology.compute_device, kjt_bytes(heuristical ? 20 : 1), behaviour);
  for (Storage& d : r.devices) {
    d -= *r.dense;
    d -= *r.kjt;
  }
  // TorchRec checks only device 0's HBM (docs/cost-model.md O20).
  if (heuristical && !r.devices.empty() && r.devices[0].hbm < 0) {
    // TorchRec's text, then the scenario field that sets the HBM it ran out of.
    const std::optional<int64_t>& cap = s.topology.hbm_cap;
    const bool given = cap && (*cap != 0 || behaviour.explicit_zero_capacity_kept);
    const std::string field = given ? "topology.hbm_cap (" + std::to_string(*cap) +
                                          (*cap == 1 ? " byte" : " bytes") + " per rank)"
                                    : std::string("topology.hbm_cap (") + (cap ? "0" : "absent") +
                                          ": the 32 GiB default per rank)";
    return Status::planner(
        PlannerErrorType::kInsufficientStorage,
        reservation_failure_message(r, topology.devices[0].storage, s.batch_size) +
            "\nScenario: " + field + " leaves rank 0 " + std::to_string(r.devices[0].hbm) +
            " bytes of HBM after the reservation; raise topology.hbm_cap, or lower "
            "planner.storage_reservation.percentage, module.dense_param_bytes (or "
            "planner.storage_reservation.dense_tensor_estimate) or batch_size (" +
            std::to_string(s.batch_size) + ").");
  }
  return r;
}

}  // namespace shardlab::planner
