// Per-rank, per-step summaries of PyTorch profiler traces (Kineto's Chrome
// trace-event JSON, one file per rank, plain or gzip-compressed), as
// docs/traces.md defines every field, so that any reader of the same file
// gets the same numbers.
//
// A step is a CPU-side `ProfilerStep#N` annotation: its window is
// [ts, ts + dur). Its GPU work is every GPU event (category `kernel`,
// `gpu_memcpy` or `gpu_memset`) whose launching runtime call (category
// `cuda_runtime` or `cuda_driver`, the same `args.correlation`) starts inside
// that window. GPU events without a launching call are in no step.
//
// Units: milliseconds (the trace's microseconds / 1000).
// Memory: a file is read as a stream (never as a whole document); what is
// kept is about 40 bytes per runtime call and GPU event, and the steps.
// Determinism: the same file gives the same summary, bit for bit.
// Thread safety: the functions share no state; call them from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shardlab/planner/status.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::trace {

// An NCCL kernel of a step's GPU work, on the trace's own clock (ms).
struct CollectiveKernel {
  std::string name;
  double start_ms = 0.0;
  double end_ms = 0.0;
};

// A stretch of one step's GPU work on one lane, kept when
// TraceOptions::spans asks (the workbench's measured lanes,
// measured_timeline.h). The step's GPU events go to two lanes as the
// simulator's streams: NCCL kernels to kComm, the rest to kCompute. On a lane,
// in start order (the longer first when two start together), an event that overlaps or touches the
// span before it and has its phase extends that span; one that starts inside it with another phase
// starts where it ends (an event wholly inside is counted in the span it is
// inside); otherwise it starts a span of its own. So a lane's spans do not
// overlap, run in order, and their union is the union of the lane's events.
struct MeasuredSpan {
  std::optional<sim::Phase> phase;  // nullopt: "other" (no rule places it)
  sim::Stream stream = sim::Stream::kCompute;
  // From the step's start (StepSummary::start_ms): exact to the trace's
  // microseconds, where a clock of the epoch's scale in ms would round them.
  double start_ms = 0.0;
  double end_ms = 0.0;
  int events = 0;  // GPU events it holds
};

struct StepSummary {
  int64_t step = 0;          // N of ProfilerStep#N
  double step_ms = 0.0;      // the annotation's duration
  double start_ms = 0.0;     // its start, on the trace's clock
  int64_t kernels = 0;       // `kernel` events of the step's GPU work
  int64_t gpu_events = 0;    // all its GPU events (kernels, copies, memsets)
  double gpu_busy_ms = 0.0;  // length of the union of its GPU events' intervals
  // Summed durations of the step's kernels by name: NCCL's (`nccl*`), FBGEMM's
  // table-batched embeddings (`split_embedding`, `embedding_codegen`,
  // `batched_embedding`), GEMMs (`gemm`, `xmma`, `cutlass`). Case-sensitive.
  double nccl_ms = 0.0;
  double tbe_ms = 0.0;
  double gemm_ms = 0.0;
  // The step's GPU time by ShardLab phase (docs/traces.md "Phases"): summed
  // durations of its GPU events that the rules place in each (phases the
  // rules never name stay 0), and of those they place nowhere.
  std::array<double, sim::kNumPhases> phase_ms{};
  double other_ms = 0.0;
  // The host side (docs/traces.md "Host side"). Idle: the part of the step's
  // window in which no GPU event of the file runs (any step's). Of that, the
  // stretches the GPU spent waiting for the host: every GPU event that ends
  // the stretch was launched (its call began) at or after the stretch began,
  // or no GPU event follows. Work the profiler did not record (kernels of a
  // CUDA graph, in Kinetos before 2023) counts as idle.
  double gpu_idle_ms = 0.0;
  double host_wait_ms = 0.0;
  // Blocking calls on the step's thread that start in its window: runtime or
  // driver calls named `...Synchronize`, and copy calls (`cudaMemcpy...`,
  // `cuMemcpy...`) whose GPU copy is device to host. Their count, and their
  // summed durations.
  int64_t syncs = 0;
  double sync_ms = 0.0;
  // The step's NCCL kernels in start order (what align_ranks matches; not
  // written out).
  std::vector<CollectiveKernel> collectives;
  // The compute lane's spans, then the comm lane's (MeasuredSpan); empty
  // unless TraceOptions::spans. Not written out.
  std::vector<MeasuredSpan> spans;
  // Across ranks (align_ranks, docs/traces.md "Across ranks"); unknown
  // (nullopt, 0) unless the step was aligned: of its NCCL kernels' time, the
  // part spent before the last rank arrived (waiting for peers) and the rest
  // (transferring); how many of them this rank arrived at last.
  std::optional<double> nccl_wait_ms;
  std::optional<double> nccl_transfer_ms;
  int last_to_arrive = 0;
};

struct RankTrace {
  std::string file;                // as given
  int rank = -1;                   // distributedInfo.rank; -1 when the file has none
  int world_size = -1;             // distributedInfo.world_size; -1 when the file has none
  std::string device;              // deviceProperties[0].name; empty when the file has none
  std::vector<StepSummary> steps;  // in step order
  // This rank's clock minus the lowest rank's (align_ranks); nullopt unless
  // aligned.
  std::optional<double> clock_offset_ms;
};

// In an aligned step, the rank the others waited for most: the summed waits
// of the others in the collectives it arrived at last.
struct HeldBack {
  int64_t step = 0;
  int rank = 0;
  int last_of = 0;      // collectives it arrived at last
  int collectives = 0;  // the step's collectives
  double others_waited_ms = 0.0;
};

// What align_ranks could do: `aligned` when the files hold every rank of one
// job; otherwise `why` says what is missing. `held_back`: one entry per
// aligned step, in step order.
struct Alignment {
  bool aligned = false;
  std::string why;
  std::vector<HeldBack> held_back;
};

// A rank's host verdict: the median over its steps (nearest rank, as the
// replay's kernels::summarize takes it) of host_wait_ms / step_ms, and
// sim::host_verdict of that share. Share 0 and "GPU-bound" without steps.
struct HostWait {
  double share = 0.0;
  std::string verdict;
};
HostWait host_wait(const RankTrace& rank);

struct TraceSummary {
  std::vector<RankTrace> ranks;  // by rank, then file name
  Alignment alignment;           // set by summarize_traces (align_ranks)
};

// Aligns the ranks' clocks and splits collectives into waiting and
// transferring (docs/traces.md "Across ranks"). Needs every rank of one job
// (ranks 0..W-1 of one world size W >= 2, one file each); a step is aligned
// when every rank has it with the same NCCL kernel names in the same order.
// Offsets: per rank, the median over the aligned steps' collectives of its
// kernel's end minus rank 0's (a collective ends on every rank at about the
// same time). Per collective, the last rank to arrive is the one whose
// kernel starts last on the aligned clock; a rank's wait is from its start
// to that start (at most its kernel's length), its transfer the rest. Fills
// the fields above and summary.alignment; changes nothing else. Never fails:
// what it cannot align it says in alignment.why.
void align_ranks(TraceSummary& summary);

struct TraceOptions {
  // The steps: CPU-side annotations whose names start with this. A number
  // right after it is the step's; names without one are numbered 0, 1, ...
  // in time order (a training loop's own `record_function("train_step")`).
  std::string step_prefix = "ProfilerStep#";
  // Keep each step's GPU work as lanes of spans (StepSummary::spans): about
  // 40 bytes per GPU event of the file more, for a timeline of it.
  bool spans = false;
};

// Reads one trace file. Errors (all kInvalidArgument, exit status 2):
//  - the file cannot be opened or read: "<file>: cannot read: <reason>";
//  - it is not JSON, or ends early (a truncated .gz included): "<file>: not a
//    complete trace: <what> at byte <offset>" (the offset in the decompressed
//    text);
//  - it has no `traceEvents` array, or no step annotation
//    (TraceOptions::step_prefix): "<file>: ..." saying which, and what would
//    help.
Result<RankTrace> summarize_trace_file(const std::string& path, const TraceOptions& options = {});

// Reads every path: a file, or a folder whose `*.json` and `*.json.gz` files
// are read (other files are skipped). Fails on the first file that fails, on
// an empty folder, and when two files claim the same rank (naming both).
Result<TraceSummary> summarize_traces(const std::vector<std::string>& paths,
                                      const TraceOptions& options = {});

// The summary as JSON (docs/traces.md "The summary file"): {"ranks": [{"rank",
// "world_size", "file", "host_wait_share", "host_verdict", "steps": [{"step",
// "step_ms", "kernels", "gpu_busy_ms", "nccl_ms", "tbe_ms", "gemm_ms", ...,
// "gpu_idle_ms", "host_wait_ms", "syncs", "sync_ms", "phases_ms"}]}]}.
// `indent` < 0: one line.
std::string summary_to_json(const TraceSummary& summary, int indent = 2);

// The summary's headline numbers, what a run of kind "trace" records
// (docs/run-store.md): medians over every rank's steps (nearest rank, as
// kernels::summarize takes them) of iteration_ms (the step), gpu_busy_ms,
// gpu_idle_ms, host_wait_ms, nccl_ms, tbe_ms, gemm_ms and kernels, then
// ranks, steps (over all ranks) and world_size (-1 when no file says).
// iteration_ms has the name a simulation's run gives its iteration, so
// `shardlab runs diff` sets the two side by side. Empty without steps.
std::vector<std::pair<std::string, double>> headline(const TraceSummary& summary);

// The summary for people: per rank, a row per step, then the GPU time by
// phase and the host side with its verdict (sim::host_verdict of the median
// host_wait_ms / step_ms). Neither text ends with a line break.
std::string summary_text(const TraceSummary& summary);

}  // namespace shardlab::trace
