// shardlab validate: load and validate a scenario file; plan nothing.

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli_common.h"

namespace shardlab::cli {
namespace {

struct ValidateArgs {
  std::string scenario;
  bool quiet = false;
};

int run_validate(const ValidateArgs& args) {
  const data::ScenarioCheck check = data::check_scenario_file(args.scenario);
  if (!check.scenario) {
    for (const Status& problem : check.problems) print_error(problem.message());
    if (check.problems.size() > 1) {
      print_error(fmt::format("{} problems in {}", check.problems.size(), shown(args.scenario)));
    }
    return exit_status(check.problems.front());
  }
  const std::optional<planner::Scenario>& scenario = check.scenario;
  if (!args.quiet) {
    std::cout << fmt::format("ok: {} ({} tables, {} ranks)\n", shown(scenario->name),
                             scenario->tables.size(), scenario->topology.world_size);
  }
  return kExitOk;
}

}  // namespace

void add_validate_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check a scenario file against docs/scenario-format.md without planning.\n"
      "Reports unknown keys, bad units, values out of range, unequal per-feature lists,\n"
      "constraints naming unknown tables, and so on, each with its JSON path: every member's\n"
      "problem at once (the checks across members run once the members are right). Prints\n"
      "\"ok: NAME (T tables, W ranks)\" and exits 0, or prints each problem and exits 2.");
  add_scenario_argument(cmd, &args->scenario);
  add_quiet_flag(cmd, &args->quiet, "the \"ok\" line (the exit status says it)");
  cmd->footer(example_footer(
      "  shardlab validate dlrm.json\n  shardlab validate -q dlrm.json && echo valid"));
  verbs.add(cmd, [args] { return run_validate(*args); });
}

}  // namespace shardlab::cli
