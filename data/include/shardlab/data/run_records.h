// Building the run store's row sets (run_store.h) from planner and simulator
// results, so every verb records the same rows for the same result.
//
// Thread safety: every function here is reentrant.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "shardlab/data/run_store.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::data {

// One row per shard of `plan` (options in proposal order, shards in shard
// order), with the option's per-shard perf and the shard's storage.
// REQUIRES: plan.first_shard laid out for plan.proposal over `space`.
std::vector<EstimateRow> estimate_rows(const planner::SearchSpace& space,
                                       const planner::PartitionedPlan& plan);

// Which simulated iterations sim_phase_rows keeps.
enum class SimPhaseSelection {
  kLastIteration,  // the steady-state iteration only (default: a 1024-rank
                   // run of 8 iterations would otherwise store ~70k rows)
  kAll,            // every recorded phase of every iteration
};

// The recorded phases of `result`, ranks in result order, phases in the
// order each rank recorded them. With kLastIteration only phases whose
// iteration is result.iterations - 1 are kept (a pipelined input_dist of
// the next batch belongs to its own iteration and is not kept).
std::vector<SimPhaseRow> sim_phase_rows(
    const sim::SimResult& result, SimPhaseSelection selection = SimPhaseSelection::kLastIteration);

// A run's summary_json (NewRun::summary_json): a one-line JSON object of the
// fields in order. Doubles in shortest round-trip form (NaN and infinities
// as null), strings escaped.
using SummaryValue = std::variant<double, int64_t, bool, std::string>;
std::string summary_json(const std::vector<std::pair<std::string, SummaryValue>>& fields);

// The fields of a summary_json, in order. Integers stay int64_t, other
// numbers become doubles; nulls and nested values are skipped, and text that
// is not a JSON object gives no fields.
std::vector<std::pair<std::string, SummaryValue>> summary_fields(const std::string& summary_json);

// Where a run ran, for people: "<backend>: <device>" for replay runs (e.g.
// "cpu: AMD EPYC 7763"), else the device alone.
std::string device_label(const RunSummary& run);

}  // namespace shardlab::data
