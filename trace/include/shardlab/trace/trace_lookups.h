// Embedding lookups measured in profiler traces of a job whose model is known
// (docs/calibration.md "Lookups from traces"): what `shardlab calibrate
// --from-trace --scenario S [--plan P]` fits beside the collectives.
//
// A trace does not say which table a TBE kernel read (its arguments are
// offsets, not tables), so the lookups are measured per rank and phase: a
// step's GPU time in the forward and backward compute phases (StepSummary::
// phase_ms, docs/traces.md "Phases"). The plan says which shards the rank
// holds; the rank's time is shared among them in proportion to TorchRec's
// estimate of each (so within a rank the time per estimated millisecond is
// one number, as the fit assumes), one record per shard and phase as a
// replay writes them: model_bytes TorchRec's forward bytes of the shard,
// timing the shard's share of each step summarized over the steps.
#pragma once

#include <string>
#include <vector>

#include "shardlab/kernels/measurement.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/status.h"
#include "shardlab/trace/trace_summary.h"

namespace shardlab::trace {

struct TraceLookups {
  std::vector<kernels::Measurement> measurements;  // by rank, then shard, forward then backward
  std::vector<std::string> notes;                  // ranks left out, and why
};

// The records of every traced rank of `summary` that the plan (`planned`:
// a successful planning or rating of `scenario`) gives shards and whose
// steps spent GPU time in the phase. A rank the trace does not name, or
// that is outside the scenario's world, is left out with a note.
// Errors (kInvalidArgument): `planned` holds no plan; no record results
// ("no traced rank has lookups the plan can account for", with the notes).
Result<TraceLookups> trace_lookups(const TraceSummary& summary, const planner::Scenario& scenario,
                                   const planner::PlannerResult& planned);

}  // namespace shardlab::trace
