// shardlab compare: plan one scenario with every proposer x partitioner x perf
// model, simulate each chosen plan, and print the results side by side.

#include <algorithm>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_common.h"
#include "plan_source.h"
#include "shardlab/data/compare_json.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/proposal_log.h"
#include "shardlab/sim/simulated_perf_model.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::cli {
namespace {

struct CompareArgs {
  std::string scenario;
  std::string output;  // empty: no JSON
  int iterations = sim::SimOptions{}.iterations;
  bool compact = false;
  bool quiet = false;
};

struct ProposerChoice {
  const char* name;
  planner::ProposerKind kind;
};
struct PartitionerChoice {
  const char* name;
  planner::PartitionerKind kind;
};

// The grid, in the order rows are run and printed.
constexpr ProposerChoice kProposers[] = {
    {"greedy", planner::ProposerKind::kGreedy},
    {"uniform", planner::ProposerKind::kUniform},
    {"grid_search", planner::ProposerKind::kGridSearch},
    {"embedding_offload_scaleup", planner::ProposerKind::kEmbeddingOffloadScaleup},
};
constexpr PartitionerChoice kPartitioners[] = {{"greedy_perf", planner::PartitionerKind::kGreedyPerf},
                                               {"memory_balanced", planner::PartitionerKind::kMemoryBalanced}};
constexpr const char* kPerfModels[] = {"torchrec", "simulated"};

// The scenario with one proposer (TorchRec's default arguments) and one
// partitioner kind; the partitioner's other settings stay as the file gives them.
planner::Scenario configured(const planner::Scenario& base, const ProposerChoice& proposer,
                             const PartitionerChoice& partitioner) {
  planner::Scenario s = base;
  s.planner.proposers = {planner::ProposerSpec{.kind = proposer.kind}};
  s.planner.partitioner.kind = partitioner.kind;
  return s;
}

// Fills the plan columns of `row` from a successful planning run.
void describe_plan(const planner::PlannerResult& result, data::ComparisonRow& row) {
  const planner::SearchSpace& space = *result.search_space;
  const int world_size = result.topology.world_size;
  // TorchRec's rating, whichever model chose the plan, so rows compare.
  std::vector<double> device_perf;
  double rating = 0.0;
  planner::rate_plan(space, *result.best, world_size, &device_perf, &rating);
  row.perf_rating_ms = rating;
  int64_t peak = 0;
  for (const planner::Storage& s : planner::shard_storage_per_rank(space, *result.best, world_size))
    peak = std::max(peak, s.hbm);
  row.peak_hbm_bytes = peak;
  if (!device_perf.empty()) {
    const double mean =
        std::accumulate(device_perf.begin(), device_perf.end(), 0.0) / static_cast<double>(device_perf.size());
    const double max = *std::max_element(device_perf.begin(), device_perf.end());
    if (mean > 0.0) row.imbalance = max / mean;
  }
}

data::ComparisonRow run_row(const planner::Scenario& base, const ProposerChoice& proposer,
                            const PartitionerChoice& partitioner, const char* perf_model,
                            const sim::SimOptions& sim_options) {
  data::ComparisonRow row{.proposer = proposer.name, .partitioner = partitioner.name, .perf_model = perf_model};
  const planner::Scenario scenario = configured(base, proposer, partitioner);
  std::unique_ptr<sim::SimulatedPerfModel> model;
  if (std::string_view(perf_model) == "simulated") model = std::make_unique<sim::SimulatedPerfModel>(scenario);

  const planner::PlannerResult result = planner::plan(scenario, planner::PlannerOptions{.perf_model = model.get()});
  row.num_proposals = result.num_proposals;
  row.num_plans = result.num_plans;
  row.simulations = model ? model->simulations() : 0;
  row.plan_seconds = result.wall_seconds;
  if (!result.ok()) {
    row.status = failure_of(result);
    return row;
  }
  describe_plan(result, row);
  Result<sim::SimResult> simulated = sim::simulate(scenario, *result.search_space, *result.best, sim_options);
  if (!simulated.is_ok()) {
    row.status = simulated.status();
    return row;
  }
  row.iteration_ms = simulated->iteration_ms;
  return row;
}

template <typename T>
std::string or_dash(const std::optional<T>& v, const char* spec) {
  return v.has_value() ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
}

void print_table(std::ostream& out, const std::vector<data::ComparisonRow>& rows) {
  const std::string header =
      fmt::format("{:<26}  {:<15}  {:<10}  {:<20}  {:>11}  {:>11}  {:>11}  {:>9}  {:>8}", "proposer", "partitioner",
                  "perf_model", "status", "rating_ms", "sim_iter_ms", "peak_hbm", "imbalance", "plan_s");
  out << header << '\n' << std::string(header.size(), '-') << '\n';
  for (const data::ComparisonRow& r : rows) {
    const std::string status = r.status.is_ok() ? std::string("ok") : data::error_type_name(r.status);
    const std::string peak = r.peak_hbm_bytes ? format_bytes(static_cast<double>(*r.peak_hbm_bytes)) : "-";
    out << fmt::format("{:<26}  {:<15}  {:<10}  {:<20}  {:>11}  {:>11}  {:>11}  {:>9}  {:>8.3f}\n", r.proposer,
                       r.partitioner, r.perf_model, status, or_dash(r.perf_rating_ms, "{:.5g}"),
                       or_dash(r.iteration_ms, "{:.5g}"), peak, or_dash(r.imbalance, "{:.3f}"), r.plan_seconds);
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

  const sim::SimOptions sim_options{.iterations = args.iterations, .record_phases = false};
  const size_t total = std::size(kProposers) * std::size(kPartitioners) * std::size(kPerfModels);
  std::vector<data::ComparisonRow> rows;
  rows.reserve(total);
  for (const ProposerChoice& proposer : kProposers) {
    for (const PartitionerChoice& partitioner : kPartitioners) {
      for (const char* perf_model : kPerfModels) {
        if (!args.quiet) {
          std::cerr << fmt::format("[{}/{}] {} + {} + {} perf model\n", rows.size() + 1, total, proposer.name,
                                   partitioner.name, perf_model);
        }
        rows.push_back(run_row(*scenario, proposer, partitioner, perf_model, sim_options));
      }
    }
  }

  // stdout may carry the JSON ("-o -"); the table then goes to stderr.
  std::ostream& table_out = args.output == "-" ? std::cerr : std::cout;
  print_table(table_out, rows);
  table_out.flush();
  if (!args.output.empty()) {
    if (Status w = write_output(args.output, data::comparison_to_json(scenario->name, args.iterations, rows,
                                                                     args.compact));
        !w.is_ok()) {
      print_error(w.message());
      return exit_status(w);
    }
  }
  const bool any_ok = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.status.is_ok(); });
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
      "Plans the scenario with each proposer (greedy, uniform, grid_search,\n"
      "embedding_offload_scaleup; TorchRec's default arguments) x partitioner (greedy_perf,\n"
      "memory_balanced) x perf model (torchrec, simulated), simulates each chosen plan, and prints\n"
      "one row each: TorchRec's rating of the plan, its simulated iteration time, the peak HBM a\n"
      "rank's shards use, the imbalance (max / mean of per-rank TorchRec perf) and the planning\n"
      "time. Rows whose planning fails show the error type. Exit status: 0 at least one row has a\n"
      "simulated plan, 2 invalid scenario or usage, 3 no row has one.");
  cmd->add_option("scenario", args->scenario, "Scenario file (JSON, scenario.md)")->required();
  cmd->add_option("-o,--output", args->output,
                  "Also write the rows as JSON to FILE, atomically via FILE.tmp and a rename; '-' is stdout "
                  "(default: none)")
      ->type_name("FILE");
  cmd->add_option("--iterations", args->iterations,
                  "Iterations to simulate per chosen plan (default: 4)")
      ->check(CLI::Range(1, 100000))
      ->type_name("N");
  cmd->add_flag("--compact", args->compact, "Write the JSON on one line (default: off)");
  cmd->add_flag("-q,--quiet", args->quiet, "Do not print progress on stderr (default: off)");
  cmd->footer(example_footer(
      "  shardlab compare dlrm.json\n"
      "  shardlab compare dlrm.json -o compare.json --iterations 2 -q"));
  cmd->callback([args, exit_code]() { *exit_code = run_compare(*args); });
}

}  // namespace shardlab::cli
