// Shared pieces of the shardlab verbs: exit statuses, error printing, output
// files, the options every verb spells the same way, scenario loading. No
// planning logic lives in the CLI; the verbs call planner/ and data/ and print
// what they return.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run_recording.h"
#include "shardlab/data/file_io.h"
#include "shardlab/data/message_text.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"

namespace shardlab::cli {

// Exit statuses (README "Exit statuses", docs/outputs.md): 0 ok, 1 internal
// error, 2 bad input, usage, or a file that cannot be read or written, 3
// planning failed. exit_status() is the one place a Status becomes one.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitInvalid = 2;
inline constexpr int kExitPlanner = 3;

// The exit status for a failed Status.
int exit_status(const Status& status);

// Prints "shardlab: error: <message>" to stderr, control bytes escaped.
void print_error(const std::string& message);

// How every verb reports a failed run: the message on stderr, and, when
// `json_destination` is not empty ("-": stdout), the error JSON
// (data::error_to_json: the planner's counters and reservation from
// `result` when given) written there as every output is written. Returns
// exit_status(status). REQUIRES: !status.is_ok().
int report_failure(const Status& status, const std::string& json_destination = {},
                   const std::string& scenario_name = {},
                   const planner::PlannerResult* result = nullptr,
                   int indent = data::kDefaultJsonIndent);
void print_warning(const std::string& message);

// With SHARDLAB_MEMORY_REPORT set (not empty, not "0"): every memory check
// the run makes (planner/memory_budget.h) prints "shardlab: memory: <what>
// needs about X; the process holds Y of the Z budget (<source>)" on stderr.
// main() calls it once.
void report_memory_checks_if_asked();

// `text` (a name, a path) as it may be echoed in a message or a table:
// control bytes and invalid UTF-8 escaped as \xNN, cut to
// data::kMaxShownBytes with "..." (data/message_text.h).
using data::kMaxShownBytes;
using data::shown;

// Writes `text` plus a newline to `path` (data/file_io.h: atomically over
// files, through to devices and pipes). "-" means stdout, checked for write
// errors. Flushes stdout and stderr first, so /dev/stdout keeps its order.
Status write_output(const std::string& path, const std::string& text);

// The files a verb reads and writes. Before it reads or writes anything, a
// verb checks that no output is the same file as an input (the scenario, a
// plan, the run store) or as another output (data::check_distinct_files).
class VerbFiles {
 public:
  // Adds a file; an empty path (an option not given) is skipped.
  VerbFiles& input(const std::string& path, std::string role);
  VerbFiles& output(const std::string& path, std::string role);
  // The run store (--db, $SHARDLAB_DB or the default), recording or not.
  VerbFiles& store(const StoreOptions& options);
  // On a clash prints the error and returns false: the verb then exits with
  // kExitInvalid, having written nothing.
  bool distinct() const;

 private:
  std::vector<data::FileRole> inputs_;
  std::vector<data::FileRole> outputs_;
};

// The output safety net (docs/outputs.md "Names in outputs"): while it
// lives, everything written to std::cout and std::cerr passes through
// data::append_output_safe, so no control character, C1 control or
// bidirectional override reaches a terminal raw, whichever code printed it;
// JSON keeps its meaning. main() holds one for the whole run. Not thread-safe
// (neither are the streams it wraps); flushes what it holds when destroyed.
class SafeOutput {
 public:
  SafeOutput();
  ~SafeOutput();
  SafeOutput(const SafeOutput&) = delete;
  SafeOutput& operator=(const SafeOutput&) = delete;

 private:
  class Buffer;
  std::unique_ptr<Buffer> out_, err_;
};

// Progress of long work on stderr: one line rewritten in place on a terminal
// (at most every interval()), a line every interval() otherwise; nothing
// before `quiet_for_s` seconds have passed, so short runs print nothing.
class ProgressLine {
 public:
  explicit ProgressLine(double quiet_for_s = 0.0);
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  double interval() const { return tty_ ? 0.25 : 5.0; }
  double elapsed() const;
  // Shows `line` when the interval since the last line shown has passed.
  void show(const std::string& line);
  // Ends the line rewritten in place, if any.
  void finish();

 private:
  bool tty_;
  double quiet_for_s_;
  double start_s_;
  double last_shown_s_ = -1e300;
  bool open_line_ = false;
};

// Flushes stdout and reports a failed write to it (a full disk, a closed
// pipe): main() calls this last, so a verb whose output was lost never exits 0.
// Returns `exit_code`, or kExitInvalid when it was 0 and stdout failed.
int finish_stdout(int exit_code);

// What a verb prints when the scenario file itself fails: the scenario name
// is not known yet, so the error JSON names the file's stem.
std::string scenario_name_from_path(const std::string& path);

// Loads `path`. On failure prints the error to stderr, writes the
// error JSON ("error_type": "invalid_scenario") to `error_out` when it is
// non-empty ("-" is stdout), and returns the failure, reported already:
// kInvalidArgument whatever the cause (reading the scenario is input; the
// message names the file), so exit_status() of it is 2. A non-empty
// `torchrec_version` (a --torchrec-version value) replaces the scenario's
// planner.torchrec_version.
Result<planner::Scenario> load_scenario_or_report(const std::string& path,
                                                  const std::string& error_out,
                                                  const std::string& torchrec_version = "");

// Adds --torchrec-version VERSION to a verb that plans: which TorchRec
// planner to reproduce (docs/torchrec-versions.md). `version` stays empty
// when the option is not given (the scenario's choice, else the newest).
CLI::Option* add_torchrec_version_option(CLI::App* cmd, std::string* version);

// ---- Options every verb spells the same way --------------------------------

// The SCENARIO positional argument (required).
CLI::Option* add_scenario_argument(CLI::App* cmd, std::string* path);

// -o,--output FILE: `what` is what goes there ("the plan JSON (or the error
// JSON)"), `default_text` what happens without it ("stdout", "none").
CLI::Option* add_output_option(CLI::App* cmd, std::string* path, const std::string& what,
                               const std::string& default_text);

// -q,--quiet: `what` is what it silences ("the summary line on stderr").
CLI::Option* add_quiet_flag(CLI::App* cmd, bool* quiet, const std::string& what);

// --compact: write JSON on one line.
CLI::Option* add_compact_flag(CLI::App* cmd, bool* compact);

// Number checks with short messages ("--max-rows: -1 is below 0"), refusing
// NaN and infinities, for options of any arithmetic type.
CLI::Validator number_at_least(double min);
CLI::Validator number_above(double min);  // exclusive
CLI::Validator number_in_range(double min, double max);
CLI::Validator finite_number();
// `reason`, when given, follows the message: why `excluded` is refused.
CLI::Validator number_other_than(double excluded, const std::string& reason = {});
// A run id of the run store: a whole number >= 1.
CLI::Validator run_id_check();

// An old spelling of `option` (one spelling per concept across verbs,
// docs/outputs.md): hidden from --help, it sets the same value and says on
// stderr that it is the old spelling of `new_name`.
void add_old_spelling(CLI::App* cmd, const std::string& old_name, const std::string& new_name,
                      std::string* value);

// Gives every option that takes a value, of `app` and of all its verbs, a
// check that refuses an empty value (`--seed ""`, `--runs ""`): an option
// given is never read as its default. Call once every verb is added.
void refuse_empty_values(CLI::App& app);

// The innermost verb `app` parsed ("runs list" gives list), or `app` itself
// when none was.
const CLI::App* parsed_verb(const CLI::App& app);

// What each verb does once the command line is parsed: a run that returns
// the verb's exit status. The verbs register theirs (a verb's CLI11 callback
// only checks its arguments); main() parses, then runs the chosen verb's.
class VerbRuns {
 public:
  // `run` is what `verb` (a subcommand of the app, or of a verb) does.
  void add(const CLI::App* verb, std::function<int()> run);
  // Runs the innermost verb `app` parsed (or, when it has no run, its
  // nearest parent that has one: presets runs 'presets show') and returns its
  // exit status; kExitInvalid when none has a run.
  int run_parsed(const CLI::App& app) const;

 private:
  std::vector<std::pair<const CLI::App*, std::function<int()>>> runs_;
};

// Registers the verbs on `app` and their runs in `runs`.
void add_plan_command(CLI::App& app, VerbRuns& verbs);
void add_options_command(CLI::App& app, VerbRuns& verbs);
void add_validate_command(CLI::App& app, VerbRuns& verbs);
void add_simulate_command(CLI::App& app, VerbRuns& verbs);
void add_compare_command(CLI::App& app, VerbRuns& verbs);
void add_runs_command(CLI::App& app, VerbRuns& verbs);           // runs_command.cc
void add_replay_command(CLI::App& app, VerbRuns& verbs);         // replay_command.cc
void add_bench_kernels_command(CLI::App& app, VerbRuns& verbs);  // bench_kernels_command.cc
void add_calibrate_command(CLI::App& app, VerbRuns& verbs);      // calibrate_command.cc
void add_optimize_command(CLI::App& app, VerbRuns& verbs);       // optimize_command.cc
void add_presets_command(CLI::App& app, VerbRuns& verbs);        // presets_command.cc
void add_sweep_command(CLI::App& app, VerbRuns& verbs);          // sweep_command.cc
void add_trace_command(CLI::App& app, VerbRuns& verbs);          // trace_command.cc

// What an option listing ids ("0,1,4-7") accepts; see parse_id_list.
struct IdListSpec {
  std::string_view option;  // "--ranks", named in every error
  std::string_view what;    // "rank", "run id"
  int64_t minimum = 0;      // smallest id
  int64_t maximum = 0;      // largest id
  std::string range_note;   // why `maximum` ("tiny_2gpu has 2 ranks"); may be empty
};

// "3,5-7" -> {3, 5, 6, 7}: ascending, without repeats. Each range is checked
// against [minimum, maximum] before it is expanded, and the list may name at
// most 1,000,000 ids counting repeats, so no text makes it loop or allocate
// without bound. Fails with kInvalidArgument naming the option and the item.
Result<std::vector<int64_t>> parse_id_list(const std::string& text, const IdListSpec& spec);

// Shared --help text pieces.
std::string example_footer(const std::string& lines);

// Run ids for people: "3,5-7" (data/message_text.h).
using data::format_id_list;

// A byte count for people (data/scenario_loader.h).
using data::format_bytes;

}  // namespace shardlab::cli
