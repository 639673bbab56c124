// The keys each object of a plan file and of a calibration profile may hold.
// The readers check objects against these lists; the hostile-input tests
// (tests/hostile/) check that every key has a field entry there. A key added
// to either format goes into its list here.
#pragma once

#include <string_view>

namespace shardlab::data::internal {

// Plan files (plan_json.h): TorchRec's wrapper, its ParameterSharding and
// shard metadata; ShardLab's plan entry and shard.
inline constexpr std::string_view kPlanWrapperKeys[] = {"format", "version", "scenario", "plan"};
inline constexpr std::string_view kParameterShardingKeys[] = {
    "sharding_type",       "compute_kernel",    "ranks",
    "sharding_spec",       "cache_params",      "enforce_hbm",
    "stochastic_rounding", "bounds_check_mode", "key_value_params"};
inline constexpr std::string_view kShardMetadataKeys[] = {"shard_offsets", "shard_sizes",
                                                          "placement"};
inline constexpr std::string_view kPlanTableKeys[] = {"module",
                                                      "sharding_type",
                                                      "compute_kernel",
                                                      "ranks",
                                                      "sharding_spec",
                                                      "cache_params",
                                                      "enforce_hbm",
                                                      "stochastic_rounding",
                                                      "bounds_check_mode",
                                                      "key_value_params",
                                                      "shards",
                                                      "layout"};
inline constexpr std::string_view kPlanShardKeys[] = {"offset",    "size", "rank",
                                                      "placement", "perf", "storage"};

// Calibration profiles (calibration_json.h).
inline constexpr std::string_view kProfileKeys[] = {
    "format", "version", "name", "created", "device", "source_runs", "parameters", "fit"};
inline constexpr std::string_view kProfileParametersKeys[] = {"compute", "bwd_multiplier", "comm",
                                                              "dense"};
inline constexpr std::string_view kProfileDenseKeys[] = {"gemm_efficiency", "gemm_kernel_ms"};
inline constexpr std::string_view kProfileComputeKeys[] = {
    "kernel", "dim_class", "bandwidth_bytes_per_ms", "overhead_ms", "bwd_multiplier"};
inline constexpr std::string_view kProfileCommKeys[] = {"intra_host", "inter_host"};
inline constexpr std::string_view kProfileCommScopeKeys[] = {"bandwidth_bytes_per_ms",
                                                             "latency_ms"};
inline constexpr std::string_view kProfileFitKeys[] = {
    "count",           "held_out",       "mape_before", "mape_after",
    "fit_mape_before", "fit_mape_after", "groups",      "notes"};
inline constexpr std::string_view kProfileGroupKeys[] = {
    "name",        "count",      "held_out",        "fitted",
    "mape_before", "mape_after", "fit_mape_before", "fit_mape_after"};

}  // namespace shardlab::data::internal
