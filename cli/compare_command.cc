// shardlab compare: the comparison of sim/compare.h (the one the workbench's
// Compare view shows), printed as a table and optionally written as JSON.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "calibration_option.h"
#include "cli_common.h"
#include "plan_source.h"
#include "shardlab/data/compare_json.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/sim/compare.h"

namespace shardlab::cli {
namespace {

struct CompareArgs {
  std::string scenario;
  std::string output;  // empty: no JSON
  std::string calibration;
  int iterations = sim::SimOptions{}.iterations;
  bool compact = false;
  bool quiet = false;
};

template <typename T>
std::string or_dash(const std::optional<T>& v, const char* spec) {
  return v.has_value() ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

std::string percent(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? fmt::format("{:+.1f}%", 100.0 * *v) : std::string("-");
}

void print_table(std::ostream& out, const planner::Scenario& scenario, const sim::Comparison& c) {
  const std::string header =
      fmt::format("{:>3}  {:<26}  {:<15}  {:<10}  {:<20}  {:>11}  {:>11}  {:>8}  {:>11}  {:>9}  {:>6}  {:>8}", "#",
                  "proposer", "partitioner", "perf_model", "status", "rating_ms", "sim_iter_ms", "vs_win",
                  "peak_hbm", "imbalance", "moved", "plan_s");
  out << header << '\n' << std::string(header.size(), '-') << '\n';
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const sim::CompareRow& r = c.rows[i];
    const std::string status = r.status.is_ok() ? std::string("ok") : data::error_type_name(r.status);
    const std::string peak = r.peak_hbm_bytes ? format_bytes(static_cast<double>(*r.peak_hbm_bytes)) : "-";
    const std::string moved = r.iteration_vs_winner ? std::to_string(r.moved_vs_winner.size()) : "-";
    out << fmt::format("{:>3}  {:<26}  {:<15}  {:<10}  {:<20}  {:>11}  {:>11}  {:>8}  {:>11}  {:>9}  {:>6}  {:>8.3f}{}\n",
                       i + 1, sim::proposer_name(r.config), sim::partitioner_name(r.config, scenario),
                       sim::to_string(r.config.rating), status, or_dash(r.torchrec_rating_ms, "{:.5g}"),
                       or_dash(r.iteration_ms, "{:.5g}"), percent(r.iteration_vs_winner), peak,
                       or_dash(r.imbalance, "{:.3f}"), moved, r.plan_seconds,
                       static_cast<int>(i) == c.winner ? "  <- winner" : "");
  }
  if (c.winner >= 0) {
    const sim::CompareRow& w = c.rows[static_cast<size_t>(c.winner)];
    out << fmt::format("winner: #{} {} ({:.5g} ms simulated iteration; rating_ms is TorchRec's rating of each plan, "
                       "vs_win and moved compare each row with the winner)\n",
                       c.winner + 1, w.label, *w.iteration_ms);
  }
}

int run_compare(const CompareArgs& args) {
  int code = kExitOk;
  std::optional<planner::Scenario> scenario = load_scenario_or_report(args.scenario, args.output, &code);
  if (!scenario) return code;
  // Half the rows plan with the simulator: refuse an unusable fabric up front.
  if (Status st = check_fabric(*scenario); !st.is_ok()) {
    print_error(st.message());
    if (!args.output.empty()) {
      const int indent = args.compact ? data::kCompactJson : data::kDefaultJsonIndent;
      if (Status w = write_output(args.output, data::error_to_json(scenario->name, st, nullptr, indent)); !w.is_ok()) {
        print_error(w.message());
      }
    }
    return exit_status(st);
  }

  Result<CalibrationChoice> calibration = CalibrationChoice::load(args.calibration);
  if (!calibration.is_ok()) {
    print_error(calibration.status().message());
    return exit_status(calibration.status());
  }
  const std::vector<sim::CompareConfig> grid = sim::default_compare_grid();
  sim::CompareOptions options{.sim = sim::SimOptions{.iterations = args.iterations, .record_phases = false},
                              .calibration = calibration->get()};
  if (!args.quiet) {
    options.progress = [&](const sim::CompareProgress& p) {
      // The row's start, not the planner's reports within it.
      if (p.stage != sim::CompareProgress::Stage::kPlanning || p.planner.num_proposers != 0) return;
      std::cerr << fmt::format("[{}/{}] {}\n", p.row + 1, p.rows,
                               sim::label(grid[static_cast<size_t>(p.row)], *scenario));
    };
  }
  const sim::Comparison comparison = sim::compare_configurations(*scenario, grid, options);

  // stdout may carry the JSON ("-o -"); the table then goes to stderr.
  std::ostream& table_out = args.output == "-" ? std::cerr : std::cout;
  print_table(table_out, *scenario, comparison);
  table_out.flush();
  if (!args.output.empty()) {
    if (Status w = write_output(args.output, data::comparison_to_json(*scenario, comparison, args.compact));
        !w.is_ok()) {
      print_error(w.message());
      return exit_status(w);
    }
  }
  const bool any_ok =
      std::any_of(comparison.rows.begin(), comparison.rows.end(), [](const auto& r) { return r.status.is_ok(); });
  if (!any_ok) {
    print_error("no configuration produced a simulated plan");
    return kExitPlanner;
  }
  return kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare planner configurations on one scenario, by estimate and by simulation.\n"
      "Plans the scenario as configured (its proposers and partitioner, TorchRec's perf model: what\n"
      "'shardlab plan' gives), then with each proposer (greedy, uniform, grid_search,\n"
      "embedding_offload_scaleup; TorchRec's default arguments) x partitioner (greedy_perf,\n"
      "memory_balanced) x perf model (torchrec, simulated); simulates each chosen plan and prints\n"
      "one row each, measured the same way whatever chose the plan: TorchRec's rating of the plan,\n"
      "its simulated iteration time and its difference to the winner (the lowest simulated time),\n"
      "the peak HBM a rank's shards use, the imbalance (max / mean of per-rank TorchRec perf), the\n"
      "tables placed differently from the winner, and the planning time. The JSON adds per-rank\n"
      "TorchRec perf, shard HBM and simulated busy time. The workbench's Compare view runs the same\n"
      "comparison (docs/gui.md). Rows whose planning fails show the error type. Exit status: 0 at\n"
      "least one row has a simulated plan, 2 invalid scenario or usage, 3 no row has one.");
  cmd->add_option("scenario", args->scenario, "Scenario file (JSON, scenario.md)")->required();
  cmd->add_option("-o,--output", args->output,
                  "Also write the rows as JSON to FILE, atomically via FILE.tmp and a rename; '-' is stdout "
                  "(default: none)")
      ->type_name("FILE");
  cmd->add_option("--iterations", args->iterations,
                  "Iterations to simulate per chosen plan (default: 4)")
      ->check(CLI::Range(1, 100000))
      ->type_name("N");
  add_calibration_option(cmd, &args->calibration);
  cmd->add_flag("--compact", args->compact, "Write the JSON on one line (default: off)");
  cmd->add_flag("-q,--quiet", args->quiet, "Do not print progress on stderr (default: off)");
  cmd->footer(example_footer(
      "  shardlab compare dlrm.json\n"
      "  shardlab compare dlrm.json -o compare.json --iterations 2 -q"));
  cmd->callback([args, exit_code]() { *exit_code = run_compare(*args); });
}

}  // namespace shardlab::cli
