#include "shardlab/trace/trace_calibration.h"

#include <utility>

#include "shardlab/trace/trace_lookups.h"
#include "shardlab/trace/trace_measurements.h"
#include "shardlab/trace/trace_summary.h"

namespace shardlab::trace {

Result<TraceRecords> read_trace_records(const std::vector<std::string>& paths, int local_world_size,
                                        const planner::Scenario* scenario,
                                        const planner::PlannerResult* planned) {
  const bool lookups = scenario != nullptr && planned != nullptr;
  // With the job's model its lookups count too, so collectives are optional.
  Result<TraceMeasurements> read =
      trace_measurements(paths, local_world_size, {}, /*require_collectives=*/!lookups);
  if (!read) return read.status();
  TraceRecords out{.measurements = std::move(read->measurements),
                   .gemms = std::move(read->gemms),
                   .device = std::move(read->device),
                   .files = std::move(read->files),
                   .notes = std::move(read->notes)};
  if (!lookups) return out;
  Result<TraceSummary> summary = summarize_traces(paths);
  if (!summary) return summary.status();
  Result<TraceLookups> found = trace_lookups(*summary, *scenario, *planned);
  if (!found) return found.status();
  out.measurements.insert(out.measurements.end(), found->measurements.begin(),
                          found->measurements.end());
  out.notes.insert(out.notes.end(), found->notes.begin(), found->notes.end());
  return out;
}

Result<TraceCalibration> fit_trace_records(const TraceRecords& records,
                                           const kernels::CalibrationOptions& options,
                                           const planner::GpuSpec* gpu, const std::string& gpu_name,
                                           double hbm_bw, const std::string& no_gpu_why) {
  TraceCalibration out;
  out.notes = records.notes;
  // Traces of matrix products alone fit the GEMMs alone.
  if (!records.measurements.empty()) {
    Result<kernels::CalibrationFit> fit = kernels::fit_calibration(records.measurements, options);
    if (!fit) return fit.status();
    out.fit = std::move(fit).value();
  }
  if (records.gemms.empty()) {
    out.notes.push_back(
        "no matrix product with recorded shapes in the traces: the dense model's GEMMs are not "
        "fitted (record_shapes=True records them)");
  } else if (gpu == nullptr) {
    out.notes.push_back(std::to_string(records.gemms.size()) +
                        " matrix products not fitted: " + no_gpu_why);
  } else {
    Result<std::vector<kernels::GemmFit>> fits =
        kernels::fit_gemm_efficiency(records.gemms, *gpu, hbm_bw, options, &out.notes);
    if (!fits) return fits.status();
    out.gemms = std::move(fits).value();
    out.gemm_gpu = gpu_name;
    for (const kernels::GemmFit& g : out.gemms) {
      out.fit.calibration.gemm_efficiency[static_cast<size_t>(g.precision)] = g.fitted;
      out.fit.calibration.gemm_kernel_ms[static_cast<size_t>(g.precision)] = g.fitted_kernel_ms;
    }
  }
  if (out.fit.calibration.empty()) {
    return Status::invalid_argument(
        "nothing in the traces could be fitted: " +
        (out.notes.empty() ? std::string("no records") : out.notes.back()));
  }
  return out;
}

}  // namespace shardlab::trace
