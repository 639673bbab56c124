#include "shardlab/planner/types.h"

#include <array>
#include <string>
#include <utility>

#include "shardlab/planner/status.h"

namespace shardlab {

const char* to_string(PlannerErrorType t) {
  switch (t) {
    case PlannerErrorType::kInsufficientStorage:
      return "insufficient_storage";
    case PlannerErrorType::kStrictConstraints:
      return "strict_constraints";
    case PlannerErrorType::kPartition:
      return "partition";
    case PlannerErrorType::kOther:
      return "other";
    case PlannerErrorType::kNoOptions:
      return "no_options";
  }
  return "other";
}

}  // namespace shardlab

namespace shardlab::planner {
namespace {

// One table per enum: (value, name). Lookups are linear; the lists are tiny.
template <typename E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<ShardingType, kNumShardingTypes> kShardingTypes{{
    {ShardingType::kDataParallel, "data_parallel"},
    {ShardingType::kTableWise, "table_wise"},
    {ShardingType::kColumnWise, "column_wise"},
    {ShardingType::kTableColumnWise, "table_column_wise"},
    {ShardingType::kRowWise, "row_wise"},
    {ShardingType::kTableRowWise, "table_row_wise"},
    {ShardingType::kGridShard, "grid_shard"},
}};
constexpr NameTable<ShardingType, kNumShardingTypes> kShardingAbbreviations{{
    {ShardingType::kDataParallel, "DP"},
    {ShardingType::kTableWise, "TW"},
    {ShardingType::kColumnWise, "CW"},
    {ShardingType::kTableColumnWise, "TWCW"},
    {ShardingType::kRowWise, "RW"},
    {ShardingType::kTableRowWise, "TWRW"},
    {ShardingType::kGridShard, "GS"},
}};
constexpr NameTable<ComputeKernel, kNumComputeKernels> kKernels{{
    {ComputeKernel::kDense, "dense"},
    {ComputeKernel::kFused, "fused"},
    {ComputeKernel::kFusedUvm, "fused_uvm"},
    {ComputeKernel::kFusedUvmCaching, "fused_uvm_caching"},
    {ComputeKernel::kQuant, "quant"},
    {ComputeKernel::kQuantUvm, "quant_uvm"},
    {ComputeKernel::kQuantUvmCaching, "quant_uvm_caching"},
    {ComputeKernel::kKeyValue, "key_value"},
    {ComputeKernel::kSsdVirtualTable, "ssd_virtual_table"},
    {ComputeKernel::kDramVirtualTable, "dram_virtual_table"},
    {ComputeKernel::kDramSsdVirtualTable, "dram_ssd_virtual_table"},
}};
constexpr NameTable<ComputeDevice, 3> kDevices{{
    {ComputeDevice::kCuda, "cuda"},
    {ComputeDevice::kCpu, "cpu"},
    {ComputeDevice::kMtia, "mtia"},
}};
constexpr NameTable<DataType, 6> kDataTypes{{
    {DataType::kFp32, "fp32"},
    {DataType::kFp16, "fp16"},
    {DataType::kBf16, "bf16"},
    {DataType::kInt8, "int8"},
    {DataType::kInt4, "int4"},
    {DataType::kInt2, "int2"},
}};
constexpr NameTable<CommPrecision, 5> kPrecisions{{
    {CommPrecision::kFp32, "fp32"},
    {CommPrecision::kFp16, "fp16"},
    {CommPrecision::kBf16, "bf16"},
    {CommPrecision::kFp8, "fp8"},
    {CommPrecision::kInt8, "int8"},
}};
constexpr NameTable<PartitionBy, 4> kPartitionBy{{
    {PartitionBy::kUniform, "uniform"},
    {PartitionBy::kDevice, "device"},
    {PartitionBy::kHost, "host"},
    {PartitionBy::kMultiHost, "multi_host"},
}};

template <typename E, size_t N>
std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
std::optional<E> value_of(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

}  // namespace

std::string_view to_string(ShardingType t) { return name_of(kShardingTypes, t); }
std::string_view abbreviation(ShardingType t) { return name_of(kShardingAbbreviations, t); }
std::string_view to_string(ComputeKernel k) { return name_of(kKernels, k); }
std::string_view to_string(ComputeDevice d) { return name_of(kDevices, d); }
std::string_view to_string(DataType t) { return name_of(kDataTypes, t); }
std::string_view to_string(CommPrecision p) { return name_of(kPrecisions, p); }
std::string_view to_string(PartitionBy p) { return name_of(kPartitionBy, p); }

namespace {
template <typename E, size_t N>
std::string joined_names(const NameTable<E, N>& table) {
  std::string out;
  for (const auto& [value, name] : table) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}
}  // namespace

std::string_view sharding_type_names() {
  static const std::string names = joined_names(kShardingTypes);
  return names;
}
std::string_view compute_kernel_names() {
  static const std::string names = joined_names(kKernels);
  return names;
}

std::optional<ShardingType> parse_sharding_type(std::string_view s) {
  return value_of(kShardingTypes, s);
}
std::optional<ComputeKernel> parse_compute_kernel(std::string_view s) {
  return value_of(kKernels, s);
}
std::optional<ComputeDevice> parse_compute_device(std::string_view s) {
  return value_of(kDevices, s);
}
std::optional<DataType> parse_data_type(std::string_view s) { return value_of(kDataTypes, s); }
std::optional<CommPrecision> parse_comm_precision(std::string_view s) {
  return value_of(kPrecisions, s);
}

int comm_element_size(CommPrecision p) {
  switch (p) {
    case CommPrecision::kFp32:
      return 4;
    case CommPrecision::kFp16:
      return 2;
    case CommPrecision::kBf16:
      return 2;
    case CommPrecision::kFp8:
      return 1;
    case CommPrecision::kInt8:
      return 1;
  }
  return 4;
}

}  // namespace shardlab::planner
