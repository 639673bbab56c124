#include "run_recording.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_common.h"

namespace shardlab::cli {

void add_db_option(CLI::App* cmd, std::string* db) {
  cmd->add_option("--db", *db,
                  "Run store file (SQLite; docs/run-store.md) (default: $SHARDLAB_DB, else "
                  "shardlab.db in the "
                  "working directory)")
      ->type_name("PATH");
}

void add_store_options(CLI::App* cmd, StoreOptions* options) {
  add_db_option(cmd, &options->db);
  cmd->add_flag("--no-record", options->no_record,
                "Do not record this run in the run store (default: record; SHARDLAB_NO_RECORD=1 "
                "also skips it)");
}

DbLocation resolve_db(const std::string& db_option) {
  if (!db_option.empty()) return {db_option, true};
  const char* env = std::getenv("SHARDLAB_DB");
  if (env != nullptr && env[0] != '\0') return {env, true};
  return {data::kDefaultRunStoreFile, false};
}

bool recording_disabled(const StoreOptions& options) {
  if (options.no_record) return true;
  const char* env = std::getenv("SHARDLAB_NO_RECORD");
  return env != nullptr && env[0] != '\0' && std::string(env) != "0";
}

data::NewRun new_run(data::RunKind kind, const planner::Scenario& scenario,
                     const std::string& scenario_path) {
  data::NewRun run;
  run.kind = kind;
  run.scenario_name = scenario.name;
  std::ifstream in(scenario_path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  run.scenario_json = text.str();
  return run;
}

namespace {

// The exit status a failed recording contributes (the verb's own outputs are
// written by now; only the exit status is left to decide).
int recording_failed(const DbLocation& where, const Status& st) {
  const std::string msg = fmt::format("run not recorded: {}", st.message());
  if (where.named) {
    print_error(msg);
    return kExitInternal;
  }
  print_warning(msg + " (pass --db PATH or --no-record)");
  return kExitOk;
}

}  // namespace

int record_run(const StoreOptions& options, const data::NewRun& run, bool quiet) {
  if (recording_disabled(options)) return kExitOk;
  const DbLocation where = resolve_db(options.db);
  Result<data::RunStore> store = data::RunStore::open(where.path);
  if (!store.is_ok()) return recording_failed(where, store.status());
  Result<int64_t> id = store->add_run(run);
  if (!id.is_ok()) return recording_failed(where, id.status());
  if (!quiet) std::cerr << fmt::format("recorded run {} in {}\n", *id, where.path);
  return kExitOk;
}

int record_run_pair(const StoreOptions& options, const data::NewRun& first, data::NewRun second,
                    bool quiet) {
  if (recording_disabled(options)) return kExitOk;
  const DbLocation where = resolve_db(options.db);
  Result<data::RunStore> store = data::RunStore::open(where.path);
  if (!store.is_ok()) return recording_failed(where, store.status());
  Result<int64_t> a = store->add_run(first);
  if (!a.is_ok()) return recording_failed(where, a.status());
  second.inputs.push_back(*a);
  Result<int64_t> b = store->add_run(second);
  if (!b.is_ok()) {
    (void)store->delete_run(*a);
    return recording_failed(where, b.status());
  }
  if (!quiet) {
    std::cerr << fmt::format(
        "recorded runs {} ({}) and {} ({}) in {}; 'shardlab runs diff {}' compares them\n", *a,
        data::to_string(first.kind), *b, data::to_string(second.kind), where.path, *b);
  }
  return kExitOk;
}

}  // namespace shardlab::cli
