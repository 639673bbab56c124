// The events of one trace file that a summary needs, read as a stream
// (trace_events.cc): ProfilerStep annotations, runtime calls with their
// correlation ids, GPU events with theirs and the kernel-name families the
// summary sums. Nothing else of the file is kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shardlab/planner/status.h"

namespace shardlab::trace::detail {

struct StepMark {
  int64_t step = -1;  // -1: the name carries no number
  double ts_us = 0.0;
  double dur_us = 0.0;
  int64_t tid = -1;  // the thread that ran it; -1 when the file gives no number
};

struct Launch {
  int64_t correlation = 0;
  double ts_us = 0.0;
  int64_t tid = -1;  // the calling thread; -1 when the file gives no number
};

enum class GpuKind : uint8_t { kKernel, kMemcpy, kMemset };

// A runtime or driver call that may block its thread until GPU work is done
// (docs/traces.md "Host side"): a `...Synchronize` call, or a memory copy
// call, which blocks when its copy goes to the host.
struct BlockingCall {
  double ts_us = 0.0;
  double dur_us = 0.0;
  int64_t tid = -1;          // -1 when the file gives no number
  int64_t correlation = -1;  // -1 when it has none
  bool copy = false;         // a copy call: blocking only if its GPU copy is device to host
};

// Kernel-name families (StepSummary's nccl_ms, tbe_ms, gemm_ms); a name may
// belong to several.
// kTensorF32: a kernel computing fp32 data on tensor cores, i.e. in tf32
// (its name says `tf32`, or cuBLAS's/CUTLASS's `s1688`).
enum KernelFamily : uint8_t { kNccl = 1, kTbe = 2, kGemm = 4, kTensorF32 = 8 };

struct GpuEvent {
  int64_t correlation = 0;
  double ts_us = 0.0;
  double dur_us = 0.0;
  GpuKind kind = GpuKind::kKernel;
  uint8_t families = 0;    // KernelFamily bits
  bool to_host = false;    // a copy whose name says device to host (`DtoH`)
  int32_t nccl_name = -1;  // an NCCL kernel's name, as an index into RawTrace::nccl_names
};

// The CPU-side annotations that place a launch in a stage of the step
// (docs/traces.md "Phases"), by what their names say.
enum class Stage : uint8_t { kInputDist, kForward, kBackward, kOptimizer, kAllReduce };
inline constexpr int kNumStages = 5;

struct StageMark {
  double ts_us = 0.0;
  double end_us = 0.0;
};

// A collective as PyTorch's distributed layer issues it (a cpu_op or user annotation named
// "nccl:<collective>"), with its first input's size as the profiler records
// it ("Input Dims", "Input type"); 0 elements where it records none.
struct CommOp {
  std::string name;  // "nccl:all_to_all", "nccl:_reduce_scatter_base", ...
  double ts_us = 0.0;
  double end_us = 0.0;
  int64_t elements = 0;
  int element_bytes = 0;  // 0: a type this reader does not size
};

// A matrix product as ATen records it (a cpu_op `aten::mm`, `aten::addmm` or
// `aten::bmm` with "Input Dims"): C[m x n] = A[m x k] · B[k x n], `batch`
// times for bmm; its first matrix's "Input type".
struct GemmOp {
  std::string name;  // "aten::mm", "aten::addmm", "aten::bmm"
  int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string type;  // "float", "c10::Half", "c10::BFloat16", ...
  double ts_us = 0.0;
  double end_us = 0.0;
  int64_t tid = -1;
};

struct RawTrace {
  int rank = -1;
  int world_size = -1;
  std::string device;  // deviceProperties[0].name, empty when absent
  std::vector<CommOp> comm_ops;
  std::vector<GemmOp> gemm_ops;
  bool has_events = false;  // a traceEvents array was found
  std::vector<StepMark> steps;
  std::vector<Launch> launches;
  std::vector<BlockingCall> blocking;
  std::vector<GpuEvent> gpu;
  std::vector<std::string> nccl_names;        // the distinct names of NCCL kernels
  std::vector<StageMark> stages[kNumStages];  // by Stage
};

// The stage an annotation named `name` (category user_annotation or cpu_op)
// marks, or -1.
int stage_of(const std::string& name);

// The families of a kernel named `name`.
uint8_t kernel_families(const std::string& name);

// The files `paths` name: each a file, or a folder's `*.json` and
// `*.json.gz` files in name order. Errors (kInvalidArgument): a folder that
// cannot be listed or holds none; no path at all.
Result<std::vector<std::string>> trace_files(const std::vector<std::string>& paths);

// Reads `path` (plain or gzip) as a stream, taking the CPU-side annotations
// whose names start with `step_prefix` as steps (a step number follows the
// prefix, or steps are numbered 0, 1, ... in time order when none does).
// Errors as summarize_trace_file's.
Result<RawTrace> read_trace_events(const std::string& path, const std::string& step_prefix);

}  // namespace shardlab::trace::detail
