// shardlab plan: plan a scenario (or re-rate a plan made elsewhere) and write
// the plan JSON, the stats table and a one-line summary.

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli_common.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/stats.h"

namespace shardlab::cli {
namespace {

struct PlanArgs {
  std::string scenario;
  std::string output;              // empty: see json_destination()
  std::string format = "shardlab"; // or "torchrec"
  std::string from_plan;           // empty: plan; else re-rate this plan file
  bool stats = false;
  bool compact = false;
  bool quiet = false;

  // Where the plan (or error) JSON goes: -o FILE, else stdout unless --stats
  // took stdout, else nowhere.
  std::string json_destination() const {
    if (!output.empty()) return output;
    return stats ? std::string() : std::string("-");
  }
  int indent() const { return compact ? data::kCompactJson : data::kDefaultJsonIndent; }
};

std::string destination_label(const std::string& dest) {
  return dest == "-" ? std::string("stdout") : dest;
}

void print_stats(const planner::Scenario& scenario, const planner::PlannerResult& result) {
  for (const std::string& line : planner::format_stats(scenario, result)) std::cout << line << '\n';
  std::cout.flush();
}

// Reports a failed run: message to stderr, error JSON to the destination,
// stats (TorchRec prints them on planner failures too) when asked.
int report_failure(const PlanArgs& args, const planner::Scenario& scenario,
                   const planner::PlannerResult* result, const Status& status) {
  print_error(status.message());
  if (args.stats && result != nullptr && result->search_space.has_value() &&
      status.code() == StatusCode::kPlanner) {
    print_stats(scenario, *result);
  }
  const std::string dest = args.json_destination();
  if (!dest.empty()) {
    const std::string json = data::error_to_json(scenario.name, status, result, args.indent());
    if (Status w = write_output(dest, json); !w.is_ok()) print_error(w.message());
  }
  return exit_status(status);
}

// Writes the plan JSON and the stats; returns the exit status.
int report_success(const PlanArgs& args, const planner::Scenario& scenario,
                   const planner::PlannerResult& result) {
  if (args.stats) print_stats(scenario, result);
  const std::string dest = args.json_destination();
  if (!dest.empty()) {
    const std::string json = args.format == "torchrec"
                                 ? data::plan_to_torchrec_json(scenario, result, args.indent())
                                 : data::plan_to_json(scenario, result, args.indent());
    if (Status w = write_output(dest, json); !w.is_ok()) {
      print_error(w.message());
      return exit_status(w);
    }
  }
  return kExitOk;
}

std::string summary_target(const PlanArgs& args) {
  const std::string dest = args.json_destination();
  return dest.empty() ? std::string() : " -> " + destination_label(dest);
}

int run_plan(const PlanArgs& args) {
  int code = kExitOk;
  std::optional<planner::Scenario> scenario =
      load_scenario_or_report(args.scenario, args.json_destination(), &code);
  if (!scenario) return code;

  planner::PlannerResult result = planner::plan(*scenario);
  if (!result.ok()) {
    Status status = result.error.is_ok() ? Status::internal("the planner returned no plan") : result.error;
    return report_failure(args, *scenario, &result, status);
  }
  code = report_success(args, *scenario, result);
  if (code == kExitOk && !args.quiet) {
    std::cerr << fmt::format("planned {} tables on {} ranks in {:.1f} ms: rating {:.6g} ms ({} proposals, {} plans){}\n",
                             scenario->tables.size(), result.topology.world_size, result.wall_seconds * 1e3,
                             result.perf_rating, result.num_proposals, result.num_plans, summary_target(args));
  }
  return code;
}

// Warns about ranks whose shards exceed the storage left after reservation:
// a plan made elsewhere may not fit this scenario's cluster.
void warn_over_capacity(const planner::PlannerResult& r) {
  if (!r.reserved.has_value() || !r.best.has_value() || !r.search_space.has_value()) return;
  const planner::SearchSpace& space = *r.search_space;
  const planner::PartitionedPlan& plan = *r.best;
  std::vector<planner::Storage> used(r.reserved->devices.size());
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const planner::ShardingOption& opt = space.options[static_cast<size_t>(plan.proposal[i])];
    for (int s = 0; s < opt.num_shards(); ++s) {
      const int rank = plan.ranks[static_cast<size_t>(plan.first_shard[i] + s)];
      if (rank >= 0 && static_cast<size_t>(rank) < used.size()) {
        used[static_cast<size_t>(rank)] += opt.shards[static_cast<size_t>(s)].storage;
      }
    }
  }
  for (size_t r2 = 0; r2 < used.size(); ++r2) {
    const planner::Storage& cap = r.reserved->devices[r2];
    if (!used[r2].fits_in(cap)) {
      print_warning(fmt::format("rank {} needs hbm {} / ddr {} bytes but has hbm {} / ddr {} after reservation",
                                r2, used[r2].hbm, used[r2].ddr, cap.hbm, cap.ddr));
    }
  }
}

int run_from_plan(const PlanArgs& args) {
  int code = kExitOk;
  std::optional<planner::Scenario> scenario =
      load_scenario_or_report(args.scenario, args.json_destination(), &code);
  if (!scenario) return code;

  const auto start = std::chrono::steady_clock::now();
  planner::PlannerResult base = planner::plan(*scenario, planner::PlannerOptions{.enumerate_only = true});
  if (!base.search_space.has_value()) {
    Status status = base.error.is_ok() ? Status::internal("enumeration returned no search space") : base.error;
    return report_failure(args, *scenario, &base, status);
  }
  Result<planner::PartitionedPlan> read = data::read_plan_file(args.from_plan, *scenario, *base.search_space);
  if (!read.is_ok()) return report_failure(args, *scenario, nullptr, read.status());

  planner::PlannerResult rated;
  rated.topology = std::move(base.topology);
  rated.reserved = std::move(base.reserved);
  rated.search_space = std::move(base.search_space);
  rated.best = std::move(read).value();
  rated.num_proposals = 0;
  rated.num_plans = 0;
  planner::rate_plan(*rated.search_space, *rated.best, rated.topology.world_size, &rated.device_perf_total,
                     &rated.perf_rating);
  rated.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  warn_over_capacity(rated);
  code = report_success(args, *scenario, rated);
  if (code == kExitOk && !args.quiet) {
    std::cerr << fmt::format("rated {} ({} tables on {} ranks) in {:.1f} ms: rating {:.6g} ms{}\n", args.from_plan,
                             scenario->tables.size(), rated.topology.world_size, rated.wall_seconds * 1e3,
                             rated.perf_rating, summary_target(args));
  }
  return code;
}

}  // namespace

void add_plan_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Plan the sharding of a scenario's tables as TorchRec does, or re-rate a given plan.\n"
      "Runs TorchRec's EmbeddingShardingPlanner algorithm (storage reservation, enumeration,\n"
      "proposers, partitioner) and keeps the best plan. The plan JSON (scenario.md \"Plan (output)\")\n"
      "goes to -o FILE, or to stdout when neither -o nor --stats is given; with --stats the stats\n"
      "table goes to stdout and the JSON only to -o. A one-line summary goes to stderr.\n"
      "Exit status: 0 planned, 2 invalid scenario or usage, 3 no plan found; on 2 and 3 the JSON\n"
      "output is {\"scenario\", \"error\": {\"type\", \"message\"}, ...} and no partial file is left.");
  cmd->add_option("scenario", args->scenario, "Scenario file (JSON, scenario.md)")->required();
  cmd->add_option("-o,--output", args->output,
                  "Write the plan JSON (or the error JSON) to FILE, atomically via FILE.tmp and a rename; "
                  "'-' is stdout (default: stdout unless --stats)")
      ->type_name("FILE");
  cmd->add_flag("--stats", args->stats,
                "Print TorchRec's stats table to stdout; the JSON is then written only with -o (default: off)");
  cmd->add_option("--format", args->format,
                  "Plan file shape: 'shardlab' (scenario.md plan) or 'torchrec' (a TorchRec ShardingPlan, "
                  "see docs/torchrec-interop.md) (default: shardlab)")
      ->check(CLI::IsMember({"shardlab", "torchrec"}))
      ->type_name("FORMAT");
  cmd->add_option("--from-plan", args->from_plan,
                  "Do not plan: read this plan file (either format) and re-rate it against SCENARIO "
                  "(default: none)")
      ->type_name("FILE");
  cmd->add_flag("--compact", args->compact, "Write JSON on one line instead of indented (default: off)");
  cmd->add_flag("-q,--quiet", args->quiet, "Do not print the summary line on stderr (default: off)");
  cmd->footer(example_footer(
      "  shardlab plan dlrm.json -o plan.json\n"
      "  shardlab plan dlrm.json --stats\n"
      "  shardlab plan dlrm.json --format torchrec -o torchrec_plan.json\n"
      "  shardlab plan dlrm.json --from-plan torchrec_plan.json --stats"));
  cmd->callback([args, exit_code]() {
    *exit_code = args->from_plan.empty() ? run_plan(*args) : run_from_plan(*args);
  });
}

}  // namespace shardlab::cli
