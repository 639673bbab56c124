// Writing plans, options and errors as JSON (docs/cost-model.md §13.1,
// "Options"), writing TorchRec-shaped ShardingPlan files, and reading a plan
// file back into a PartitionedPlan.
//
// All writers are pure functions of their arguments: they never touch the file
// system, and they return the complete document as one string (no trailing
// newline). Doubles are written in their shortest round-trip form, so reading
// a number back gives the same double bit for bit. Objects keep the field order
// docs/scenario-format.md documents.
//
// Thread safety: every function here is reentrant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/types.h"

namespace shardlab::data {

// Indentation of written JSON: spaces per level, or kCompactJson for one line.
inline constexpr int kCompactJson = -1;
inline constexpr int kDefaultJsonIndent = 1;

// A document written compact (kCompactJson) by any writer here, laid out as
// that writer lays it out with `indent` (byte for byte), in one pass over the
// text: a caller that needs a document both ways (a file and the run store)
// writes it once. A negative `indent` returns it unchanged.
std::string indent_json(std::string_view compact, int indent);

// TorchRec's placement string of a shard on `rank`: "rank:R/cuda:L" and
// "rank:R/mtia:L" with L = R mod local_world_size, "rank:R/cpu" on cpu.
std::string shard_placement(planner::ComputeDevice device, int rank, int local_world_size);

// The plan of docs/cost-model.md §13.1: scenario, torchrec_version (the
// model that planned, docs/torchrec-versions.md), perf_rating_ms,
// num_proposals, num_plans, tables (in plan order), devices, reserved.
// When `result.ok()` is false this returns error_to_json(scenario.name,
// result.error, &result, indent) instead.
std::string plan_to_json(const planner::Scenario& scenario, const planner::PlannerResult& result,
                         int indent = kDefaultJsonIndent);

// The plan for people (what `shardlab plan` prints on a terminal): a row per
// table in plan order (table, sharding type, compute kernel, shards, the
// ranks they are on as ranges "0-7,12", the option's summed perf in ms and
// its HBM), then one line with the rating, the tables and the ranks. Names
// are printable() and cut to 40 characters. Lines end with '\n'. For a
// failed result, the failure's message.
std::string plan_to_text(const planner::Scenario& scenario, const planner::PlannerResult& result);

// docs/cost-model.md §13.2: {"scenario", "torchrec_version", "options": [...]},
// every enumerated option of result.search_space in enumeration order. Works for a result of
// plan(..., {.enumerate_only = true}) and for a failed planning run alike.
// When the search space is absent (the reservation or enumeration failed) it
// returns error_to_json(scenario.name, result.error, &result, indent).
// Which options options_to_json lists: those of the named tables (all when
// empty) whose sharding type is one of `sharding_types` (all when empty).
// Listed options keep their enumeration `index`.
struct OptionFilter {
  std::vector<std::string> tables;
  std::vector<planner::ShardingType> sharding_types;
  bool keeps(const planner::ShardingOption& option) const;
};
// The filter for table names and sharding-type names as a user gives them
// (shardlab options --table/--sharding-type, shardlab.options). Errors
// (kInvalidArgument): a table the scenario does not have ("table \"x\": the
// scenario has no table of that name"), a sharding type that is not one
// ("sharding type \"x\": expected one of table_wise, ...").
Result<OptionFilter> option_filter(const planner::Scenario& scenario,
                                   const std::vector<std::string>& tables,
                                   const std::vector<std::string>& sharding_types);
std::string options_to_json(const planner::Scenario& scenario, const planner::PlannerResult& result,
                            int indent = kDefaultJsonIndent, const OptionFilter& filter = {});

// The error shape of docs/cost-model.md §13.3:
//  - a kPlanner status gives {"scenario", "error": {"type", "message"},
//    "num_proposals", "num_plans", "reserved"}, with type to_string(planner_error()),
//    counters from `result` (0 when `result` is null) and reserved the device
//    list [{rank, hbm, ddr}] (with ssd when `ssd_tier`: a scenario that
//    uses_ssd_tier()) or null when the reservation did not complete;
//  - every other status gives {"scenario", "error": {"type", "message"}} with
//    type error_type_name(status).
// REQUIRES: !status.is_ok()
std::string error_to_json(const std::string& scenario_name, const Status& status,
                          const planner::PlannerResult* result, int indent = kDefaultJsonIndent,
                          bool ssd_tier = false);

// The error type a failed Status is reported under (docs/cost-model.md §13.3):
// kPlanner: to_string(planner_error()); kCorrupt: "corrupt" (a damaged run
// store); kUnavailable:
// "unavailable" (a device, library or module this host lacks); kInternal:
// "internal"; anything else (invalid, missing or unreadable input):
// "invalid_scenario".
// REQUIRES: !status.is_ok()
std::string error_type_name(const Status& status);

// The best plan as TorchRec's ShardingPlan, wrapped so the file says what it is:
//   {"format": "torchrec.ShardingPlan", "version": 1, "scenario": NAME,
//    "plan": {"<module path>": {"<table>": {"sharding_type", "compute_kernel", "ranks",
//             "sharding_spec", "cache_params", "enforce_hbm", "stochastic_rounding",
//             "bounds_check_mode"}}}}
// sharding_spec is null for data_parallel, otherwise a list of
// {"shard_offsets": [row, col], "shard_sizes": [rows, cols], "placement"}.
// Modules and tables come in plan order. docs/torchrec-interop.md shows how
// to turn it into torchrec.distributed.types.ShardingPlan.
// When `result.ok()` is false this returns the error JSON, as plan_to_json does.
std::string plan_to_torchrec_json(const planner::Scenario& scenario,
                                  const planner::PlannerResult& result,
                                  int indent = kDefaultJsonIndent);

// invalid_argument naming the first table of the plan laid out as HugeCTR
// lays it out ("layout": "hugectr"), which no TorchRec ShardingPlan can say;
// ok otherwise (and for a failed result). plan_to_torchrec_json writes this
// error for such a plan.
Status torchrec_buildable(const planner::PlannerResult& result);

// The "format" value of plan_to_torchrec_json's wrapper.
inline constexpr const char* kTorchrecPlanFormat = "torchrec.ShardingPlan";

// Reads a plan written elsewhere and places it in `space`, the search space of
// `scenario` (from plan(scenario, {.enumerate_only = true})). Accepted shapes:
//  - ShardLab's plan JSON (top-level "tables", as plan_to_json writes; its
//    other members are outputs and are not read);
//  - the TorchRec-shaped file of plan_to_torchrec_json, with or without its
//    {"format", "version", "plan"} wrapper. Module paths are not checked
//    (table names are unique in a scenario), so a plan whose modules were
//    renamed for a real model still reads.
// For each table the option with the same table name, sharding type and
// compute kernel is chosen; its shards' offsets and sizes, where the file gives
// them, must equal the option's, and every rank must be in [0, world_size).
// Every table of the scenario must appear exactly once. The result's proposal
// is in fqn order (SearchSpace::fqns), with ranks and first_shard filled in.
//
// A table marked "layout": "hugectr" (planner/hugectr_layout.h) is split by
// rows into one even block per listed rank, an option appended to `space`
// as a derived option: row_wise over any distinct ranks, table_row_wise over
// whole hosts. Otherwise a layout TorchRec would not build as written is
// refused: row-wise shard i
// must be on rank i, a table-row-wise table's shards on one host's local
// ranks in order, a data-parallel table on every rank in order and without a
// sharding_spec. Where the file's placement device, cache_params or
// enforce_hbm differ from the scenario (the rating uses the scenario's), a
// line for each goes to `warnings` when it is not null (at most 20, then a
// count).
//
// Errors are StatusCode::kInvalidArgument, one line as the scenario loader
// writes them: "<origin>: <json path>: <what is wrong>: got <value>,
// expected <what>", the path naming the table (`plan.ebc.t0.ranks[1]`).
Result<planner::PartitionedPlan> parse_plan(const std::string& text, const std::string& origin,
                                            const planner::Scenario& scenario,
                                            planner::SearchSpace& space,
                                            std::vector<std::string>* warnings = nullptr);

// parse_plan on the contents of the file at `path`, read as scenarios are
// (data/file_io.h: a regular file or a pipe, at most kMaxInputFileBytes). A
// file that cannot be read (missing, a directory, a device) is an io_error
// naming the path and the reason.
Result<planner::PartitionedPlan> read_plan_file(const std::string& path,
                                                const planner::Scenario& scenario,
                                                planner::SearchSpace& space,
                                                std::vector<std::string>* warnings = nullptr);

}  // namespace shardlab::data
