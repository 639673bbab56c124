// Recording a verb's run in the run store (data/run_store.h), and where the
// store is: --db PATH, else the SHARDLAB_DB environment variable, else
// shardlab.db in the working directory.
//
// A verb adds the options with add_store_options, writes its outputs, and
// then calls record_run. Recording never changes what a verb wrote; it can
// only change the exit status, and only when the user named the store:
//  - recorded: "recorded run <id> in <path>" on stderr (unless quiet);
//  - the store cannot be opened or written and --db or SHARDLAB_DB named it:
//    an error naming the store, exit status 1;
//  - the same with the default shardlab.db: a warning, exit status unchanged.
// --no-record, or SHARDLAB_NO_RECORD set to anything but "" or "0", skips
// recording (test harnesses set the variable).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "shardlab/data/run_store.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::cli {

struct StoreOptions {
  std::string db;          // --db; empty: SHARDLAB_DB, else shardlab.db
  bool no_record = false;  // --no-record
};

// Adds --db PATH and --no-record to `cmd`.
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

// A NewRun of `kind` for `scenario`, loaded from `scenario_path`: name and the
// file's text (empty when the file cannot be read again).
data::NewRun new_run(data::RunKind kind, const planner::Scenario& scenario,
                     const std::string& scenario_path);

// Records `run` as described above and returns the exit status recording
// contributes: kExitOk (recorded, skipped, or failed on the default store)
// or kExitInternal (failed on a named store).
int record_run(const StoreOptions& options, const data::NewRun& run, bool quiet = false);

// Records `first`, then `second` derived from it (its inputs gain the first
// run's id), as record_run does; when the second cannot be written the first
// is deleted again, so the store never keeps half of the pair. The line on
// stderr names both ids.
int record_run_pair(const StoreOptions& options, const data::NewRun& first, data::NewRun second,
                    bool quiet = false);

}  // namespace shardlab::cli
