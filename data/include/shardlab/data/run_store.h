// The run store: every plan, simulation, replay and calibration ShardLab runs,
// kept in one SQLite file so runs can be listed, exported and compared later
// (docs/run-store.md). data/ owns the schema; nobody else writes SQL, and no
// SQLite type crosses this header.
//
// What a run holds (NewRun below): its kind, the scenario JSON text, the plan
// JSON, a small summary JSON object of headline numbers, the device and
// backend, and row sets: per-shard estimates, simulated phase times, measured
// phase times (kernels::Measurement), and a calibration profile with its fit
// errors. The store adds the id, the creation time, a hash of the scenario
// text, the ShardLab version and the host name.
//
// Durability and concurrency:
//  - the file is in WAL mode with synchronous=NORMAL: a process killed at any
//    point (SIGKILL included) loses at most the run it was writing; every run
//    committed before is whole when the file is opened again;
//  - add_run and delete_run are one transaction each (BEGIN IMMEDIATE), so a
//    reader sees a run with all of its rows or not at all;
//  - several processes may write the same file at once: a writer waits up to
//    kBusyTimeoutMs for another's transaction instead of failing.
//
// Files that are not run stores are never changed: open() looks at a file
// before it writes anything, and refuses, leaving the file byte for byte as
// it was,
//  - a file that is not an SQLite database (a 1-byte file, a JSON file);
//  - an SQLite database of another program (another application_id, or any
//    tables or user_version without ShardLab's application_id);
//  - a run store written by a newer ShardLab (a higher schema version);
//  - for writing, a run store that fails SQLite's quick check (damaged
//    pages): runs added to it could be lost with it. `shardlab runs check`
//    reports what is wrong.
// Only a missing file, an empty (0-byte) file or an empty SQLite database
// becomes a new store, and only when opened with StoreAccess::kCreate.
//
// Errors are Status values, never exceptions: a file that is not a run
// store or is damaged, a schema newer than this build knows, a full disk.
// Messages name the file.
//
// Thread safety: a RunStore is one connection and is used by one thread at a
// time. Separate RunStore objects (in one process or several) may use the
// same file concurrently. A moved-from RunStore may only be destroyed or
// assigned to.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardlab/kernels/measurement.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/types.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::data {

// The schema version this build writes and reads (PRAGMA user_version). A
// file with a higher version was written by a newer ShardLab and is refused.
inline constexpr int kRunStoreSchemaVersion = 5;

// How long a writer waits for another connection's transaction, ms.
inline constexpr int kBusyTimeoutMs = 10000;

// The store's file when neither --db nor SHARDLAB_DB names one: this name in
// the working directory.
inline constexpr const char* kDefaultRunStoreFile = "shardlab.db";

// kTrace: a profiler trace of a real run, summarized (shardlab trace
// summarize): measured numbers beside the simulations of the same job.
enum class RunKind { kPlan, kSimulate, kReplay, kCalibrate, kOptimize, kTrace };
// "plan", "simulate", "replay", "calibrate", "optimize", "trace"
std::string_view to_string(RunKind k);
std::optional<RunKind> parse_run_kind(std::string_view s);  // inverse of to_string
// Every kind's name, in declaration order: for --kind's choices and messages.
const std::vector<std::string>& run_kind_names();

// One shard of a plan with TorchRec's estimates for it (docs/cost-model.md).
struct EstimateRow {
  std::string fqn;    // "<module path>.<table name>"
  std::string table;  // table name
  int shard = 0;      // index of the shard within its option
  int rank = -1;      // -1: not placed
  planner::ShardingType sharding_type = planner::ShardingType::kTableWise;
  planner::ComputeKernel compute_kernel = planner::ComputeKernel::kFused;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_offset = 0;
  int64_t col_offset = 0;
  double fwd_compute_ms = 0.0;
  double fwd_comms_ms = 0.0;
  double bwd_compute_ms = 0.0;
  double bwd_comms_ms = 0.0;
  double prefetch_ms = 0.0;
  int64_t hbm_bytes = 0;
  int64_t ddr_bytes = 0;

  // Sum of the five perf terms, in TorchRec's order (planner::Perf::total()).
  double total_ms() const;
};

// One simulated phase of one rank (sim::PhaseRecord plus its rank).
struct SimPhaseRow {
  int rank = 0;
  sim::Phase phase = sim::Phase::kFwdCompute;
  sim::Stream stream = sim::Stream::kCompute;
  int iteration = 0;
  double start_ms = 0.0;
  double end_ms = 0.0;
  double bytes = 0.0;  // bytes this rank sends in a comm phase
  int tables = 0;      // shards of this rank the phase covers
};

// A fitted cost-model profile. mape_* are mean absolute percentage errors of
// the model against measurements, in percent, before and after the fit
// (computed on the held-out measurements when held_out_count > 0).
struct CalibrationRow {
  std::string name;          // the profile's name
  std::string profile_json;  // the profile document (calibration_json.h)
  double mape_before = 0.0;
  double mape_after = 0.0;
  int fit_count = 0;       // measurements the fit used
  int held_out_count = 0;  // measurements kept out of the fit to score it
};

// What a verb hands to add_run.
struct NewRun {
  RunKind kind = RunKind::kPlan;
  std::string scenario_name;
  std::string scenario_json;  // the scenario file's text, as read
  std::string plan_json;      // plan_to_json's document; may be empty
  // A JSON object of the run's headline numbers, e.g. {"rating_ms": 1.5},
  // {"iteration_ms": 2.1}, {"mape_before": 31.0, "mape_after": 6.2}. Numbers
  // in it are compared by `shardlab runs diff`. Empty means {}. Must be a
  // JSON object: add_run refuses anything else.
  std::string summary_json;
  std::string device;   // e.g. "cuda", "NVIDIA H100 80GB HBM3", a CPU model
  std::string backend;  // replay backend ("cpu", "cuda"); empty for plan/simulate
  // The TorchRec planner model the run planned or rated with: "2024-02" or
  // "2026-08" (planner/torchrec_version.h); empty for runs that plan nothing.
  std::string torchrec_version;
  // The user's name for the run (--label), e.g. "baseline"; may be empty.
  std::string label;
  std::vector<EstimateRow> estimates;
  std::vector<SimPhaseRow> sim_phases;
  std::vector<kernels::Measurement> measurements;
  std::optional<CalibrationRow> calibration;
  // Runs this one was derived from, e.g. the replay runs whose measurements a
  // calibration fitted. Each must exist; the link goes when either run is
  // deleted.
  std::vector<int64_t> inputs;
};

// A run's metadata and row counts, without its rows.
struct RunSummary {
  int64_t id = 0;
  RunKind kind = RunKind::kPlan;
  std::string created_at;  // UTC, ISO-8601 with ms: "2025-01-31T17:04:05.123Z"
  std::string scenario_name;
  std::string scenario_hash;  // FNV-1a 64 of scenario_json's bytes, 16 lowercase hex digits
  std::string shardlab_version;
  std::string host;
  std::string device;
  std::string backend;
  std::string torchrec_version;  // "2024-02", "2026-08", or empty (see NewRun)
  std::string label;             // NewRun::label, or set_label's; may be empty
  std::string summary_json;      // always a JSON object ("{}" at least)
  int64_t estimate_count = 0;
  int64_t sim_phase_count = 0;
  int64_t measurement_count = 0;
  bool has_calibration = false;
};

// Everything a run holds. Row sets come back in the order they were added.
struct StoredRun {
  RunSummary summary;
  std::string scenario_json;
  std::string plan_json;
  std::vector<EstimateRow> estimates;
  std::vector<SimPhaseRow> sim_phases;
  std::vector<kernels::Measurement> measurements;
  std::optional<CalibrationRow> calibration;
  std::vector<int64_t> inputs;  // ascending
};

struct RunFilter {
  std::optional<RunKind> kind;          // only runs of this kind
  std::optional<std::string> scenario;  // only runs of this scenario name
  std::optional<std::string> label;     // only runs with this label
  int limit = 0;                        // newest `limit` runs; 0: all
};

// What a caller will do with a store; open() checks the file accordingly.
enum class StoreAccess {
  // list_runs, get_run, measurements, check_integrity only. The file must be
  // a run store; nothing is written to it, not even on opening (no journal
  // mode switch, no schema upgrade).
  kRead,
  // Also add_run and delete_run. The file must be a run store, at this
  // build's schema version or an older one (upgraded on opening), and pass
  // SQLite's quick check.
  kWrite,
  // As kWrite, and a missing file, an empty (0-byte) file or an empty SQLite
  // database becomes a new store.
  kCreate,
};

class RunStore {
 public:
  // Opens the store at `path` for `access` (the header comment says which
  // files are refused). kCreate and kWrite bring the schema up to
  // kRunStoreSchemaVersion (each migration step is one transaction;
  // concurrent openers migrate once). Fails with:
  //  - kInvalidArgument when the file is missing (kRead, kWrite) or its
  //    schema version is newer than this build's: "<path>: run store schema version 7 is newer than
  //    the version this ShardLab supports (1); use a newer ShardLab or another run store file";
  //  - io_error naming the file when it cannot be opened or created (its
  //    directory is missing or cannot be written), is not a run store, or is
  //    damaged (for kRead, only damage SQLite meets while opening);
  //  - io_error, for kWrite and kCreate, when the file or its file system is
  //    read-only, or the file system has less than 256 KiB free: refused
  //    before anything is written. A kRead opening on a disk without room for
  //    SQLite's index files (a full or read-only file system) reads the file
  //    as it is and creates none; when the store's write-ahead log holds runs
  //    it needs that room, and the io_error says so.
  // A store that this call began to create and could not is removed.
  static Result<RunStore> open(const std::string& path, StoreAccess access = StoreAccess::kCreate);
  // For a path with no file yet, whether open(path, kCreate) could create a
  // store there: an io_error naming the missing or unwritable directory, or
  // the full disk (under 256 KiB free), when not. Creates nothing; ok for an
  // existing path (open() judges those).
  static Status check_can_create(const std::string& path);

  // A private store in memory, gone when the object is destroyed (tests).
  static Result<RunStore> open_in_memory();

  RunStore(RunStore&&) noexcept;
  RunStore& operator=(RunStore&&) noexcept;
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;
  ~RunStore();

  // The file this store was opened on (":memory:" for open_in_memory()).
  const std::string& path() const;

  // Adds `run` and all of its rows in one transaction; returns its id (ids
  // grow and are never reused). Fails, writing nothing, when summary_json is
  // not a JSON object, an input run does not exist, SQLite fails, or the
  // store was opened with StoreAccess::kRead (internal).
  Result<int64_t> add_run(const NewRun& run);

  // Newest first (highest id first).
  Result<std::vector<RunSummary>> list_runs(const RunFilter& filter = {}) const;

  // A missing id is kInvalidArgument "<path>: no run <id>" (bad input, CLI
  // exit status 2).
  Result<StoredRun> get_run(int64_t id) const;

  // Deletes the run and all of its rows in one transaction. A missing id is
  // kNotFound ("<path>: no run <id>"); a store opened with StoreAccess::kRead
  // refuses (kInternal).
  Status delete_run(int64_t id);
  // Deletes the runs `ids` and all of their rows in one transaction: all or
  // none. A missing id is kNotFound as above and nothing is deleted; a store
  // opened with StoreAccess::kRead refuses (kInternal).
  Status delete_runs(const std::vector<int64_t>& ids);
  // Sets run `id`'s label ("" removes it). A missing id is kNotFound; a store
  // opened with StoreAccess::kRead refuses (kInternal).
  Status set_label(int64_t id, const std::string& label);
  // The runs `filter` selects (its limit ignored) beyond the newest `keep`
  // of them, newest first: what `shardlab runs prune --keep` deletes. Errors
  // as list_runs.
  Result<std::vector<int64_t>> runs_beyond(const RunFilter& filter, int keep) const;

  // The file's size before and after compact(), bytes.
  struct Compacted {
    int64_t bytes_before = 0;
    int64_t bytes_after = 0;
  };
  // Gives the space of deleted runs back to the file system: a checkpoint of
  // the write-ahead log, then SQLite's VACUUM (which needs room for a copy
  // of the store while it runs). kIo naming the file when SQLite fails (the
  // store is left as it was); a store opened with StoreAccess::kRead refuses
  // (kInternal).
  Result<Compacted> compact();

  // The measurements of `run_ids`, runs in the given order, each run's rows
  // in the order they were added (for calibration). A missing id is an error.
  Result<std::vector<kernels::Measurement>> measurements(const std::vector<int64_t>& run_ids) const;

  // SQLite's PRAGMA integrity_check and foreign_key_check, and that every
  // run has exactly the rows its counts say. io_error describing the first
  // problems when anything is wrong.
  Status check_integrity() const;

 private:
  struct Impl;  // the SQLite connection (run_store.cc)
  explicit RunStore(std::unique_ptr<Impl> impl);
  static Result<RunStore> open_connection(const std::string& path, StoreAccess access,
                                          bool in_memory);
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardlab::data
