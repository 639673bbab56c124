// Measurements of collectives from profiler traces, for calibration
// (docs/calibration.md "From profiler traces"): what `shardlab calibrate
// --from-trace` fits, the same records a replay run measures.
//
// Each `nccl:<collective>` op a rank issues inside a step, with its first
// input's size as the profiler records it, is one sample; its time is the
// summed duration of the GPU kernels its launches started (a collective's
// kernel runs until every peer has joined, so it includes waiting for the
// slowest rank). The k-th op of a kind and size in each step is one
// collective, its samples over the steps summarized (median, p90, minimum).
// Bytes: what the rank sends of a buffer of S bytes among n ranks, as the
// simulator counts them (sim::CollectiveSpec::bytes_sent): all-to-all
// S(n-1)/n, reduce-scatter S(n-1)/n of its input, all-gather its input times
// (n-1), all-reduce 2S(n-1)/n. n is the job's world size
// (distributedInfo.world_size); a collective spans hosts when n exceeds
// `local_world_size`.
//
// The dense model's matrix products too: each `aten::mm`, `aten::addmm` and
// `aten::bmm` op inside a step whose inputs' shapes the profiler recorded
// (record_shapes=True) is a sample of its shape (m, n, k, batch) and
// arithmetic; its time the summed duration of the kernels its thread
// launched while it ran. Arithmetic: the first matrix's "Input type"
// (c10::Half fp16, c10::BFloat16 bf16, float fp32), and tf32 for float data
// when one of its kernels runs on tensor cores (a name with `tf32` or
// `s1688`). One record per rank, op, shape and arithmetic, its samples
// summarized.
//
// Lookups need the job's model and are measured by trace_lookups.h.
#pragma once

#include <string>
#include <vector>

#include "shardlab/kernels/measurement.h"
#include "shardlab/planner/status.h"
#include "shardlab/trace/trace_summary.h"

namespace shardlab::trace {

// TraceMeasurements::device when no file names its GPU.
inline constexpr const char* kUnknownDevice = "unknown GPU";

struct TraceMeasurements {
  std::vector<kernels::Measurement> measurements;  // collectives, by rank then first occurrence
  std::vector<kernels::GemmRecord> gemms;          // by rank, then first occurrence
  std::string device;                              // the first file's GPU, or kUnknownDevice
  std::vector<std::string> files;                  // the files read, in order
  // Ops skipped, and why (a size the profiler did not record, a collective
  // kind the simulator has none of), counted per reason.
  std::vector<std::string> notes;
};

// Reads every path (a file, or a folder's *.json and *.json.gz files).
// Errors (kInvalidArgument): as summarize_traces' for the files; a file
// without distributedInfo.world_size ("cannot tell how many ranks took
// part"); `local_world_size` < 1; neither a collective with a size nor a
// matrix product with shapes in any file, when `require_collectives` (else a
// note says so: the caller measures lookups too, trace_lookups.h).
Result<TraceMeasurements> trace_measurements(const std::vector<std::string>& paths,
                                             int local_world_size, const TraceOptions& options = {},
                                             bool require_collectives = true);

}  // namespace shardlab::trace
