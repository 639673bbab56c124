// shardlab options: every sharding option TorchRec's enumerator produces for a
// scenario, with perf and storage estimates, after the storage reservation.

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "calibration_option.h"
#include "cli_common.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/planner/planner.h"

namespace shardlab::cli {
namespace {

struct OptionsArgs {
  std::string torchrec_version;  // --torchrec-version; empty: the scenario's
  std::string scenario;
  std::string output = "-";
  bool compact = false;
  bool quiet = false;
  std::string calibration;  // --calibration PROFILE; empty: TorchRec's constants
};

int run_options(const OptionsArgs& args) {
  const bool distinct = VerbFiles()
                            .input(args.scenario, "the scenario")
                            .input(args.calibration, "the calibration profile")
                            .output(args.output, "the options output")
                            .distinct();
  if (!distinct) return kExitInvalid;
  const int indent = args.compact ? data::kCompactJson : data::kDefaultJsonIndent;
  int code = kExitOk;
  std::optional<planner::Scenario> scenario =
      load_scenario_or_report(args.scenario, args.output, &code, args.torchrec_version);
  if (!scenario) return code;
  Result<CalibrationChoice> calibration = CalibrationChoice::load(args.calibration, &*scenario);
  if (!calibration.is_ok()) {
    print_error(calibration.status().message());
    const std::string json =
        data::error_to_json(scenario->name, calibration.status(), nullptr, indent);
    if (Status w = write_output(args.output, json); !w.is_ok()) {
      print_error(w.message());
    }
    return exit_status(calibration.status());
  }

  // Reservation and enumeration only; no proposer or partitioner runs, so a
  // scenario whose planning would fail still lists its options.
  planner::PlannerResult result =
      planner::plan(*scenario, planner::PlannerOptions{.enumerate_only = true,
                                                       .lists_options = true,
                                                       .calibration = calibration->get()});
  if (!result.search_space.has_value()) {
    const Status status = result.error.is_ok()
                              ? Status::internal("enumeration returned no search space")
                              : result.error;
    print_error(status.message());
    if (Status w =
            write_output(args.output, data::error_to_json(scenario->name, status, &result, indent));
        !w.is_ok()) {
      print_error(w.message());
    }
    return exit_status(status);
  }
  if (Status w = write_output(args.output, data::options_to_json(*scenario, result, indent));
      !w.is_ok()) {
    print_error(w.message());
    return exit_status(w);
  }
  if (!args.quiet) {
    std::cerr << fmt::format("enumerated {} options for {} tables in {:.1f} ms{}{}\n",
                             result.search_space->options.size(), scenario->tables.size(),
                             result.wall_seconds * 1e3, calibration->note(*scenario),
                             args.output == "-" ? std::string() : " -> " + shown(args.output));
  }
  return kExitOk;
}

}  // namespace

void add_options_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<OptionsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "options",
      "List every sharding option of a scenario with its perf and storage estimates.\n"
      "Options come in TorchRec's enumeration order, each shard with its estimates\n"
      "(docs/scenario-format.md, \"What planning writes\"). Only the storage reservation and the\n"
      "enumeration run, so scenarios whose planning fails still list their options. Exit status:\n"
      "0 listed, 2 invalid scenario or usage, 3 the reservation or the enumeration failed (the\n"
      "error JSON is written instead).");
  add_scenario_argument(cmd, &args->scenario);
  add_output_option(cmd, &args->output, "the options JSON (or the error JSON)", "stdout");
  add_compact_flag(cmd, &args->compact);
  add_quiet_flag(cmd, &args->quiet, "the summary line on stderr");
  add_calibration_option(cmd, &args->calibration);
  add_torchrec_version_option(cmd, &args->torchrec_version);
  cmd->footer(
      example_footer("  shardlab options dlrm.json > options.json\n"
                     "  shardlab options dlrm.json --calibration calibration.json -o options.json\n"
                     "  shardlab options dlrm.json -o options.json --compact"));
  cmd->callback([args, exit_code]() { *exit_code = run_options(*args); });
}

}  // namespace shardlab::cli
