// shardlab plan: plan a scenario (or re-rate a plan made elsewhere) and write
// the plan JSON, the stats table and a one-line summary.

#include <fmt/format.h>
#include <unistd.h>

#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibration_option.h"
#include "cli_common.h"
#include "plan_source.h"
#include "run_recording.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/run_records.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/progress_text.h"
#include "shardlab/planner/proposal_log.h"
#include "shardlab/planner/stats.h"
#include "shardlab/sim/simulated_perf_model.h"

namespace shardlab::cli {
namespace {

struct PlanArgs {
  std::string torchrec_version;  // --torchrec-version; empty: the scenario's
  bool allow_over_capacity = false;
  std::string scenario;
  std::string output;                   // empty: see json_destination()
  std::string format = "shardlab";      // or "torchrec"
  std::string from_plan;                // empty: plan; else re-rate this plan file
  std::string perf_model = "torchrec";  // or "simulated"
  bool stats = false;
  bool compact = false;
  bool quiet = false;
  StoreOptions store;
  std::string calibration;  // --calibration PROFILE; empty: TorchRec's constants

  // Where the plan (or error) JSON goes: -o FILE, else stdout unless --stats
  // took stdout, else nowhere.
  // Without -o or --stats, a terminal gets the plan as a table
  // (data::plan_to_text) and files and pipes get its JSON.
  bool stdout_is_terminal = false;
  std::string json_destination() const {
    if (!output.empty()) return output;
    return stats || stdout_is_terminal ? std::string() : std::string("-");
  }
  bool prints_table() const { return output.empty() && !stats && stdout_is_terminal; }
  int indent() const { return compact ? data::kCompactJson : data::kDefaultJsonIndent; }
};

std::string destination_label(const std::string& dest) {
  return dest == "-" ? std::string("stdout") : shown(dest);
}

// TorchRec's stats table, line for line from its first (TorchRec's own tests
// read that line), then a line naming the TorchRec model that planned and
// what rated the shards when it is not TorchRec's constants (`rated_with`,
// CalibrationChoice::note). On stdout, or on stderr when the plan JSON goes
// to stdout (-o -).
void print_stats(const PlanArgs& args, const planner::Scenario& scenario,
                 const planner::PlannerResult& result, const std::string& rated_with) {
  const std::vector<std::string> lines = planner::format_stats(scenario, result);
  if (lines.empty()) return;
  std::ostream& out = args.json_destination() == "-" ? std::cerr : std::cout;
  for (const std::string& line : lines) out << line << '\n';
  out << "Planned as TorchRec " << planner::model_name(scenario.planner.torchrec_version)
      << rated_with << '\n';
  out.flush();
}

// Reports a failed run: message to stderr, error JSON to the destination,
// stats (TorchRec prints them on planner failures too) when asked.
int report_failure(const PlanArgs& args, const planner::Scenario& scenario,
                   const planner::PlannerResult* result, const Status& status,
                   const std::string& rated_with = {}) {
  print_error(status.message());
  if (args.stats && result != nullptr && result->search_space.has_value() &&
      status.code() == StatusCode::kPlanner) {
    print_stats(args, scenario, *result, rated_with);
  }
  // The message is out (the stats follow it, as TorchRec prints them).
  const std::string dest = args.json_destination();
  if (!dest.empty()) {
    const std::string json = data::error_to_json(scenario.name, status, result, args.indent());
    if (Status w = write_output(dest, json); !w.is_ok()) print_error(w.message());
  }
  return exit_status(status);
}

// Writes the plan JSON and the stats; returns the exit status. `plan_json`
// is the plan written compact (what the run store keeps): the file is laid
// out from it rather than written again.
int report_success(const PlanArgs& args, const planner::Scenario& scenario,
                   const planner::PlannerResult& result, const std::string& plan_json,
                   const std::string& rated_with) {
  if (args.stats) print_stats(args, scenario, result, rated_with);
  if (args.prints_table()) std::cout << data::plan_to_text(scenario, result) << std::flush;
  const std::string dest = args.json_destination();
  if (args.format == "torchrec") {
    if (Status buildable = data::torchrec_buildable(result); !buildable) {
      print_error(buildable.message());
      return exit_status(buildable);
    }
  }
  if (!dest.empty()) {
    const std::string json = args.format == "torchrec"
                                 ? data::plan_to_torchrec_json(scenario, result, args.indent())
                                 : data::indent_json(plan_json, args.indent());
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

// The perf model a run rates plans with: null for TorchRec's (the planner's
// default), or the simulator. Refuses a fabric the simulator cannot build
// before any planning starts.
struct RunPerfModel {
  std::unique_ptr<sim::SimulatedPerfModel> simulated;
  planner::PerfModel* get() const { return simulated.get(); }
};

Result<RunPerfModel> make_perf_model(const PlanArgs& args, const planner::Scenario& scenario) {
  RunPerfModel m;
  if (args.perf_model != "simulated") return m;
  if (Status st = check_fabric(scenario); !st.is_ok()) return st;
  m.simulated = std::make_unique<sim::SimulatedPerfModel>(scenario);
  return m;
}

// A perf model that calls `after` once each rating is done: the simulated
// model's progress, one simulation at a time.
class ReportingPerfModel final : public planner::PerfModel {
 public:
  ReportingPerfModel(planner::PerfModel& inner, std::function<void()> after)
      : inner_(inner), after_(std::move(after)) {}
  std::string_view name() const override { return inner_.name(); }
  double rate(const planner::SearchSpace& space, const planner::PartitionedPlan& plan,
              const planner::Topology& topology,
              const std::vector<double>& device_perf_total) override {
    const double r = inner_.rate(space, plan, topology, device_perf_total);
    after_();
    return r;
  }

 private:
  planner::PerfModel& inner_;
  std::function<void()> after_;
};

// "; 12 simulations" for the simulated perf model, else nothing.
std::string simulations_note(const RunPerfModel& m) {
  if (!m.simulated) return std::string();
  const int n = m.simulated->simulations();
  return fmt::format("; {} simulation{}", n, n == 1 ? "" : "s");
}

// Records a planned or re-rated run (kind plan): the plan, its per-shard
// estimates and the rating; returns the exit status recording contributes.
int record_plan(const PlanArgs& args, const planner::Scenario& scenario,
                const planner::PlannerResult& result, const RunPerfModel& model,
                RunRecorder& recorder, std::string plan_json) {
  data::NewRun run = data::plan_run(
      scenario, result,
      data::PlanRunSettings{.perf_model = args.perf_model,
                            .simulations = model.simulated ? model.simulated->simulations() : -1,
                            .from_plan = args.from_plan,
                            .calibration = args.calibration},
      std::move(plan_json));
  run.scenario_json = scenario_text(args.scenario);
  return recorder.record(run);
}

// The files of a plan run; none of them may be written over.
bool files_are_distinct(const PlanArgs& args) {
  return VerbFiles()
      .input(args.scenario, "the scenario")
      .input(args.from_plan, "the plan file")
      .input(args.calibration, "the calibration profile")
      .store(args.store)
      .output(args.json_destination(), "the plan output")
      .distinct();
}

// Loads the scenario and checks the store before any work; on failure the
// error is reported (and its JSON written) and returned.
struct Loaded {
  planner::Scenario scenario;
  RunRecorder recorder;
};
Result<Loaded> load(const PlanArgs& args) {
  if (!files_are_distinct(args)) return Status::invalid_argument("output files overlap");
  Result<planner::Scenario> scenario =
      load_scenario_or_report(args.scenario, args.json_destination(), args.torchrec_version);
  if (!scenario.is_ok()) return scenario.status();
  Result<RunRecorder> recorder = RunRecorder::start(args.store, args.quiet);
  if (!recorder.is_ok()) {
    report_failure(args, *scenario, nullptr, recorder.status());
    return recorder.status();
  }
  return Loaded{std::move(scenario).value(), std::move(recorder).value()};
}

int run_plan(const PlanArgs& args) {
  Result<Loaded> loaded = load(args);
  if (!loaded.is_ok()) return exit_status(loaded.status());
  // The calibration first: asking for TorchRec's constants changes the scenario.
  Result<CalibrationChoice> calibration =
      CalibrationChoice::load(args.calibration, &loaded->scenario);
  const planner::Scenario* scenario = &loaded->scenario;
  if (!calibration.is_ok()) return report_failure(args, *scenario, nullptr, calibration.status());
  Result<RunPerfModel> model = make_perf_model(args, *scenario);
  if (!model.is_ok()) return report_failure(args, *scenario, nullptr, model.status());

  // Progress on stderr once planning has run for 2 s (docs/outputs.md).
  ProgressLine progress(2.0);
  planner::PlannerProgress last;
  const auto report = [&] {
    if (args.quiet) return;
    const int simulations = model->simulated ? model->simulated->simulations() : -1;
    progress.show("plan: " +
                  planner::progress_text(last, *scenario, progress.elapsed(), simulations));
  };
  std::optional<ReportingPerfModel> reporting;
  if (model->get() != nullptr) reporting.emplace(*model->get(), report);
  planner::PlannerResult result = planner::plan(
      *scenario, planner::PlannerOptions{.perf_model = reporting ? &*reporting : nullptr,
                                         .calibration = calibration->get(),
                                         .progress = [&](const planner::PlannerProgress& p) {
                                           last = p;
                                           report();
                                         }});
  progress.finish();
  const std::string rated_with = calibration->note(*scenario);
  if (!result.ok()) return report_failure(args, *scenario, &result, result.failure(), rated_with);
  warn_uncalibrated(*calibration, result);
  std::string plan_json = data::plan_to_json(*scenario, result, data::kCompactJson);
  int code = report_success(args, *scenario, result, plan_json, rated_with);
  if (code == kExitOk && !args.quiet) {
    std::cerr << fmt::format(
        "planned {} tables on {} ranks as TorchRec {} in {}: rating {:.6g} ms "
        "({} proposals, {} plans{}){}\n",
        scenario->tables.size(), result.topology.world_size,
        planner::to_string(scenario->planner.torchrec_version),
        planner::duration_text(result.wall_seconds), result.perf_rating, result.num_proposals,
        result.num_plans, simulations_note(*model) + rated_with, summary_target(args));
  }
  if (code == kExitOk) {
    code = record_plan(args, *scenario, result, *model, loaded->recorder, std::move(plan_json));
  }
  return code;
}

int run_from_plan(const PlanArgs& args) {
  Result<Loaded> loaded = load(args);
  if (!loaded.is_ok()) return exit_status(loaded.status());
  // The calibration first: asking for TorchRec's constants changes the scenario.
  Result<CalibrationChoice> calibration =
      CalibrationChoice::load(args.calibration, &loaded->scenario);
  const planner::Scenario* scenario = &loaded->scenario;
  if (!calibration.is_ok()) return report_failure(args, *scenario, nullptr, calibration.status());
  Result<RunPerfModel> model = make_perf_model(args, *scenario);
  if (!model.is_ok()) return report_failure(args, *scenario, nullptr, model.status());

  planner::PlannerResult rated = read_and_rate_plan(*scenario, args.from_plan, model->get(),
                                                    calibration->get(), args.allow_over_capacity);
  if (!rated.ok()) {
    // A plan file that does not fit is input, not a planning failure: no counters.
    const bool enumerated = rated.search_space.has_value();
    return report_failure(args, *scenario, enumerated ? nullptr : &rated, rated.failure());
  }
  warn_uncalibrated(*calibration, rated);
  const std::string rated_with = calibration->note(*scenario);
  std::string plan_json = data::plan_to_json(*scenario, rated, data::kCompactJson);
  int code = report_success(args, *scenario, rated, plan_json, rated_with);
  if (code == kExitOk && !args.quiet) {
    std::cerr << fmt::format(
        "rated {} ({} tables on {} ranks) as TorchRec {} in {}: rating {:.6g} ms{}{}\n",
        shown(args.from_plan), scenario->tables.size(), rated.topology.world_size,
        planner::to_string(scenario->planner.torchrec_version),
        planner::duration_text(rated.wall_seconds), rated.perf_rating,
        simulations_note(*model) + rated_with, summary_target(args));
  }
  if (code == kExitOk) {
    code = record_plan(args, *scenario, rated, *model, loaded->recorder, std::move(plan_json));
  }
  return code;
}

}  // namespace

void add_plan_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Plan the sharding of a scenario's tables as TorchRec does, or re-rate a given plan.\n"
      "Runs TorchRec's EmbeddingShardingPlanner algorithm (storage reservation, enumeration,\n"
      "proposers, partitioner) and keeps the best plan. The plan JSON (docs/cost-model.md §13.1)\n"
      "goes to -o FILE ('-o -' for stdout); without -o it goes to stdout when that is a file or\n"
      "a pipe, and a terminal gets a table of the placement instead (a row per table: sharding\n"
      "type, kernel, shards, ranks, perf, HBM). With --stats the stats table goes to stdout and\n"
      "the JSON only to -o. A one-line summary goes to stderr. The run is recorded in the run\n"
      "store (--db; 'shardlab runs --help').\n"
      "Exit status: 0 planned, 2 invalid scenario, usage, or a file that cannot be read or\n"
      "written, 3 no plan found; on 2 and 3 the JSON output is\n"
      "{\"scenario\", \"error\": {\"type\", \"message\"}, ...} and no partial file is left.\n"
      "An output that is the same file as an input (the scenario, the plan file, the run store)\n"
      "is refused with 2 before anything is written (docs/outputs.md).");
  add_scenario_argument(cmd, &args->scenario);
  add_output_option(cmd, &args->output, "the plan JSON (or the error JSON)",
                    "stdout unless --stats; a table instead on a terminal");
  cmd->add_flag("--stats", args->stats,
                "Print TorchRec's stats table to stdout; the JSON is then written only with -o "
                "(default: off)");
  cmd->add_option("--format", args->format,
                  "Plan file shape: 'shardlab' (docs/cost-model.md §13.1) or 'torchrec' (a "
                  "TorchRec ShardingPlan, "
                  "see docs/torchrec-interop.md) (default: shardlab)")
      ->check(CLI::IsMember({"shardlab", "torchrec"}))
      ->type_name("FORMAT");
  cmd->add_option(
         "--plan", args->from_plan,
         "Do not plan: read this plan file (either format) and re-rate it against SCENARIO "
         "(default: none)")
      ->type_name("FILE");
  add_old_spelling(cmd, "--from-plan", "--plan", &args->from_plan);
  add_allow_over_capacity_flag(cmd, &args->allow_over_capacity);
  cmd->add_option(
         "--perf-model", args->perf_model,
         "How plans are rated: 'torchrec' (the slowest rank's summed estimates, as TorchRec) or "
         "'simulated' (the simulated iteration time of each plan that fits; see "
         "docs/simulation.md) "
         "(default: torchrec)")
      ->check(CLI::IsMember({"torchrec", "simulated"}))
      ->type_name("MODEL");
  add_compact_flag(cmd, &args->compact);
  add_quiet_flag(cmd, &args->quiet, "the summary line on stderr");
  add_store_options(cmd, &args->store);
  add_calibration_option(cmd, &args->calibration);
  add_torchrec_version_option(cmd, &args->torchrec_version);
  cmd->footer(example_footer(
      "  shardlab plan dlrm.json -o plan.json\n"
      "  shardlab plan dlrm.json --perf-model simulated -o plan.json\n"
      "  shardlab plan dlrm.json --stats\n"
      "  shardlab plan dlrm.json --torchrec-version 2024-02 --stats\n"
      "  shardlab plan dlrm.json --format torchrec -o torchrec_plan.json\n"
      "  shardlab plan dlrm.json --plan torchrec_plan.json --stats\n"
      "  shardlab plan dlrm.json --calibration calibration.json -o plan.json\n"
      "  shardlab plan dlrm.json --db runs.db -o plan.json && shardlab runs list --db runs.db"));
  verbs.add(cmd, [args] {
    args->stdout_is_terminal = isatty(STDOUT_FILENO) == 1;
    return args->from_plan.empty() ? run_plan(*args) : run_from_plan(*args);
  });
}

}  // namespace shardlab::cli
