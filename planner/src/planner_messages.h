// TorchRec's planner error messages, reproduced so users who know TorchRec
// recognise them (and see what did not fit, by how much).
#pragma once

#include <string>

#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/storage_reservation.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

// "Storage(hbm=1, ddr=2)" (bytes; ", ssd=3" added when there is SSD, as
// TorchRec 2026-08 writes it) and "Storage(hbm = 1.0 GB, ddr = 2.0 GB)".
std::string storage_repr(const Storage& s);
std::string storage_gb(const Storage& s);
// "Perf(fwd_compute=..., ...)"
std::string perf_repr(const Perf& p);
// "Shard(size=[r, c], offset=[r, c], storage=..., perf=..., rank=None)"
std::string shard_repr(const ShardingOption& option, const Shard& shard);

std::string reservation_failure_message(const ReservationResult& r,
                                        const Storage& per_rank_hardware, int64_t batch_size);

}  // namespace shardlab::planner
