// A trace against a simulation of the same job (docs/traces.md "Against a
// simulation"): per rank, the measured step, GPU-busy time and GPU time by
// phase (medians over the trace's steps, nearest rank as the replay's
// kernels::summarize takes them) beside the simulated ones (the last
// simulated iteration of the same rank), with the error. Computed once here
// for every front end.
#pragma once

#include <string>
#include <vector>

#include "shardlab/planner/status.h"
#include "shardlab/sim/simulation.h"
#include "shardlab/trace/trace_summary.h"

namespace shardlab::trace {

struct AgainstRow {
  // "step", "gpu_busy", "gpu_waits_host", or a phase name ("input_dist", ...)
  std::string what;
  double measured_ms = 0.0;
  double simulated_ms = 0.0;
  // false for "other" (time no rule places, unsimulated), and for
  // "gpu_waits_host" when the simulation ran no host lane
  bool simulated_known = true;
  // (simulated - measured) / measured; 0 when nothing was measured or
  // nothing is simulated to compare.
  double error() const {
    return measured_ms > 0.0 && simulated_known ? (simulated_ms - measured_ms) / measured_ms : 0.0;
  }
};

struct Against {
  int rank = 0;                  // the trace's rank (0 when the file names none)
  std::string file;              // the trace file
  int steps = 0;                 // steps the medians are over
  std::vector<AgainstRow> rows;  // step, gpu_busy, gpu_waits_host, then each phase either side has
};

// One Against per rank of `measured` (files in their order). Simulated: the
// last iteration of the same rank of `simulated`, whose phases must have been
// recorded: a step is its iteration time, GPU-busy the union of its compute
// and comm phases' intervals, GPU waiting for the host its
// RankResult::gpu_waits_host_ms (measured: the trace's host_wait_ms), a phase
// the summed length of its records on those streams. Errors (kInvalidArgument): a trace rank the
// simulation does not have ("trace rank 9 (file): the simulation has 8 ranks"); a trace rank
// without steps; a simulation without recorded phases.
Result<std::vector<Against>> compare_with_simulation(const TraceSummary& measured,
                                                     const sim::SimResult& simulated);

// One measured step laid out beside a simulation, for a timeline that shows
// measured lanes under the simulated ones (the workbench's Timeline view).
struct MeasuredLane {
  int rank = 0;  // the trace's rank (0 when the file names none)
  sim::Stream stream = sim::Stream::kCompute;
  std::vector<MeasuredSpan> spans;  // on the simulation's clock, in order, not overlapping
};

struct MeasuredTimeline {
  int64_t step = 0;        // the step shown: N of ProfilerStep#N
  double step_ms = 0.0;    // its length on the lowest traced rank
  int steps = 0;           // steps every traced rank has, the step was chosen among
  bool aligned = false;    // ranks on one clock (align_ranks); else each from its own step's start
  double origin_ms = 0.0;  // where the step starts: the simulation's last iteration's start
  std::vector<MeasuredLane> lanes;  // by rank, compute then comm; a lane without spans is left out
};

// The traced step whose length on the lowest rank is the median (nearest
// rank) of the steps every rank has, moved so that it starts where the
// simulation's last iteration starts (its earliest phase record): aligned
// ranks keep their offsets from the lowest rank's step start, others start
// their own step there. `measured` must have been summarized with
// TraceOptions::spans. Errors (kInvalidArgument): a trace rank the simulation
// does not have, or without steps (as compare_with_simulation); a simulation
// without recorded phases; no spans kept ("summarize with spans"); no step
// number that every rank has.
Result<MeasuredTimeline> measured_timeline(const TraceSummary& measured,
                                           const sim::SimResult& simulated);

// The rows as a table for people, one block per rank.
std::string against_text(const std::vector<Against>& all);

// The rows as JSON for scripts:
//   {"ranks": [{"rank", "file", "steps",
//               "rows": [{"what", "measured_ms", "simulated_ms", "error"}]}]}
// "simulated_ms" and "error" are null where nothing is simulated ("other"),
// "error" also where nothing was measured. `indent` < 0: one line.
std::string against_to_json(const std::vector<Against>& all, int indent = 2);

}  // namespace shardlab::trace
