// shardlab optimize: search for a plan faster than TorchRec's by simulated
// iteration time (search/optimizer.h), write it like shardlab plan does, and
// say what it beats and what moved.

#include <fmt/format.h>

#include <atomic>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibration_option.h"
#include "cli_common.h"
#include "interrupt_guard.h"
#include "plan_source.h"
#include "run_recording.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/run_records.h"
#include "shardlab/planner/planner.h"
#include "shardlab/search/objective.h"
#include "shardlab/search/optimize_run.h"
#include "shardlab/search/optimizer.h"
#include "shardlab/search/problem.h"
#include "shardlab/search/report.h"

namespace shardlab::cli {
namespace {

struct OptimizeArgs {
  std::string torchrec_version;  // --torchrec-version; empty: the scenario's
  std::string scenario;
  std::string output;  // empty: stdout
  std::string format = "shardlab";
  double time_limit = search::OptimizeOptions{}.time_limit_s;
  uint64_t seed = 1;
  int64_t max_evaluations = 0;
  int max_moved_tables = -1;  // < 0: no cap
  std::string from_plan;
  std::string objective = "simulated";
  std::string calibration;
  int show_moves = 20;
  bool compact = false;
  bool quiet = false;
  StoreOptions store;

  std::string destination() const { return output.empty() ? std::string("-") : output; }
  int indent() const { return compact ? data::kCompactJson : data::kDefaultJsonIndent; }
};

constexpr char kInterruptNote[] =
    "shardlab optimize: Ctrl-C: stopping; the best plan so far is written (Ctrl-C again "
    "quits without it)\n";

int report_failure(const OptimizeArgs& args, const planner::Scenario& scenario,
                   const planner::PlannerResult* result, const Status& status) {
  return cli::report_failure(status, args.destination(), scenario.name, result, args.indent());
}

// A run of `kind` holding `result`'s plan, its estimates and `summary`.
data::NewRun plan_run(data::RunKind kind, const OptimizeArgs& args,
                      const planner::Scenario& scenario, const planner::PlannerResult& result,
                      std::vector<std::pair<std::string, data::SummaryValue>> summary) {
  data::NewRun run = new_run(kind, scenario, &result);
  run.scenario_json = scenario_text(args.scenario);
  if (!args.calibration.empty()) summary.emplace_back("calibration", args.calibration);
  run.summary_json = data::summary_json(summary);
  return run;
}

int record(RunRecorder& recorder, const OptimizeArgs& args, const planner::Scenario& scenario,
           const planner::PlannerResult& start, const planner::PlannerResult& best,
           const search::OptimizeSummary& rated, const search::OptimizeResult& r) {
  const search::PlanRating& start_rated = rated.start;
  const search::PlanRating& best_rated = rated.best;
  std::vector<std::pair<std::string, data::SummaryValue>> start_summary = {
      {"rating_ms", start_rated.torchrec_ms},
      {"perf_model", std::string("torchrec")},
      {"iteration_ms", start_rated.simulated_ms},
      {"tables", static_cast<int64_t>(scenario.tables.size())},
      {"world_size", static_cast<int64_t>(start.topology.world_size)},
      {"role", std::string("optimize start")}};
  if (!args.from_plan.empty()) start_summary.emplace_back("from_plan", args.from_plan);

  std::vector<std::pair<std::string, data::SummaryValue>> summary = {
      {"rating_ms", best_rated.torchrec_ms},
      {"iteration_ms", best_rated.simulated_ms},
      {"start_rating_ms", start_rated.torchrec_ms},
      {"start_iteration_ms", start_rated.simulated_ms},
      {"objective", args.objective},
      {"objective_ms", r.best_value},
      {"gain_pct", rated.gain_pct()},
      {"tables_moved", static_cast<int64_t>(r.moved.size())},
      {"method", r.method},
      {"stop", std::string(search::to_string(r.stop))},
      {"seed", static_cast<int64_t>(args.seed)},
      {"time_limit_s", args.time_limit},
      {"moves", r.moves},
      {"evaluations", r.evaluations},
      {"wall_ms", r.wall_seconds * 1e3}};
  if (rated.torchrec) {
    summary.emplace_back("torchrec_iteration_ms", rated.torchrec->simulated_ms);
    summary.emplace_back("torchrec_rating_ms", rated.torchrec->torchrec_ms);
  }
  if (args.max_evaluations > 0) summary.emplace_back("max_evaluations", args.max_evaluations);
  if (args.max_moved_tables >= 0)
    summary.emplace_back("max_moved_tables", static_cast<int64_t>(args.max_moved_tables));
  return recorder.record_derived(
      plan_run(data::RunKind::kPlan, args, scenario, start, std::move(start_summary)),
      plan_run(data::RunKind::kOptimize, args, scenario, best, std::move(summary)));
}

void print_summary(const OptimizeArgs& args, const planner::Scenario& scenario,
                   const search::Problem& problem, const search::OptimizeResult& r,
                   const search::OptimizeSummary& rated) {
  std::cerr << fmt::format("optimized {} ({} tables on {} ranks): {}, {}, objective {}, seed {}\n",
                           shown(scenario.name), scenario.tables.size(), problem.world_size(),
                           r.method, search::search_text(r), args.objective, args.seed);
  if (r.stop == search::StopReason::kCancelled && r.moves == 0) {
    std::cerr << "  Ctrl-C came before the search's first move: the plan written is the start "
                 "plan\n";
  }
  const search::PlanRating& base = rated.reference();
  const search::PlanRating& best = rated.best;
  const char* against = rated.torchrec ? "TorchRec's plan" : "the start plan";
  std::cerr << fmt::format("  simulated iteration: {:.6g} ms -> {:.6g} ms ({} vs {})\n",
                           base.simulated_ms, best.simulated_ms,
                           search::percent_text(base.simulated_ms, best.simulated_ms), against);
  std::cerr << fmt::format("  TorchRec rating:     {:.6g} ms -> {:.6g} ms ({} vs {})\n",
                           base.torchrec_ms, best.torchrec_ms,
                           search::percent_text(base.torchrec_ms, best.torchrec_ms), against);
  if (rated.torchrec && !args.from_plan.empty()) {
    std::cerr << fmt::format("  start plan ({}):     {:.6g} ms simulated, {:.6g} ms rating\n",
                             args.from_plan, rated.start.simulated_ms, rated.start.torchrec_ms);
  }
  std::cerr << fmt::format(
      "  tables moved: {} of {}{}\n", r.moved.size(), problem.num_tables(),
      r.moved.empty() ? ""
                      : " (from -> to), in the order that gains most first; each with the "
                        "search's estimate of the share of the gain once it and those above "
                        "it are applied");
  int shown = 0;
  for (const search::TableMove* m = r.moved.data(); m != r.moved.data() + r.moved.size(); ++m) {
    if (shown++ >= args.show_moves) {
      std::cerr << fmt::format("    ... and {} more (--show-moves N lists more)\n",
                               r.moved.size() - static_cast<size_t>(args.show_moves));
      break;
    }
    std::cerr << "    " << search::move_share_text(*m) << "  " << search::move_text(problem, *m)
              << '\n';
  }
  if (args.destination() != "-") std::cerr << "  -> " << args.destination() << '\n';
}

int run_optimize(const OptimizeArgs& args) {
  const bool distinct = VerbFiles()
                            .input(args.scenario, "the scenario")
                            .input(args.from_plan, "the plan file")
                            .input(args.calibration, "the calibration profile")
                            .store(args.store)
                            .output(args.destination(), "the plan output")
                            .distinct();
  if (!distinct) return kExitInvalid;
  const InterruptGuard guard(kInterruptNote);
  Result<planner::Scenario> scenario =
      load_scenario_or_report(args.scenario, args.destination(), args.torchrec_version);
  if (!scenario.is_ok()) return exit_status(scenario.status());
  Result<RunRecorder> recorder = RunRecorder::start(args.store, args.quiet);
  if (!recorder.is_ok()) return report_failure(args, *scenario, nullptr, recorder.status());
  if (Status st = check_fabric(*scenario); !st.is_ok())
    return report_failure(args, *scenario, nullptr, st);
  Result<CalibrationChoice> calibration = CalibrationChoice::load(args.calibration, &*scenario);
  if (!calibration.is_ok()) return report_failure(args, *scenario, nullptr, calibration.status());

  ProgressLine printer;
  search::OptimizeRequest request;
  request.objective = args.objective == "torchrec" ? search::ObjectiveKind::kTorchRec
                                                   : search::ObjectiveKind::kSimulated;
  request.seed = args.seed;
  request.time_limit_s = args.time_limit;
  request.max_evaluations = args.max_evaluations;
  request.max_moved_tables = args.max_moved_tables;
  request.cancel = InterruptGuard::flag();
  request.calibration = calibration->get();
  request.progress_interval_s = printer.interval();
  if (!args.quiet)
    request.on_progress = [&printer](const search::Progress& p) {
      printer.show("optimize: " + search::progress_text(p));
    };
  if (!args.from_plan.empty()) {
    // The search keeps every rank within capacity, so it starts from a plan
    // that fits: no --allow-over-capacity here.
    request.start_plan = [&](const planner::CostCalibration* c) {
      return read_and_rate_plan(*scenario, args.from_plan, nullptr, c);
    };
  }
  planner::PlannerResult failed;
  Result<std::unique_ptr<search::OptimizeRun>> ran =
      search::OptimizeRun::run(*scenario, request, &failed);
  printer.finish();
  if (!ran.is_ok()) {
    const bool planned = failed.search_space.has_value() || !failed.error.is_ok();
    return report_failure(args, *scenario, planned ? &failed : nullptr, ran.status());
  }
  const search::OptimizeRun& run = **ran;
  const search::Problem& problem = run.problem();
  const search::OptimizeResult& result = run.result();
  const search::OptimizeSummary& rated = run.summary();
  const planner::PlannerResult& start = run.start();
  const planner::PlannerResult& written = run.best();
  if (args.format == "torchrec") {
    if (Status buildable = data::torchrec_buildable(written); !buildable)
      return report_failure(args, *scenario, nullptr, buildable);
  }
  const std::string json = args.format == "torchrec"
                               ? data::plan_to_torchrec_json(*scenario, written, args.indent())
                               : data::plan_to_json(*scenario, written, args.indent());
  if (Status w = write_output(args.destination(), json); !w.is_ok()) {
    print_error(w.message());
    return exit_status(w);
  }
  if (!args.quiet) print_summary(args, *scenario, problem, result, rated);
  return record(*recorder, args, *scenario, start, written, rated, result);
}

}  // namespace

void add_optimize_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<OptimizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "optimize",
      "Search for a plan faster than TorchRec's, by simulated iteration time, in the same memory.\n"
      "Starts from TorchRec's plan (or --plan) and moves tables between sharding options\n"
      "(sharding type, compute kernel) and shards between ranks and hosts, keeping every rank\n"
      "within its HBM and DDR after the storage reservation and every table within the scenario's\n"
      "constraints. Each candidate is judged by a fast model of the iteration and the promising\n"
      "ones by a full simulation; the plan written is the best simulated one (docs/optimize.md).\n"
      "The plan goes to -o (stdout by default) in shardlab plan's formats, and re-rates with\n"
      "'shardlab plan --plan'. Progress and a summary (gain over TorchRec's plan by "
      "simulation\n"
      "and by TorchRec's rating, tables moved) go to stderr. Ctrl-C stops the search and writes\n"
      "the best plan so far. The start and the result are recorded as two runs in the run store;\n"
      "'shardlab runs diff ID' shows what changed.\n"
      "Same seed, same plan: the search's path depends only on the seed; the time limit (and\n"
      "Ctrl-C) only decide where on it it stops, so --max-evaluations with --time-limit 0 gives\n"
      "bit-identical plans on every run.\n"
      "Exit status: 0 optimized (also when stopped by the time limit or Ctrl-C), 2 invalid\n"
      "scenario, plan file or usage, 3 TorchRec's planner found no start plan.");
  add_scenario_argument(cmd, &args->scenario);
  add_output_option(cmd, &args->output, "the plan JSON (or the error JSON)", "stdout");
  cmd->add_option(
         "--format", args->format,
         "Plan file shape: 'shardlab' (docs/scenario-format.md plan) or 'torchrec' (a TorchRec "
         "ShardingPlan, see docs/torchrec-interop.md) (default: shardlab)")
      ->check(CLI::IsMember({"shardlab", "torchrec"}))
      ->type_name("FORMAT");
  cmd->add_option("--time-limit", args->time_limit,
                  "Stop after this many seconds of the whole run and keep the best plan so far "
                  "(the start plan is made within it: if TorchRec's planner has not finished by "
                  "then, nothing is written and the exit status is 2); 0: no limit (then stop "
                  "when converged or at --max-evaluations). Most of the gain "
                  "comes in the first seconds: docs/optimize.md has the gain at 1, 5, 15, 30 and "
                  "60 s on its benchmark (default: 30)")
      ->check(number_at_least(0))
      ->type_name("SECONDS");
  cmd->add_option("--max-evaluations", args->max_evaluations,
                  "Stop after this many full evaluations (simulations) of candidate plans; with "
                  "--time-limit 0 the result is bit-identical run to run (default: no limit)")
      ->check(number_at_least(0))
      ->type_name("N");
  cmd->add_option("--max-moved-tables", args->max_moved_tables,
                  "Move at most this many tables from the start plan (a team reviews and "
                  "deploys every moved table); the search skips moves past it (default: no cap)")
      ->check(number_at_least(0))
      ->type_name("N");
  cmd->add_option("--seed", args->seed, "Seed of the search's random choices (default: 1)")
      ->type_name("N");
  cmd->add_option("--plan", args->from_plan,
                  "Start from this plan file (either format) instead of TorchRec's plan; the "
                  "summary still compares with TorchRec's plan (default: TorchRec's plan)")
      ->type_name("FILE");
  add_old_spelling(cmd, "--from-plan", "--plan", &args->from_plan);
  cmd->add_option("--objective", args->objective,
                  "What to minimise: 'simulated' (the simulated steady-state iteration time, "
                  "docs/simulation.md) or 'torchrec' (TorchRec's rating: the slowest rank's summed "
                  "estimates, to compare) (default: simulated)")
      ->check(CLI::IsMember({"simulated", "torchrec"}))
      ->type_name("OBJECTIVE");
  cmd->add_option("--show-moves", args->show_moves,
                  "Tables moved to list in the summary (default: 20)")
      ->check(number_at_least(0))
      ->type_name("N");
  add_compact_flag(cmd, &args->compact);
  add_quiet_flag(cmd, &args->quiet, "progress, the summary and the recorded runs on stderr");
  add_store_options(cmd, &args->store);
  add_calibration_option(cmd, &args->calibration);
  add_torchrec_version_option(cmd, &args->torchrec_version);
  cmd->footer(example_footer(
      "  shardlab optimize dlrm.json -o fast.json\n"
      "  shardlab optimize dlrm.json --time-limit 60 --seed 7 -o fast.json\n"
      "  shardlab optimize dlrm.json --plan plan.json --format torchrec -o "
      "fast_torchrec.json\n"
      "  shardlab optimize dlrm.json --time-limit 0 --max-evaluations 500 -o fast.json -q\n"
      "  shardlab plan dlrm.json --plan fast.json --perf-model simulated   # re-rate it\n"
      "  shardlab simulate dlrm.json --plan fast.json --trace fast.trace.json\n"
      "  shardlab runs diff 12   # what the search changed (the optimize run's id)"));
  verbs.add(cmd, [args] { return run_optimize(*args); });
}

}  // namespace shardlab::cli
