// shardlab compare: the comparison of sim/compare.h (the one the workbench's
// Compare view shows), printed as a table and optionally written as JSON.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "calibration_option.h"
#include "cli_common.h"
#include "interrupt_guard.h"
#include "plan_source.h"
#include "run_recording.h"
#include "shardlab/data/compare_json.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/run_records.h"
#include "shardlab/planner/progress_text.h"
#include "shardlab/sim/compare.h"

namespace shardlab::cli {
namespace {

struct CompareArgs {
  std::string torchrec_version;  // --torchrec-version; empty: the scenario's
  bool each_version = false;     // --each-torchrec-version
  std::string scenario;
  std::string output;  // empty: no JSON
  std::string calibration;
  int iterations = sim::SimOptions{}.iterations;
  double time_limit = 0.0;  // --time-limit, seconds; 0: none
  bool compact = false;
  bool quiet = false;
  StoreOptions store;
  // The rows to compare (empty: all of each axis).
  std::vector<std::string> proposers, partitioners, perf_models;
};

// The run a row with a simulated plan records (kind simulate): the row's
// plan, its estimates and its numbers.
data::NewRun row_run(const CompareArgs& args, const planner::Scenario& scenario, int iterations,
                     const planner::PlannerResult& result, const sim::CompareRow& row) {
  data::NewRun run = new_run(data::RunKind::kSimulate, scenario, &result);
  const std::string proposer = sim::proposer_name(row.config);
  const std::string partitioner = sim::partitioner_name(row.config, scenario);
  const std::string perf_model(sim::to_string(row.config.rating));
  std::vector<std::pair<std::string, data::SummaryValue>> summary = {
      {"iteration_ms", row.iteration_ms.value_or(0.0)},
      {"iterations", static_cast<int64_t>(iterations)},
      {"rating_ms", row.torchrec_rating_ms.value_or(result.perf_rating)},
      {"compare", row.label},
      {"proposer", proposer},
      {"partitioner", partitioner},
      {"perf_model", perf_model},
      {"ranks", static_cast<int64_t>(row.ranks.size())},
      {"wall_ms", row.plan_seconds * 1e3}};
  if (!args.calibration.empty()) summary.emplace_back("calibration", args.calibration);
  run.summary_json = data::summary_json(summary);
  return run;
}

// Failure before any row runs: message to stderr, error JSON to -o.
int report_failure(const CompareArgs& args, const std::string& scenario_name, const Status& st) {
  return cli::report_failure(st, args.output, scenario_name, nullptr,
                             args.compact ? data::kCompactJson : data::kDefaultJsonIndent);
}

template <typename T>
std::string or_dash(const std::optional<T>& v, const char* spec) {
  return v.has_value() ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

std::string percent(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? fmt::format("{:+.1f}%", 100.0 * *v) : std::string("-");
}

// Why a row has no simulated plan, on one line (sim::failure_line; the JSON
// keeps the whole error), after its error type.
std::string failure_reason(const sim::CompareRow& r) {
  return data::error_type_name(r.status) + ": " + shown(sim::failure_line(r));
}

constexpr char kInterruptNote[] =
    "shardlab compare: Ctrl-C: stopping; the rows done so far are printed and written (Ctrl-C "
    "again quits without them)\n";

void print_table(std::ostream& out, const planner::Scenario& scenario, const sim::Comparison& c) {
  const std::string header = fmt::format(
      "{:>3}  {:<26}  {:<15}  {:<10}  {:<8}  {:<20}  {:>11}  {:>11}  {:>8}  {:>11}  {:>9}  {:>6}  "
      "{:>8}",
      "#", "proposer", "partitioner", "perf_model", "torchrec", "status", "rating_ms",
      "sim_iter_ms", "vs_win", "peak_hbm", "imbalance", "moved", "plan_s");
  out << header << '\n' << std::string(header.size(), '-') << '\n';
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const sim::CompareRow& r = c.rows[i];
    if (!r.applies) continue;  // listed below the table
    const std::string status =
        r.status.is_ok() ? std::string("ok") : data::error_type_name(r.status);
    const std::string peak =
        r.peak_hbm_bytes ? format_bytes(static_cast<double>(*r.peak_hbm_bytes)) : "-";
    const std::string moved =
        r.iteration_vs_winner ? std::to_string(r.moved_vs_winner.size()) : "-";
    out << fmt::format(
        "{:>3}  {:<26}  {:<15}  {:<10}  {:<8}  {:<20}  {:>11}  {:>11}  {:>8}  {:>11}  {:>9}  {:>6} "
        " {:>8.3f}{}\n",
        i + 1, sim::proposer_name(r.config), sim::partitioner_name(r.config, scenario),
        sim::to_string(r.config.rating), planner::to_string(r.torchrec_version), status,
        or_dash(r.torchrec_rating_ms, "{:.5g}"), or_dash(r.iteration_ms, "{:.5g}"),
        percent(r.iteration_vs_winner), peak, or_dash(r.imbalance, "{:.3f}"), moved, r.plan_seconds,
        static_cast<int>(i) == c.winner ? "  <- winner" : "");
  }
  if (c.cancelled) {
    out << fmt::format(
        "stopped by {} after {} of the chosen rows: the rows above are complete, "
        "the rest were not run\n",
        c.timed_out ? "the time limit" : "Ctrl-C", c.rows.size());
  }
  if (c.winner >= 0) {
    const sim::CompareRow& w = c.rows[static_cast<size_t>(c.winner)];
    out << fmt::format(
        "winner: #{} {} ({:.5g} ms simulated iteration; rating_ms is TorchRec's rating of each "
        "plan, "
        "vs_win and moved compare each row with the winner)\n",
        c.winner + 1, w.label, *w.iteration_ms);
  }
  // One line per distinct reason, with the rows it stopped or left out.
  std::vector<std::pair<std::string, std::vector<int64_t>>> reasons;
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const sim::CompareRow& r = c.rows[i];
    if (r.status.is_ok()) continue;
    const std::string reason =
        r.applies ? failure_reason(r)
                  : "left out, " + sim::proposer_name(r.config) +
                        " cannot apply to this scenario: " + shown(r.not_applicable);
    auto it = std::find_if(reasons.begin(), reasons.end(),
                           [&](const auto& x) { return x.first == reason; });
    if (it == reasons.end()) it = reasons.insert(reasons.end(), {reason, {}});
    it->second.push_back(static_cast<int64_t>(i) + 1);
  }
  for (const auto& [reason, rows] : reasons) {
    out << fmt::format("row{} #{}: {}\n", rows.size() == 1 ? "" : "s", format_id_list(rows),
                       reason);
  }
}

int run_compare(const CompareArgs& args) {
  const bool distinct = VerbFiles()
                            .input(args.scenario, "the scenario")
                            .input(args.calibration, "the calibration profile")
                            .store(args.store)
                            .output(args.output, "the comparison output")
                            .distinct();
  if (!distinct) return kExitInvalid;
  const InterruptGuard guard(kInterruptNote);
  Result<planner::Scenario> scenario =
      load_scenario_or_report(args.scenario, args.output, args.torchrec_version);
  if (!scenario.is_ok()) return exit_status(scenario.status());
  Result<RunRecorder> recorder = RunRecorder::start(args.store, args.quiet);
  if (!recorder.is_ok()) return report_failure(args, scenario->name, recorder.status());
  // Half the rows plan with the simulator: refuse an unusable fabric up front.
  if (Status st = check_fabric(*scenario); !st.is_ok())
    return report_failure(args, scenario->name, st);
  Result<CalibrationChoice> calibration = CalibrationChoice::load(args.calibration, &*scenario);
  if (!calibration.is_ok()) return report_failure(args, scenario->name, calibration.status());
  Result<std::vector<sim::CompareConfig>> selected = sim::select_rows(
      sim::default_compare_grid(), *scenario, args.proposers, args.partitioners, args.perf_models);
  if (!selected.is_ok()) return report_failure(args, scenario->name, selected.status());
  const std::vector<sim::CompareConfig> grid =
      args.each_version ? sim::each_torchrec_version(*selected) : *selected;
  sim::CompareOptions options{
      .sim = sim::SimOptions{.iterations = args.iterations, .record_phases = false},
      .calibration = calibration->get(),
      .cancel = InterruptGuard::flag(),
      .time_limit_s = args.time_limit};
  // Each row's start on a line; within a long row, its planner's progress.
  ProgressLine within_row(2.0);
  double row_started = 0.0;
  if (!args.quiet) {
    options.progress = [&](const sim::CompareProgress& p) {
      if (p.stage != sim::CompareProgress::Stage::kPlanning) return;
      if (p.planner.num_proposers == 0) {
        within_row.finish();
        row_started = within_row.elapsed();
        std::cerr << fmt::format("[{}/{}] {}\n", p.row + 1, p.rows,
                                 sim::label(grid[static_cast<size_t>(p.row)], *scenario));
        return;
      }
      within_row.show(fmt::format(
          "[{}/{}] {}", p.row + 1, p.rows,
          planner::progress_text(p.planner, *scenario, within_row.elapsed() - row_started)));
    };
  }
  std::vector<data::NewRun> runs;
  if (!recording_disabled(args.store)) {
    options.row_planned = [&](int, const planner::PlannerResult& result,
                              const sim::CompareRow& row) {
      runs.push_back(row_run(args, *scenario, args.iterations, result, row));
    };
  }
  const sim::Comparison comparison = sim::compare_configurations(*scenario, grid, options);
  within_row.finish();

  // stdout may carry the JSON ("-o -"); the table then goes to stderr.
  std::ostream& table_out = args.output == "-" ? std::cerr : std::cout;
  print_table(table_out, *scenario, comparison);
  table_out.flush();
  if (!args.output.empty()) {
    if (Status w = write_output(args.output,
                                data::comparison_to_json(*scenario, comparison, args.compact));
        !w.is_ok()) {
      print_error(w.message());
      return exit_status(w);
    }
  }
  const bool any_ok = std::any_of(comparison.rows.begin(), comparison.rows.end(),
                                  [](const auto& r) { return r.status.is_ok(); });
  if (!any_ok) {
    print_error("no configuration produced a simulated plan");
    return kExitPlanner;
  }
  if (!runs.empty()) {
    const std::string text = scenario_text(args.scenario);
    for (data::NewRun& run : runs) run.scenario_json = text;
  }
  return recorder->record(runs);
}

}  // namespace

void add_compare_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare planner configurations on one scenario, by estimate and by simulation.\n"
      "Plans the scenario as configured (its proposers and partitioner, TorchRec's perf model: "
      "what\n"
      "'shardlab plan' gives), then with each proposer (greedy, uniform, grid_search,\n"
      "embedding_offload_scaleup; TorchRec's default arguments) x partitioner (greedy_perf,\n"
      "memory_balanced) x perf model (torchrec, simulated); simulates each chosen plan and prints\n"
      "one row each, measured the same way whatever chose the plan: TorchRec's rating of the "
      "plan,\n"
      "its simulated iteration time and its difference to the winner (the lowest simulated time),\n"
      "the peak HBM a rank's shards use, the imbalance (max / mean of per-rank TorchRec perf), "
      "the\n"
      "tables placed differently from the winner, the planning time and the TorchRec model that\n"
      "planned (--torchrec-version; --each-torchrec-version plans every row with each model, side\n"
      "by side). The JSON adds per-rank TorchRec perf, shard HBM and simulated busy time. The\n"
      "workbench's Compare view runs the same comparison (docs/gui.md). Rows whose planning fails\n"
      "show the error type. Each row with a simulated plan is recorded in the run store as a\n"
      "simulate run (--db; 'shardlab runs --help'), so two configurations' plans can be compared\n"
      "with 'shardlab runs diff'.\n"
      "Exit status: 0 at least one row has a simulated plan, 2 invalid scenario, usage or a file\n"
      "that cannot be read or written, 3 no row has one.");
  add_scenario_argument(cmd, &args->scenario);
  add_output_option(cmd, &args->output, "the rows as JSON (or the error JSON) besides the table",
                    "none");
  cmd->add_option("--proposers", args->proposers,
                  "Compare only the rows of these proposers, comma-separated: scenario (the "
                  "scenario as configured), greedy, uniform, grid_search, "
                  "embedding_offload_scaleup (default: all)")
      ->delimiter(',')
      ->type_name("LIST");
  cmd->add_option("--partitioners", args->partitioners,
                  "Only these partitioners: greedy_perf, memory_balanced (default: all)")
      ->delimiter(',')
      ->type_name("LIST");
  cmd->add_option("--perf-models", args->perf_models,
                  "Only these rating models: torchrec, simulated (default: all)")
      ->delimiter(',')
      ->type_name("LIST");
  cmd->add_option("--iterations", args->iterations,
                  "Iterations to simulate per chosen plan (default: 4)")
      ->check(number_in_range(1, 100000))
      ->type_name("N");
  cmd->add_option("--time-limit", args->time_limit,
                  "Stop after SECONDS for the whole comparison, keeping the rows done (the one "
                  "running is dropped); Ctrl-C stops the same way (default: 0, no limit)")
      ->check(number_in_range(0.0, 1e9))
      ->type_name("SECONDS");
  add_compact_flag(cmd, &args->compact);
  add_quiet_flag(cmd, &args->quiet, "progress and the recorded runs on stderr");
  add_store_options(cmd, &args->store);
  add_calibration_option(cmd, &args->calibration);
  CLI::Option* version = add_torchrec_version_option(cmd, &args->torchrec_version);
  cmd->add_flag(
         "--each-torchrec-version", args->each_version,
         "Plan every configuration once with each TorchRec model (2024-02, 2026-08), the two\n"
         "rows of a configuration next to each other; not with --torchrec-version (default: off)")
      ->excludes(version);
  cmd->footer(
      example_footer("  shardlab compare dlrm.json\n"
                     "  shardlab compare dlrm.json -o compare.json --iterations 2 -q --no-record\n"
                     "  shardlab compare dlrm.json --calibration h100.json\n"
                     "  shardlab compare dlrm.json --each-torchrec-version -q"));
  verbs.add(cmd, [args] { return run_compare(*args); });
}

}  // namespace shardlab::cli
