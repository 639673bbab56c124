#include "run_recording.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli_common.h"
#include "shardlab/data/file_io.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/run_records.h"

namespace shardlab::cli {

void add_db_option(CLI::App* cmd, std::string* db) {
  cmd->add_option("--db", *db,
                  "Run store file (SQLite; docs/run-store.md) (default: $SHARDLAB_DB, else "
                  "shardlab.db in the working directory)")
      ->type_name("PATH");
}

void add_store_options(CLI::App* cmd, StoreOptions* options) {
  add_db_option(cmd, &options->db);
  cmd->add_flag("--no-record", options->no_record,
                "Do not record this run in the run store (default: record; SHARDLAB_NO_RECORD=1 "
                "also skips it)");
  cmd->add_option("--label", options->label,
                  "A name for the recorded run, shown by 'runs list' and chosen by its --label "
                  "(default: none; 'shardlab runs label ID TEXT' sets it later)")
      ->type_name("TEXT");
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

std::string scenario_text(const std::string& path) {
  // The loader read it a moment ago; a pipe cannot be read twice and gives "".
  Result<std::string> text = data::read_input_file(path, "scenario");
  return text.is_ok() ? std::move(text).value() : std::string();
}

Result<RunRecorder> RunRecorder::start(const StoreOptions& options, bool quiet) {
  RunRecorder r;
  r.quiet_ = quiet;
  r.label_ = options.label;
  if (recording_disabled(options)) return r;
  r.where_ = resolve_db(options.db);
  Status st = data::RunStore::check_can_create(r.where_.path);
  if (st.is_ok()) {
    std::error_code ec;
    if (std::filesystem::exists(r.where_.path, ec)) {
      Result<data::RunStore> store =
          data::RunStore::open(r.where_.path, data::StoreAccess::kCreate);
      if (store.is_ok()) {
        r.store_.emplace(std::move(store).value());
      } else {
        st = store.status();
      }
    }
  }
  if (!st.is_ok()) {
    if (r.where_.named) return Status(st).with_context("cannot record the run");
    print_warning(st.message() + "; the run is not recorded (pass --db PATH or --no-record)");
    return r;
  }
  r.active_ = true;
  return r;
}

int RunRecorder::record(const data::NewRun& run) { return record_each({&run}, false); }

int RunRecorder::record(const std::vector<data::NewRun>& runs) {
  std::vector<const data::NewRun*> each;
  each.reserve(runs.size());
  for (const data::NewRun& r : runs) each.push_back(&r);
  return record_each(each, false);
}

int RunRecorder::record_derived(const data::NewRun& first, const data::NewRun& second) {
  return record_each({&first, &second}, true);
}

int RunRecorder::record_each(const std::vector<const data::NewRun*>& runs, bool chained) {
  if (!active_ || runs.empty()) return kExitOk;
  Status st = Status::ok();
  if (!store_) {
    Result<data::RunStore> store = data::RunStore::open(where_.path, data::StoreAccess::kCreate);
    if (store.is_ok()) {
      store_.emplace(std::move(store).value());
    } else {
      st = store.status();
    }
  }
  std::vector<int64_t> ids;
  for (const data::NewRun* run : runs) {
    if (!st.is_ok()) break;
    Result<int64_t> added = [&] {
      if ((!chained || ids.empty()) && label_.empty()) return store_->add_run(*run);
      data::NewRun labelled = *run;
      if (chained && !ids.empty()) labelled.inputs.push_back(ids.back());
      if (!label_.empty()) labelled.label = label_;
      return store_->add_run(labelled);
    }();
    if (added.is_ok()) {
      ids.push_back(*added);
    } else {
      st = added.status();
    }
  }
  if (chained && !st.is_ok()) {
    // A chain is recorded whole or not at all.
    for (const int64_t id : ids) (void)store_->delete_run(id);
    ids.clear();
  }
  if (!ids.empty() && !quiet_) {
    if (chained && ids.size() == 2) {
      std::cerr << fmt::format(
          "recorded runs {} ({}) and {} ({}) in {}; 'shardlab runs diff {}' compares them\n",
          ids[0], data::to_string(runs[0]->kind), ids[1], data::to_string(runs[1]->kind),
          shown(where_.path), ids[1]);
    } else {
      std::cerr << fmt::format("recorded run{} {} in {}\n", ids.size() == 1 ? "" : "s",
                               format_id_list(ids), shown(where_.path));
    }
  }
  if (st.is_ok()) return kExitOk;
  // The verb's own outputs are written by now; only the exit status is left to decide.
  const std::string msg = fmt::format("run not recorded: {}", st.message());
  if (where_.named) {
    print_error(msg);
    return exit_status(st);
  }
  print_warning(msg + " (pass --db PATH or --no-record)");
  return kExitOk;
}

}  // namespace shardlab::cli
