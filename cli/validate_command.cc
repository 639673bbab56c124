// shardlab validate: load and validate a scenario file; plan nothing.

#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli_common.h"

namespace shardlab::cli {
namespace {

int run_validate(const std::string& path) {
  int code = kExitOk;
  std::optional<planner::Scenario> scenario = load_scenario_or_report(path, /*error_out=*/"", &code);
  if (!scenario) return code;
  std::cout << fmt::format("ok: {} ({} tables, {} ranks)\n", scenario->name, scenario->tables.size(),
                           scenario->topology.world_size);
  return kExitOk;
}

}  // namespace

void add_validate_command(CLI::App& app, int* exit_code) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check a scenario file against scenario.md without planning.\n"
      "Reports unknown keys, bad units, values out of range, unequal per-feature lists,\n"
      "constraints naming unknown tables, and so on, each with its JSON path. Prints\n"
      "\"ok: NAME (T tables, W ranks)\" and exits 0, or prints the error and exits 2.");
  cmd->add_option("scenario", *path, "Scenario file (JSON, scenario.md)")->required();
  cmd->footer(example_footer("  shardlab validate dlrm.json"));
  cmd->callback([path, exit_code]() { *exit_code = run_validate(*path); });
}

}  // namespace shardlab::cli
