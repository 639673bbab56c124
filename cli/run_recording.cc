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

int record_run(const StoreOptions& options, const data::NewRun& run, bool quiet) {
  if (recording_disabled(options)) return kExitOk;
  const DbLocation where = resolve_db(options.db);
  Result<data::RunStore> store = data::RunStore::open(where.path);
  Status st = store.is_ok() ? Status::ok() : store.status();
  int64_t id = 0;
  if (store.is_ok()) {
    Result<int64_t> added = store->add_run(run);
    if (added.is_ok()) {
      id = *added;
    } else {
      st = added.status();
    }
  }
  if (st.is_ok()) {
    if (!quiet) std::cerr << fmt::format("recorded run {} in {}\n", id, where.path);
    return kExitOk;
  }
  // The verb's own outputs are written by now; only the exit status is left to decide.
  const std::string msg = fmt::format("run not recorded: {}", st.message());
  if (where.named) {
    print_error(msg);
    return exit_status(st);
  }
  print_warning(msg + " (pass --db PATH or --no-record)");
  return kExitOk;
}

}  // namespace shardlab::cli
