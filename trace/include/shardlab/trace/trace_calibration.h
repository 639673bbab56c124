// What `shardlab calibrate --from-trace` and the Python module's
// calibrate_from_trace fit, in two steps every front end calls
// (docs/calibration.md "From profiler traces"): read the records of the
// traces once, then fit them (the cost model's lookups and collectives, and
// the dense model's GEMMs against a GPU preset the caller chose).
//
// Thread safety: the functions share no state.
#pragma once

#include <string>
#include <vector>

#include "shardlab/kernels/calibration.h"
#include "shardlab/planner/hardware_spec.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/status.h"

namespace shardlab::trace {

struct TraceRecords {
  // Collectives (trace_measurements.h), then with a scenario its lookups
  // (trace_lookups.h).
  std::vector<kernels::Measurement> measurements;
  std::vector<kernels::GemmRecord> gemms;  // the dense model's matrix products
  std::string device;                      // the first file's GPU, or kUnknownDevice
  std::vector<std::string> files;          // the files read, in order
  std::vector<std::string> notes;          // what was left out, and why
};

// Reads `paths` (files or folders). With `scenario` (the traced job's
// model) and `planned` (its plan, placed: the scenario's own or the one the
// job ran) the lookups are read too, and collectives become optional.
// Errors (kInvalidArgument): trace_measurements' (local_world_size < 1, a
// file that cannot be read, no world size, nothing with a size when no
// scenario is given), trace_lookups'.
Result<TraceRecords> read_trace_records(const std::vector<std::string>& paths, int local_world_size,
                                        const planner::Scenario* scenario = nullptr,
                                        const planner::PlannerResult* planned = nullptr);

struct TraceCalibration {
  // The lookups' and collectives' fit (empty when the records hold none);
  // fit.calibration also holds the GEMM terms (gemm_efficiency,
  // gemm_kernel_ms) of every arithmetic fitted.
  kernels::CalibrationFit fit;
  std::vector<kernels::GemmFit> gemms;
  std::string gemm_gpu;            // the GPU the GEMMs were fitted against; empty: not fitted
  std::vector<std::string> notes;  // the records' notes, then the GEMM fit's
};

// Fits `records`. GEMMs against `gpu` (null: not fitted, with `no_gpu_why`
// as a note) named `gpu_name`, with HBM bandwidth `hbm_bw` (bytes/ms).
// Errors (kInvalidArgument): kernels::fit_calibration's and
// kernels::fit_gemm_efficiency's; nothing fitted at all ("nothing in the
// traces could be fitted: <the last note>").
Result<TraceCalibration> fit_trace_records(const TraceRecords& records,
                                           const kernels::CalibrationOptions& options,
                                           const planner::GpuSpec* gpu, const std::string& gpu_name,
                                           double hbm_bw, const std::string& no_gpu_why);

}  // namespace shardlab::trace
