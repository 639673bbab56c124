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
  kQuantUvmCaching,
  // TorchRec 2026-08's SSD tier (TorchRecBehaviour::ssd_tier): an SSD-backed
  // TBE with an HBM L1 cache, and the three virtual-table kernels. Offered
  // only to tables whose constraint names them (GUARDED_COMPUTE_KERNELS).
  kKeyValue,
  kSsdVirtualTable,
  kDramVirtualTable,
  kDramSsdVirtualTable
};
inline constexpr int kNumComputeKernels = 11;  // ComputeKernel values
// The kernels TorchRec enumerates only when a constraint names them.
inline bool is_guarded(ComputeKernel k) {
  return k == ComputeKernel::kKeyValue || k == ComputeKernel::kSsdVirtualTable ||
         k == ComputeKernel::kDramVirtualTable || k == ComputeKernel::kDramSsdVirtualTable;
}
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

// Every name, in declaration order, ", "-separated: for messages and --help.
std::string_view sharding_type_names();   // "data_parallel, table_wise, ..."
std::string_view compute_kernel_names();  // "dense, fused, ..."

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

// Bytes of HBM, DDR and SSD. Ordered lexicographically (hbm, ddr, ssd), as
// TorchRec's Storage dataclass compares. `ssd` is TorchRec 2026-08's third
// tier: non-zero only for key-value shards and the devices' SSD capacity
// (always 0 under 2024-02).
struct Storage {
  int64_t hbm = 0;
  int64_t ddr = 0;
  int64_t ssd = 0;

  Storage& operator+=(const Storage& o) {
    hbm += o.hbm;
    ddr += o.ddr;
    ssd += o.ssd;
    return *this;
  }
  Storage& operator-=(const Storage& o) {
    hbm -= o.hbm;
    ddr -= o.ddr;
    ssd -= o.ssd;
    return *this;
  }
  friend Storage operator+(Storage a, const Storage& b) { return a += b; }
  friend Storage operator-(Storage a, const Storage& b) { return a -= b; }
  // True when every component fits (<=) into `capacity`.
  bool fits_in(const Storage& capacity) const {
    return hbm <= capacity.hbm && ddr <= capacity.ddr && ssd <= capacity.ssd;
  }
  auto operator<=>(const Storage&) const = default;
};

}  // namespace shardlab::planner
