// A calibration of TorchRec's per-shard perf model (docs/cost-model.md §4):
// parameters fitted from measured replays (kernels/calibration.h) that stand
// in for TorchRec's constants when the planner is handed one
// (PlannerOptions::calibration). docs/calibration.md derives the model.
//
// Units are the scenario format's: bandwidths in bytes per ms, times in ms.
// Every parameter is optional and a missing one keeps TorchRec's value, with
// TorchRec's own expression: an empty calibration rates every shard bit for
// bit as no calibration does.
//
// With a calibration, a shard's perf terms are
//   fwd_compute = overhead_k + fwd_bytes / bandwidth_{k,c}
//       k the compute kernel, c the dim class of the shard's columns, and
//       fwd_bytes TorchRec's forward numerator (estimators.h
//       fwd_compute_bytes); bandwidth_{k,c} replaces bw_dev / block penalty
//       for every sharding type;
//   bwd_compute = fwd_compute · multiplier_k (+ fwd_compute · 1.1 when weighted);
//   fwd_comms, bwd_comms = latency + bytes / bandwidth per TorchRec term, in
//       the scope TorchRec charges it (inter-host when world_size >
//       local_world_size, TWRW's second forward term always inter-host); the
//       DP all-reduce, when its scope (inter-host when the ranks span hosts,
//       else intra-host) has a calibrated bandwidth, is priced as a ring,
//       2·(W-1)/W·table bytes sent per rank, since that is what replay
//       measures; without one it is TorchRec's expression plus the latency;
//   other terms (RW/TWRW batched copy, DP optimizer kernels, prefetch) as TorchRec.
// The planner never reads gemm_efficiency and gemm_kernel_ms: they replace
// the GPU preset's GEMM model (GemmModel::max_efficiency, kernel_ms) in the
// simulator's dense model.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "shardlab/planner/hardware_spec.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

// TorchRec's block-penalty classes of an embedding dim (docs/cost-model.md §4.3).
enum class DimClass { kNarrow, kHalf, kFull };  // d < 64, 64 <= d < 128, d >= 128
inline constexpr int kNumDimClasses = 3;

DimClass dim_class(int64_t dim);
std::string_view to_string(DimClass c);  // "narrow", "half", "full"
std::optional<DimClass> parse_dim_class(std::string_view s);

// One communication scope: time = latency_ms + bytes / bandwidth_bytes_per_ms.
struct CommCalibration {
  std::optional<double> bandwidth_bytes_per_ms;  // > 0; missing: the topology's bandwidth
  std::optional<double> latency_ms;              // >= 0; missing: 0
};

struct CostCalibration {
  // Effective forward bandwidth per (compute kernel, dim class), bytes/ms, > 0.
  // Missing: TorchRec's bw_dev / block penalty, i.e. fwd_bytes · penalty / bw_dev.
  std::array<std::array<std::optional<double>, kNumDimClasses>, kNumComputeKernels> fwd_bandwidth{};
  // Fixed cost per shard lookup per compute kernel, ms, >= 0. Missing: 0.
  std::array<std::optional<double>, kNumComputeKernels> overhead_ms{};
  // Backward compute over forward compute per compute kernel, >= 0: the
  // fused kernels' backward applies the optimizer, dense's does not, so one
  // ratio does not fit both. Missing: bwd_multiplier.
  std::array<std::optional<double>, kNumComputeKernels> kernel_bwd_multiplier{};
  // The ratio for kernels without their own, >= 0. Missing: the topology's
  // bwd_compute_multiplier.
  std::optional<double> bwd_multiplier;
  CommCalibration intra_host;  // collectives among the ranks of one host
  CommCalibration inter_host;  // collectives whose ranks span hosts
  // The dense model's GEMM efficiency on large, square products per
  // arithmetic, in (0, 1] (kernels::fit_gemm_efficiency). Missing: the GPU
  // preset's.
  std::array<std::optional<double>, kNumPrecisions> gemm_efficiency{};
  // The fixed time of every GEMM kernel per arithmetic, ms, >= 0
  // (GemmModel::kernel_ms). Missing: the preset's (0).
  std::array<std::optional<double>, kNumPrecisions> gemm_kernel_ms{};

  std::optional<double>& bandwidth(ComputeKernel k, DimClass c) {
    return fwd_bandwidth[static_cast<size_t>(k)][static_cast<size_t>(c)];
  }
  const std::optional<double>& bandwidth(ComputeKernel k, DimClass c) const {
    return fwd_bandwidth[static_cast<size_t>(k)][static_cast<size_t>(c)];
  }
  std::optional<double>& overhead(ComputeKernel k) { return overhead_ms[static_cast<size_t>(k)]; }
  const std::optional<double>& overhead(ComputeKernel k) const {
    return overhead_ms[static_cast<size_t>(k)];
  }
  std::optional<double>& bwd_multiplier_of(ComputeKernel k) {
    return kernel_bwd_multiplier[static_cast<size_t>(k)];
  }
  const std::optional<double>& bwd_multiplier_of(ComputeKernel k) const {
    return kernel_bwd_multiplier[static_cast<size_t>(k)];
  }
  // The backward multiplier kernel `k` uses: its own, else bwd_multiplier,
  // else `torchrec` (the topology's).
  double backward_multiplier(ComputeKernel k, double torchrec) const {
    return bwd_multiplier_of(k).value_or(bwd_multiplier.value_or(torchrec));
  }
  const CommCalibration& comm(bool inter) const { return inter ? inter_host : intra_host; }

  // True when no parameter is set.
  bool empty() const;
};

// Forward compute time, ms, of a lookup moving `fwd_bytes` by TorchRec's
// count: overhead + fwd_bytes / calibrated bandwidth, or, without a calibrated
// bandwidth, overhead + fwd_bytes · penalty / torchrec_bw (TorchRec's
// expression, penalty 1 where TorchRec applies none).
double calibrated_fwd_compute(const CostCalibration& c, ComputeKernel kernel, int64_t dim,
                              double fwd_bytes, double penalty, double torchrec_bw);

// Time, ms, of `bytes` sent in scope `comm`: latency + bytes / bandwidth, with
// `torchrec_bw` for a missing bandwidth and 0 for a missing latency.
double calibrated_comm(const CommCalibration& comm, double bytes, double torchrec_bw);

}  // namespace shardlab::planner
