// Recording a verb's run in the run store (data/run_store.h), and where the
// store is: --db PATH, else the SHARDLAB_DB environment variable, else
// shardlab.db in the working directory.
//
// A verb adds the options with add_store_options, starts a RunRecorder
// before its work, writes its outputs, and then records. Recording never
// changes what a verb wrote; it can only change the exit status, and only
// when the user named the store (--db or SHARDLAB_DB):
//  - before the work, a named store that cannot take runs (not a ShardLab
//    store, newer, damaged, in a missing directory) is an error: the verb
//    stops with the store's exit status (2) and writes nothing;
//  - the same with the default shardlab.db: a warning, and no recording;
//  - recorded: "recorded run <id> in <path>" on stderr (unless quiet);
//  - the store fails while recording: an error (named store, its exit
//    status) or a warning (default store, exit status unchanged).
// --no-record, or SHARDLAB_NO_RECORD set to anything but "" or "0", skips
// recording (test harnesses set the variable).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "shardlab/data/run_records.h"
#include "shardlab/data/run_store.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::cli {

struct StoreOptions {
  std::string db;          // --db; empty: SHARDLAB_DB, else shardlab.db
  bool no_record = false;  // --no-record
  std::string label;       // --label: the runs' label (data::NewRun::label)
};

// Adds --db PATH and --no-record to `cmd` (the verbs that record).
void add_store_options(CLI::App* cmd, StoreOptions* options);

// Adds --db PATH only (the `runs` verbs, which read the store).
void add_db_option(CLI::App* cmd, std::string* db);

struct DbLocation {
  std::string path;
  bool named = false;  // from --db or SHARDLAB_DB rather than the default
};

// --db when given, else SHARDLAB_DB when set and non-empty, else shardlab.db.
DbLocation resolve_db(const std::string& db_option);

// True when --no-record or SHARDLAB_NO_RECORD says not to record.
bool recording_disabled(const StoreOptions& options);

// data::new_run (run_records.h); the scenario's text is the caller's to set
// (scenario_text).
using data::new_run;

// The text of the scenario file at `path`, as the loader read it; "" when it
// cannot be read again (a pipe).
std::string scenario_text(const std::string& path);

// The store a recording verb writes its runs to, checked before the work.
class RunRecorder {
 public:
  // Checks that the store can take a run, as the header comment says: an
  // existing file is opened now; a missing one is created only when a run is
  // recorded, so a verb that fails leaves no store behind. The error is
  // returned only for a named store.
  static Result<RunRecorder> start(const StoreOptions& options, bool quiet);

  // Records `run` (or each of `runs`, in order) and returns the exit status
  // recording contributes: kExitOk, or the store's status on a named store.
  int record(const data::NewRun& run);
  int record(const std::vector<data::NewRun>& runs);
  // Records `first`, then `second` derived from it (its inputs gain the
  // first run's id); when the second cannot be written the first is deleted
  // again, so the store never keeps half of the pair. The line on stderr
  // names both ids.
  int record_derived(const data::NewRun& first, const data::NewRun& second);

 private:
  int record_each(const std::vector<const data::NewRun*>& runs, bool chained);

  DbLocation where_;
  bool active_ = false;
  bool quiet_ = false;
  std::string label_;  // StoreOptions::label, given to every run recorded
  std::optional<data::RunStore> store_;
};

}  // namespace shardlab::cli
