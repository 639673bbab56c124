#include "run_recording.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

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

// Adds `runs` in order, each after the first derived from the one before;
// when one fails, the runs added before it are deleted again. Fills *ids.
// Returns the exit status recording contributes; *ids is empty when nothing
// was recorded.
int record_chain(const StoreOptions& options, std::vector<data::NewRun> runs,
                 std::vector<int64_t>* ids, DbLocation* where) {
  ids->clear();
  if (recording_disabled(options)) return kExitOk;
  *where = resolve_db(options.db);
  Result<data::RunStore> store = data::RunStore::open(where->path);
  if (!store.is_ok()) return recording_failed(*where, store.status());
  for (data::NewRun& run : runs) {
    if (!ids->empty()) run.inputs.push_back(ids->back());
    Result<int64_t> id = store->add_run(run);
    if (!id.is_ok()) {
      for (const int64_t added : *ids) (void)store->delete_run(added);
      ids->clear();
      return recording_failed(*where, id.status());
    }
    ids->push_back(*id);
  }
  return kExitOk;
}

}  // namespace

int record_run(const StoreOptions& options, const data::NewRun& run, bool quiet) {
  std::vector<int64_t> ids;
  DbLocation where;
  const int code = record_chain(options, {run}, &ids, &where);
  if (!ids.empty() && !quiet) {
    std::cerr << fmt::format("recorded run {} in {}\n", ids[0], where.path);
  }
  return code;
}

int record_run_pair(const StoreOptions& options, const data::NewRun& first, data::NewRun second,
                    bool quiet) {
  std::vector<int64_t> ids;
  DbLocation where;
  const data::RunKind second_kind = second.kind;
  const int code = record_chain(options, {first, std::move(second)}, &ids, &where);
  if (ids.size() == 2 && !quiet) {
    std::cerr << fmt::format(
        "recorded runs {} ({}) and {} ({}) in {}; 'shardlab runs diff {}' compares them\n", ids[0],
        data::to_string(first.kind), ids[1], data::to_string(second_kind), where.path, ids[1]);
  }
  return code;
}

}  // namespace shardlab::cli
