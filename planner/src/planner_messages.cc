#include "planner_messages.h"

#include "py_format.h"

namespace shardlab::planner {
namespace {

std::string gb(int64_t bytes) { return py_round(static_cast<double>(bytes) / (1 << 30), 3); }

}  // namespace

std::string storage_repr(const Storage& s) {
  return "Storage(hbm=" + std::to_string(s.hbm) + ", ddr=" + std::to_string(s.ddr) +
         (s.ssd != 0 ? ", ssd=" + std::to_string(s.ssd) : std::string()) + ")";
}

std::string storage_gb(const Storage& s) {
  return "Storage(hbm = " + gb(s.hbm) + " GB, ddr = " + gb(s.ddr) + " GB)";
}

std::string perf_repr(const Perf& p) {
  return "Perf(fwd_compute=" + py_float_repr(p.fwd_compute) +
         ", fwd_comms=" + py_float_repr(p.fwd_comms) +
         ", bwd_compute=" + py_float_repr(p.bwd_compute) +
         ", bwd_comms=" + py_float_repr(p.bwd_comms) +
         ", prefetch_compute=" + py_float_repr(p.prefetch_compute) + ")";
}

std::string shard_repr(const ShardingOption& option, const Shard& shard) {
  return "Shard(size=[" + std::to_string(shard.rows) + ", " + std::to_string(shard.cols) +
         "], offset=[" + std::to_string(shard.row_offset) + ", " +
         std::to_string(shard.col_offset) + "], storage=" + storage_repr(shard.storage) +
         ", perf=" + perf_repr(option.shard_perf) + ", rank=None)";
}

std::string reservation_failure_message(const ReservationResult& r, const Storage& hardware,
                                        int64_t batch_size) {
  const std::string pct = py_float_repr(r.percentage);
  return "The reserved topology (" + storage_gb(r.devices[0]) +
         ") has negative available hbm storage, after taking into account of the reserved hbm "
         "percentage, "
         "the storage for dense modules, and the kjt storages. Hence it is not possible to find a "
         "valid "
         "sharding plan. \nPossible solutions:\n  1) If FSDP is used, consider switching to "
         "FixedPercentageStorageReservation, since HeuristicalStorageReservation would not be able "
         "to "
         "calculate the dense storage (" +
         storage_gb(r.dense.value_or(Storage{})) + ") correctly. \n  2) Reduce local batch size (" +
         std::to_string(batch_size) + "), which can help reduce the per rank kjt storage (" +
         storage_gb(r.kjt.value_or(Storage{})) +
         "). \n  3) Decrease the reserved hbm percentage (" + pct +
         "). \n  4) Use hardware with a higher hbm cap (current hardware has " +
         storage_gb(hardware) + " per rank). ";
}

}  // namespace shardlab::planner
