// Building the run store's row sets (run_store.h) from planner and simulator
// results, so every verb records the same rows for the same result.
//
// Thread safety: every function here is reentrant.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "shardlab/data/run_store.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
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

// A NewRun of `kind` for `scenario`: its name and TorchRec model and, when
// `planned` is not null and holds a plan, the plan: its JSON (`plan_json` when
// the caller has written it already, compact), per-shard estimates and the
// scenario's device. The scenario's text and the summary are the caller's.
NewRun new_run(RunKind kind, const planner::Scenario& scenario,
               const planner::PlannerResult* planned, std::string plan_json = {});

// What a plan was made with, for its run's summary.
struct PlanRunSettings {
  std::string perf_model = "torchrec";  // "torchrec" or "simulated"
  int simulations = -1;                 // simulations the simulated model ran; -1: none
  std::string from_plan;                // the plan file it was read from; "": planned
  std::string calibration;              // the calibration profile given; "": none
};

// A plan run of `planned` (new_run, `plan_json` as there) with the summary
// docs/run-store.md lists: rating_ms, perf_model, tables, world_size,
// num_proposals, num_plans, wall_ms, and simulations / from_plan /
// calibration when set. The scenario's text is the caller's.
NewRun plan_run(const planner::Scenario& scenario, const planner::PlannerResult& planned,
                const PlanRunSettings& settings, std::string plan_json = {});

// What a simulation was run with, for its run's summary.
struct SimulationRunSettings {
  bool overlap = true;
  bool contention = true;
  std::string comm_model = "flows";  // "flows" or "estimates"
  std::string from_plan;             // the plan file the plan was read from; "": planned
  std::string calibration;           // the calibration profile given; "": none
};

// A run of kind trace: a profiler trace of a real job summarized
// (trace::headline's numbers as its summary), named `name` (the trace's
// file or folder), measured on `device` (the GPU's name, may be empty), with
// no scenario or plan; backend "trace".
NewRun trace_run(std::string name, std::string device,
                 const std::vector<std::pair<std::string, double>>& headline);

// A simulate run of `planned` (new_run) with the steady-state iteration's
// phases (sim_phase_rows) and the summary docs/run-store.md lists:
// iteration_ms, total_ms, iterations, rating_ms, overlap, contention,
// comm_model, ranks, events, wall_ms, and from_plan / calibration when set.
// Every front end records a simulation through this, so the same simulation
// is the same run whichever recorded it. The scenario's text is the caller's.
NewRun simulation_run(const planner::Scenario& scenario, const planner::PlannerResult& planned,
                      const sim::SimResult& result, const SimulationRunSettings& settings);

// A run's summary_json (NewRun::summary_json): a one-line JSON object of the
// fields in order. Doubles in shortest round-trip form (NaN and infinities
// as null), strings escaped.
using SummaryValue = std::variant<double, int64_t, bool, std::string>;
std::string summary_json(const std::vector<std::pair<std::string, SummaryValue>>& fields);

// A summary_json for people: "iteration 0.0337 ms, rating 0.01641 ms, ...":
// the fields in order, "_ms" fields named without it and followed by their
// unit, underscores as spaces, numbers to `digits` significant digits (0:
// the shortest text that reads back exactly), joined by `separator`. The run
// lists of the CLI and the workbench show this.
std::string summary_text(const std::string& summary_json, int digits = 4,
                         std::string_view separator = ", ");

// The fields of a summary_json, in order. Integers stay int64_t, other
// numbers become doubles; nulls and nested values are skipped, and text that
// is not a JSON object gives no fields.
std::vector<std::pair<std::string, SummaryValue>> summary_fields(const std::string& summary_json);

// Where a run ran, for people: "<backend>: <device>" for replay runs (e.g.
// "cpu: AMD EPYC 7763"), else the device alone.
std::string device_label(const RunSummary& run);

}  // namespace shardlab::data
