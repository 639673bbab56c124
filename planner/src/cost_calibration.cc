#include "shardlab/planner/cost_calibration.h"

namespace shardlab::planner {

DimClass dim_class(int64_t dim) {
  if (dim >= 128) return DimClass::kFull;
  if (dim >= 64) return DimClass::kHalf;
  return DimClass::kNarrow;
}

std::string_view to_string(DimClass c) {
  switch (c) {
    case DimClass::kNarrow:
      return "narrow";
    case DimClass::kHalf:
      return "half";
    case DimClass::kFull:
      return "full";
  }
  return "narrow";
}

std::optional<DimClass> parse_dim_class(std::string_view s) {
  for (DimClass c : {DimClass::kNarrow, DimClass::kHalf, DimClass::kFull}) {
    if (s == to_string(c)) return c;
  }
  return std::nullopt;
}

bool CostCalibration::empty() const {
  for (const auto& per_kernel : fwd_bandwidth) {
    for (const auto& bw : per_kernel) {
      if (bw) return false;
    }
  }
  for (const auto& o : overhead_ms) {
    if (o) return false;
  }
  for (const auto& m : kernel_bwd_multiplier) {
    if (m) return false;
  }
  for (const auto& e : gemm_efficiency) {
    if (e) return false;
  }
  for (const auto& k : gemm_kernel_ms) {
    if (k) return false;
  }
  return !bwd_multiplier && !intra_host.bandwidth_bytes_per_ms && !intra_host.latency_ms &&
         !inter_host.bandwidth_bytes_per_ms && !inter_host.latency_ms;
}

// Without a parameter the term is TorchRec's expression plus an exact 0, so
// the result keeps TorchRec's bits.
double calibrated_fwd_compute(const CostCalibration& c, ComputeKernel kernel, int64_t dim,
                              double fwd_bytes, double penalty, double torchrec_bw) {
  const double overhead = c.overhead(kernel).value_or(0.0);
  if (const std::optional<double>& bw = c.bandwidth(kernel, dim_class(dim)))
    return overhead + fwd_bytes / *bw;
  return overhead + fwd_bytes * penalty / torchrec_bw;
}

double calibrated_comm(const CommCalibration& comm, double bytes, double torchrec_bw) {
  return comm.latency_ms.value_or(0.0) + bytes / comm.bandwidth_bytes_per_ms.value_or(torchrec_bw);
}

}  // namespace shardlab::planner
