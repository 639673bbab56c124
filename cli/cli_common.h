// Shared pieces of the shardlab verbs: exit statuses, error printing, atomic
// output files, scenario loading. No planning logic lives in the CLI; the verbs
// call planner/ and data/ and print what they return.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"

namespace shardlab::cli {

// Exit statuses (scenario.md): 0 ok, 1 internal error, 2 bad input or usage,
// 3 planning failed.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitInvalid = 2;
inline constexpr int kExitPlanner = 3;

// The exit status for a failed Status.
int exit_status(const Status& status);

// Prints "shardlab: error: <message>" to stderr.
void print_error(const std::string& message);
void print_warning(const std::string& message);

// Writes `text` plus a newline to `path` through `path.tmp` and a rename, so
// a reader never sees a partial file. "-" means stdout.
Status write_output(const std::string& path, const std::string& text);

// What a verb prints when the scenario file itself fails: the scenario name
// is not known yet, so the error JSON names the file's stem.
std::string scenario_name_from_path(const std::string& path);

// Loads `path`. On failure prints the error to stderr, writes the
// invalid_scenario JSON to `error_out` when it is non-empty ("-" is stdout),
// and returns nullopt with *exit_code set to 2.
std::optional<planner::Scenario> load_scenario_or_report(const std::string& path,
                                                         const std::string& error_out,
                                                         int* exit_code);

// Registers the verbs on `app`. Each verb's callback stores its exit status
// in *exit_code.
void add_plan_command(CLI::App& app, int* exit_code);
void add_options_command(CLI::App& app, int* exit_code);
void add_validate_command(CLI::App& app, int* exit_code);
void add_simulate_command(CLI::App& app, int* exit_code);
void add_compare_command(CLI::App& app, int* exit_code);
void add_runs_command(CLI::App& app, int* exit_code);  // runs_command.cc
void add_replay_command(CLI::App& app, int* exit_code);         // replay_command.cc
void add_bench_kernels_command(CLI::App& app, int* exit_code);  // bench_kernels_command.cc
void add_calibrate_command(CLI::App& app, int* exit_code);      // calibrate_command.cc
void add_presets_command(CLI::App& app, int* exit_code);        // presets_command.cc
void add_sweep_command(CLI::App& app, int* exit_code);          // sweep_command.cc

// Shared --help text pieces.
std::string example_footer(const std::string& lines);

// A byte count for people: "512 B", "1.50 KiB", "3.20 GiB" (binary units).
std::string format_bytes(double bytes);

}  // namespace shardlab::cli
