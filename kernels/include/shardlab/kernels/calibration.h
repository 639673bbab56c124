// Calibration of the cost model from replay measurements: fits the parameters
// of planner::CostCalibration (effective forward bandwidth per compute kernel
// and dim class, per-kernel overhead and backward multiplier, latency and
// bandwidth per communication scope) by non-negative least squares, and
// reports the error of TorchRec's defaults and of the fitted model on
// measurements held out of the fit. docs/calibration.md has the derivation.
//
// The model, per record (times are medians, ms; bytes as Measurement counts):
//   forward lookup   t = overhead_k + model_bytes / bandwidth_{k,c}
//   backward lookup  t = multiplier_k · (forward prediction of the same shard)
//   collective       t = latency_s + bytes / bandwidth_s, s = intra or inter host
// Each group's unknowns are fitted to relative residuals ((pred - t) / t), so
// a 10 µs lookup weighs as much as a 10 ms one, and columns are scaled to unit
// norm before solving (bytes ~1e9 beside a constant ~1).
//
// Thread safety: every function here is reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/kernels/measurement.h"
#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/types.h"

namespace shardlab::kernels {

// Non-negative least squares: the x >= 0 that minimises ||A·x - b||₂, by
// Lawson and Hanson's active-set method. `a` is row-major, rows × cols.
// Fails (kInvalidArgument) when sizes disagree or a value is not finite, and
// (internal) when the active set does not settle within 3·cols + 30 steps.
Result<std::vector<double>> nnls(const std::vector<double>& a, int rows, int cols,
                                 const std::vector<double>& b);

struct CalibrationOptions {
  // Share of each group's records held out of the fit to measure its error,
  // in [0, 1). A group of 2 or more records holds out at least 1 (when > 0)
  // and keeps at least 1 for the fit. Default 0.2.
  double holdout_fraction = 0.2;
  // Seeds the deterministic shuffle that picks the held-out records. Default 1.
  uint64_t seed = 1;
  // The "before" model: TorchRec's constants (docs/cost-model.md §1.1), also
  // the fallback for every parameter the fit leaves unset. Bandwidths in
  // bytes/ms; defaults TorchRec's.
  planner::ComputeDevice compute_device = planner::ComputeDevice::kCuda;
  double hbm_bw = planner::kDefaultHbmMemBw;
  double ddr_bw = planner::kDefaultDdrMemBw;
  double hbm_to_ddr_bw = planner::kDefaultHbmToDdrMemBw;
  // Whose kernel bandwidths (docs/torchrec-versions.md): 2026-08 charges UVM
  // kernels at hbm_to_ddr_bw, 2024-02 at ddr_bw.
  planner::TorchRecVersion torchrec_version = planner::kLatestTorchRecVersion;
  double intra_host_bw = planner::kDefaultIntraHostBw;
  double inter_host_bw = planner::kDefaultInterHostBw;
  double bwd_multiplier = planner::kDefaultBwdComputeMultiplier;
};

// Options whose "before" model is `scenario`'s: its device, bandwidths,
// backward multiplier and TorchRec version, as `plan` rates it (after its
// GPU preset, if any, filled them). The hold-out share and seed are the
// defaults.
CalibrationOptions before_model_options(const planner::Scenario& scenario);

// The records of one group and their errors. MAPEs are in percent, nullopt
// when the group has no records on that side.
struct CalibrationGroup {
  // "fwd <kernel>/<dim class>", "bwd <kernel>/<dim class>", "comm intra_host"
  // or "comm inter_host".
  std::string name;
  int fit_count = 0;
  int held_out = 0;
  bool fitted = false;                    // false: TorchRec's values kept (see the notes)
  std::optional<double> mape_before;      // held-out records, TorchRec's defaults
  std::optional<double> mape_after;       // held-out records, the fitted model
  std::optional<double> fit_mape_before;  // the fit's own records, TorchRec's defaults
  std::optional<double> fit_mape_after;   // the fit's own records: the training residual
};

struct CalibrationFit {
  planner::CostCalibration calibration;  // only fitted parameters are set
  int fit_count = 0;                     // records the fit used
  int held_out_count = 0;                // records held out to measure the error
  int skipped = 0;                       // records that carry nothing to fit (see notes)
  // Over all held-out records, percent; nullopt when nothing was held out.
  std::optional<double> mape_before;
  std::optional<double> mape_after;
  // The same over the fit's own records (the training residual after).
  std::optional<double> fit_mape_before;
  std::optional<double> fit_mape_after;
  std::vector<CalibrationGroup>
      groups;  // fwd groups by kernel then class, bwd likewise, comm intra then inter
  std::vector<std::string> notes;  // what was skipped or kept at TorchRec's value, and why
};

// Which records the fit uses and which it holds out, as indices into the
// measurements (ascending). Records that carry nothing to fit are in neither.
// A pure function of the measurements' groups, their order and the options.
struct HoldoutSplit {
  std::vector<size_t> fit;
  std::vector<size_t> held_out;
};
HoldoutSplit holdout_split(const std::vector<Measurement>& measurements,
                           const CalibrationOptions& options);

// Fits the calibration. Fails (kInvalidArgument) when the options are out of
// range or no record can be fitted (no lookups or collectives with positive
// bytes and time).
Result<CalibrationFit> fit_calibration(const std::vector<Measurement>& measurements,
                                       const CalibrationOptions& options = {});

// The dense model's GEMMs: the GEMM roofline (docs/presets.md "The GEMM
// roofline") fitted per arithmetic to matrix products measured in profiler
// traces (GemmRecord). Two parameters: the efficiency on large, square
// products (planner::GemmModel::max_efficiency, in [0.001, 1]) and a fixed
// time per kernel (GemmModel::kernel_ms, from 0 to the shortest record's
// time), so the model's time of a record is max(C / e, M) + t0, C the
// compute time at efficiency 1 and M the memory time of
// sim::gemm_time_ms. The fit minimises the summed squared log ratio of
// model to measured median over the fit records (every shape weighs the
// same whatever its length): e scanned in log space, t0 by golden-section
// search for each e, then both refined. Records are split per arithmetic as
// holdout_split splits a group (group "gemm <arithmetic>",
// options.holdout_fraction, options.seed).
struct GemmFit {
  planner::Precision precision = planner::Precision::kFp32;
  double preset = 0.0;            // the GPU preset's max_efficiency
  double preset_kernel_ms = 0.0;  // and its kernel_ms
  double fitted = 0.0;
  double fitted_kernel_ms = 0.0;
  int fit_count = 0;
  int held_out = 0;
  std::optional<double> mape_before;  // held-out records, the preset's model
  std::optional<double> mape_after;   // held-out records, the fitted one
  std::optional<double> fit_mape_before;
  std::optional<double> fit_mape_after;
};

// One fit per arithmetic the records hold, in Precision order. A record whose
// arithmetic the GPU has no peak for is left out, said in `notes`.
// Errors (kInvalidArgument): options out of range; `hbm_bw` <= 0; no record
// left to fit ("no matrix product to fit ...").
Result<std::vector<GemmFit>> fit_gemm_efficiency(const std::vector<GemmRecord>& records,
                                                 const planner::GpuSpec& gpu, double hbm_bw,
                                                 const CalibrationOptions& options,
                                                 std::vector<std::string>* notes);

// One fitted parameter beside TorchRec's value, for every parameter the fit
// had records for: what `shardlab calibrate` prints and the workbench's
// Calibration view shows. Rows: per compute kernel, its forward bandwidth per
// dim class, its overhead and its backward multiplier; then per collective
// scope, bandwidth and latency; then per arithmetic the dense model's GEMM
// efficiency and kernel time a trace fitted ("gemm tf32 efficiency", no
// TorchRec value: TorchRec has no dense model).
struct CalibrationParameter {
  enum class Unit { kBandwidth, kMs, kRatio };  // bytes/ms, ms, dimensionless
  std::string name;  // "fwd fused/wide bandwidth", "fused overhead", "intra_host latency"
  Unit unit = Unit::kMs;
  // TorchRec's value: for a forward bandwidth, the device's bandwidth for the
  // kernel over the table-wise block penalty of a representative dim of the
  // class (row-wise, table-row-wise and data-parallel shards take none);
  // nullopt when the kernel has no bandwidth on the device.
  std::optional<double> torchrec;
  std::optional<double> fitted;  // nullopt: the fit kept TorchRec's value
};
std::vector<CalibrationParameter> calibration_parameters(
    const planner::CostCalibration& fitted, const std::vector<CalibrationGroup>& groups,
    const CalibrationOptions& options);

// The time, ms, that TorchRec's defaults (calibration == nullptr) or a
// calibration predicts for a record, or nullopt when the record carries
// nothing to predict (a kEstimate collective, zero bytes, no bandwidth for
// the kernel on options.compute_device).
std::optional<double> predict_ms(const Measurement& m, const planner::CostCalibration* calibration,
                                 const CalibrationOptions& options);

}  // namespace shardlab::kernels
