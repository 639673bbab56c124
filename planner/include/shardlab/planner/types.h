// Vocabulary of the planner: sharding types, compute kernels, devices, data
// types, and the Perf / Storage records every shard carries.
//
// Units follow TorchRec's planner: sizes in bytes, bandwidths in bytes per
// millisecond, times in milliseconds.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardlab::planner {

// Declaration order is the order TorchRec's EmbeddingBagCollectionSharder
// returns sharding types on cuda (DP, TW, CW, TWCW, RW, TWRW).
enum class ShardingType {
  kDataParallel,
  kTableWise,
  kColumnWise,
  kTableColumnWise,
  kRowWise,
  kTableRowWise,
  // TorchRec 2026-08's GRID_SHARD: column blocks, each split row-wise over
  // one group of intra_group_size ranks (only when a constraint names it).
  kGridShard
};
inline constexpr int kNumShardingTypes = 7;  // ShardingType values
enum class ComputeKernel {
  kDense,
  kFused,
  kFusedUvm,
  kFusedUvmCaching,
  kQuant,
  kQuantUvm,
  kQuantUvmCaching
};
enum class ComputeDevice { kCuda, kCpu, kMtia };
enum class DataType { kFp32, kFp16, kBf16, kInt8, kInt4, kInt2 };
// Element type of pooled all-to-all / reduce-scatter payloads (qcomm).
enum class CommPrecision { kFp32, kFp16, kBf16, kFp8, kInt8 };
// How the partitioner places an option's shards.
// kMultiHost: grid shards, a column block per group (TorchRec's multi_host).
enum class PartitionBy { kUniform, kDevice, kHost, kMultiHost };

std::string_view to_string(ShardingType t);     // "table_wise", ...
std::string_view abbreviation(ShardingType t);  // "TW", ...
std::string_view to_string(ComputeKernel k);    // "fused_uvm_caching", ...
std::string_view to_string(ComputeDevice d);    // "cuda", ...
std::string_view to_string(DataType t);         // "fp32", ...
std::string_view to_string(CommPrecision p);    // "fp32", ...
std::string_view to_string(PartitionBy p);      // "uniform", "device", "host"

std::optional<ShardingType> parse_sharding_type(std::string_view s);
std::optional<ComputeKernel> parse_compute_kernel(std::string_view s);
std::optional<ComputeDevice> parse_compute_device(std::string_view s);
std::optional<DataType> parse_data_type(std::string_view s);
std::optional<CommPrecision> parse_comm_precision(std::string_view s);

// Bytes per element of a qcomm codec payload (FBGEMM codecs at fe1c2824).
int comm_element_size(CommPrecision p);

// Estimated wall time of one shard, in ms, split as TorchRec splits it.
struct Perf {
  double fwd_compute = 0.0;
  double fwd_comms = 0.0;
  double bwd_compute = 0.0;
  double bwd_comms = 0.0;
  double prefetch_compute = 0.0;

  // TorchRec sums in this order, not field order; floating results depend on it.
  double total() const {
    return (((fwd_compute + bwd_compute) + fwd_comms) + bwd_comms) + prefetch_compute;
  }
  Perf& operator+=(const Perf& o) {
    fwd_compute += o.fwd_compute;
    fwd_comms += o.fwd_comms;
    bwd_compute += o.bwd_compute;
    bwd_comms += o.bwd_comms;
    prefetch_compute += o.prefetch_compute;
    return *this;
  }
  bool operator==(const Perf&) const = default;
};

// Bytes of HBM and DDR. Ordered lexicographically (hbm first), as TorchRec's
// Storage dataclass compares.
struct Storage {
  int64_t hbm = 0;
  int64_t ddr = 0;

  Storage& operator+=(const Storage& o) {
    hbm += o.hbm;
    ddr += o.ddr;
    return *this;
  }
  Storage& operator-=(const Storage& o) {
    hbm -= o.hbm;
    ddr -= o.ddr;
    return *this;
  }
  friend Storage operator+(Storage a, const Storage& b) { return a += b; }
  friend Storage operator-(Storage a, const Storage& b) { return a -= b; }
  // True when both components fit (<=) into `capacity`.
  bool fits_in(const Storage& capacity) const { return hbm <= capacity.hbm && ddr <= capacity.ddr; }
  auto operator<=>(const Storage&) const = default;
};

}  // namespace shardlab::planner
