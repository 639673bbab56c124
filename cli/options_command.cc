// shardlab options: every sharding option TorchRec's enumerator produces for a
// scenario, with perf and storage estimates, after the storage reservation.

#include <fmt/format.h>

#include <algorithm>
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
  std::string calibration;                  // --calibration PROFILE; empty: TorchRec's constants
  std::vector<std::string> tables;          // --table NAME ...; empty: every table
  std::vector<std::string> sharding_types;  // --sharding-type TYPE ...; empty: every type
};

int run_options(const OptionsArgs& args) {
  const bool distinct = VerbFiles()
                            .input(args.scenario, "the scenario")
                            .input(args.calibration, "the calibration profile")
                            .output(args.output, "the options output")
                            .distinct();
  if (!distinct) return kExitInvalid;
  const int indent = args.compact ? data::kCompactJson : data::kDefaultJsonIndent;
  Result<planner::Scenario> scenario =
      load_scenario_or_report(args.scenario, args.output, args.torchrec_version);
  if (!scenario.is_ok()) return exit_status(scenario.status());
  Result<data::OptionFilter> filter =
      data::option_filter(*scenario, args.tables, args.sharding_types);
  if (!filter.is_ok()) {
    print_error(filter.status().message());
    return exit_status(filter.status());
  }
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
  if (Status w =
          write_output(args.output, data::options_to_json(*scenario, result, indent, *filter));
      !w.is_ok()) {
    print_error(w.message());
    return exit_status(w);
  }
  if (!args.quiet) {
    const planner::SearchSpace& space = *result.search_space;
    const auto listed =
        std::count_if(space.options.begin(), space.options.begin() + space.num_enumerated(),
                      [&](const auto& o) { return filter->keeps(o); });
    const std::string shown_count =
        static_cast<size_t>(listed) == space.num_enumerated()
            ? std::string()
            : fmt::format(" ({} listed by --table / --sharding-type)", listed);
    std::cerr << fmt::format("enumerated {} options for {} tables in {:.1f} ms{}{}{}\n",
                             space.options.size(), scenario->tables.size(),
                             result.wall_seconds * 1e3, shown_count, calibration->note(*scenario),
                             args.output == "-" ? std::string() : " -> " + shown(args.output));
  }
  return kExitOk;
}

}  // namespace

void add_options_command(CLI::App& app, VerbRuns& verbs) {
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
  cmd->add_option("--table", args->tables,
                  "List only this table's options (repeat for several; default: every table)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--sharding-type", args->sharding_types,
                  "List only options of this sharding type (repeat for several: table_wise, "
                  "row_wise, column_wise, table_row_wise, table_column_wise, data_parallel, "
                  "grid_shard; default: every type)")
      ->check(CLI::IsMember({"table_wise", "row_wise", "column_wise", "table_row_wise",
                             "table_column_wise", "data_parallel", "grid_shard"}))
      ->type_name("TYPE")
      ->allow_extra_args(false);
  cmd->footer(
      example_footer("  shardlab options dlrm.json > options.json\n"
                     "  shardlab options dlrm.json --calibration calibration.json -o options.json\n"
                     "  shardlab options dlrm.json -o options.json --compact\n"
                     "  shardlab options dlrm.json --table t_cat_2 --sharding-type row_wise"));
  verbs.add(cmd, [args] { return run_options(*args); });
}

}  // namespace shardlab::cli
