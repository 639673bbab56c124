// The run store on SQLiteCpp. Every public method catches SQLite's (and
// nlohmann-json's) exceptions and returns a Status naming the file; nothing
// thrown here leaves data/.
//
// Writes run in BEGIN IMMEDIATE transactions: the write lock is taken up
// front, so two writers queue on the busy timeout instead of one of them
// failing with SQLITE_BUSY when it upgrades a read lock (which the busy
// handler cannot resolve).

#include "shardlab/data/run_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <exception>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "run_store_internal.h"

#ifndef SHARDLAB_VERSION
#define SHARDLAB_VERSION "unknown"
#endif

namespace shardlab::data {

using internal::kRunStoreApplicationId;

struct RunStore::Impl {
  Impl(std::string p, int flags) : path(std::move(p)), db(path, flags, kBusyTimeoutMs) {}
  std::string path;
  SQLite::Database db;
};

namespace {

// An SQLite failure as a Status naming the file and what was being done.
// Errors that mean the file itself is bad get advice on what to do.
Status store_error(const std::string& path, const char* doing, const std::exception& e) {
  std::string msg = fmt::format("{}: {}: {}", path, doing, e.what());
  if (const auto* se = dynamic_cast<const SQLite::Exception*>(&e)) {
    const int code = se->getErrorCode();
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
      msg +=
          " (the file is not a ShardLab run store or is damaged; move it away or pass another "
          "--db)";
    } else if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
      msg += fmt::format(" (another process held the store for more than {} ms)", kBusyTimeoutMs);
    }
  }
  return Status::io_error(std::move(msg));
}

Status corrupt_row(const std::string& path, const char* table, const char* column,
                   const std::string& value) {
  return Status::io_error(
      fmt::format("{}: table {}: column {} holds unknown value '{}' (damaged run store?)", path,
                  table, column, value));
}

Status no_run(const std::string& path, int64_t id) {
  return Status::invalid_scenario(fmt::format("{}: no run {}", path, id));
}

// Validates and normalises a summary: a JSON object, written compactly in
// its own key order.
Result<std::string> normalised_summary(const std::string& text) {
  if (text.empty()) return std::string("{}");
  nlohmann::ordered_json j =
      nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::invalid_scenario("run summary_json must be a JSON object, got: " +
                                    text.substr(0, 80));
  }
  return j.dump();
}

int user_version(SQLite::Database& db) { return db.execAndGet("PRAGMA user_version").getInt(); }

// Applies the migrations past the file's version, one transaction each. The
// version is read again inside each transaction, so when two processes open
// a new file at once the second finds the step done and skips it.
void migrate(SQLite::Database& db) {
  // The usual case needs no write lock: readers beside a writer stay readers.
  if (user_version(db) >= internal::migrations().back().version) return;
  for (const internal::Migration& m : internal::migrations()) {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    if (user_version(db) >= m.version) continue;  // tx rolls back: nothing was written
    db.exec(m.sql);
    db.exec(fmt::format("PRAGMA application_id = {}", kRunStoreApplicationId));
    db.exec(fmt::format("PRAGMA user_version = {}", m.version));
    tx.commit();
  }
}

// Connection settings every store gets. WAL keeps committed runs whole across
// a killed writer and lets readers run beside a writer; NORMAL sync loses
// nothing on a process crash (only on power loss, the last transactions).
//
// Switching a new file to WAL needs an exclusive lock, and SQLite answers
// SQLITE_BUSY at once, without the busy handler, while another connection
// holds any lock (two processes creating one store). So the switch is retried
// for up to kBusyTimeoutMs. A file already in WAL mode needs no lock.
void configure(SQLite::Database& db, bool in_memory) {
  if (!in_memory && db.execAndGet("PRAGMA journal_mode").getString() != "wal") {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (;;) {
      try {
        const std::string mode = db.execAndGet("PRAGMA journal_mode = WAL").getString();
        if (mode != "wal") {
          throw std::runtime_error("cannot switch the journal to WAL mode (got " + mode + ")");
        }
        break;
      } catch (const SQLite::Exception& e) {
        const int code = e.getErrorCode();
        if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) ||
            std::chrono::steady_clock::now() >= deadline) {
          throw;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
}

}  // namespace

Result<RunStore> RunStore::open_connection(const std::string& path, bool in_memory) {
  std::unique_ptr<Impl> impl;
  const char* doing = "cannot open the run store";
  try {
    impl = std::make_unique<Impl>(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    // The first read of the file: a file that is not a database fails here.
    doing = "cannot read the run store";
    const int version = user_version(impl->db);
    const int app_id = impl->db.execAndGet("PRAGMA application_id").getInt();
    if (version > kRunStoreSchemaVersion) {
      return Status::invalid_scenario(
          fmt::format("{}: run store schema version {} is newer than the version this ShardLab "
                      "supports ({}); use a newer "
                      "ShardLab or another --db file",
                      path, version, kRunStoreSchemaVersion));
    }
    if ((app_id != 0 && app_id != kRunStoreApplicationId) ||
        (version > 0 && app_id != kRunStoreApplicationId)) {
      return Status::io_error(
          fmt::format("{}: not a ShardLab run store (an SQLite database of another application: "
                      "application_id {}, "
                      "user_version {}); pass another --db file",
                      path, app_id, version));
    }
    doing = "cannot set up the run store";
    configure(impl->db, in_memory);
    doing = "cannot create or upgrade the run store's tables";
    migrate(impl->db);
  } catch (const std::exception& e) {
    return store_error(path, doing, e);
  }
  return RunStore(std::move(impl));
}

namespace {

// --- writing ---------------------------------------------------------------

void insert_estimates(SQLite::Database& db, int64_t run_id, const std::vector<EstimateRow>& rows) {
  if (rows.empty()) return;
  SQLite::Statement st(
      db,
      "INSERT INTO estimates (run_id, seq, fqn, table_name, shard, rank, sharding_type, "
      "compute_kernel, rows, cols, row_offset, col_offset, fwd_compute_ms, fwd_comms_ms, "
      "bwd_compute_ms, bwd_comms_ms, prefetch_ms, hbm_bytes, ddr_bytes) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  int64_t seq = 0;
  for (const EstimateRow& r : rows) {
    int i = 1;
    st.bind(i++, run_id);
    st.bind(i++, seq++);
    st.bindNoCopy(i++, r.fqn);
    st.bindNoCopy(i++, r.table);
    st.bind(i++, r.shard);
    st.bind(i++, r.rank);
    st.bind(i++, std::string(planner::to_string(r.sharding_type)));
    st.bind(i++, std::string(planner::to_string(r.compute_kernel)));
    st.bind(i++, static_cast<int64_t>(r.rows));
    st.bind(i++, static_cast<int64_t>(r.cols));
    st.bind(i++, static_cast<int64_t>(r.row_offset));
    st.bind(i++, static_cast<int64_t>(r.col_offset));
    st.bind(i++, r.fwd_compute_ms);
    st.bind(i++, r.fwd_comms_ms);
    st.bind(i++, r.bwd_compute_ms);
    st.bind(i++, r.bwd_comms_ms);
    st.bind(i++, r.prefetch_ms);
    st.bind(i++, static_cast<int64_t>(r.hbm_bytes));
    st.bind(i++, static_cast<int64_t>(r.ddr_bytes));
    st.exec();
    st.reset();
  }
}

void insert_sim_phases(SQLite::Database& db, int64_t run_id, const std::vector<SimPhaseRow>& rows) {
  if (rows.empty()) return;
  SQLite::Statement st(
      db,
      "INSERT INTO sim_phases (run_id, seq, rank, phase, stream, iteration, start_ms, end_ms, "
      "bytes, tables) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  int64_t seq = 0;
  for (const SimPhaseRow& r : rows) {
    int i = 1;
    st.bind(i++, run_id);
    st.bind(i++, seq++);
    st.bind(i++, r.rank);
    st.bind(i++, std::string(sim::to_string(r.phase)));
    st.bind(i++, std::string(sim::to_string(r.stream)));
    st.bind(i++, r.iteration);
    st.bind(i++, r.start_ms);
    st.bind(i++, r.end_ms);
    st.bind(i++, r.bytes);
    st.bind(i++, r.tables);
    st.exec();
    st.reset();
  }
}

void insert_measurements(SQLite::Database& db, int64_t run_id,
                         const std::vector<kernels::Measurement>& rows) {
  if (rows.empty()) return;
  SQLite::Statement st(
      db,
      "INSERT INTO measurements (run_id, seq, rank, phase, option_index, shard, table_name, "
      "sharding_type, compute_kernel, dim, precision, bags, pooling_factor, collective, "
      "collective_kind, members, inter_host, bytes, model_bytes, estimated_ms, median_ms, p90_ms, "
      "min_ms, samples, wrong_elements) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  int64_t seq = 0;
  for (const kernels::Measurement& m : rows) {
    int i = 1;
    st.bind(i++, run_id);
    st.bind(i++, seq++);
    st.bind(i++, m.rank);
    st.bind(i++, std::string(sim::to_string(m.phase)));
    st.bind(i++, m.option);
    st.bind(i++, m.shard);
    st.bindNoCopy(i++, m.table);
    st.bind(i++, std::string(planner::to_string(m.sharding_type)));
    st.bind(i++, std::string(planner::to_string(m.compute_kernel)));
    st.bind(i++, static_cast<int64_t>(m.dim));
    st.bind(i++, std::string(kernels::to_string(m.precision)));
    st.bind(i++, static_cast<int64_t>(m.bags));
    st.bind(i++, m.pooling_factor);
    st.bind(i++, m.collective);
    st.bind(i++, std::string(sim::to_string(m.collective_kind)));
    st.bind(i++, m.members);
    st.bind(i++, m.inter_host ? 1 : 0);
    st.bind(i++, m.bytes);
    st.bind(i++, m.model_bytes);
    st.bind(i++, m.estimated_ms);
    st.bind(i++, m.timing.median_ms);
    st.bind(i++, m.timing.p90_ms);
    st.bind(i++, m.timing.min_ms);
    st.bind(i++, m.timing.samples);
    st.bind(i++, static_cast<int64_t>(m.wrong_elements));
    st.exec();
    st.reset();
  }
}

void insert_calibration(SQLite::Database& db, int64_t run_id, const CalibrationRow& c) {
  SQLite::Statement st(
      db,
      "INSERT INTO calibrations (run_id, name, profile_json, mape_before, mape_after, fit_count, "
      "held_out_count) VALUES (?, ?, ?, ?, ?, ?, ?)");
  st.bind(1, run_id);
  st.bindNoCopy(2, c.name);
  st.bindNoCopy(3, c.profile_json);
  st.bind(4, c.mape_before);
  st.bind(5, c.mape_after);
  st.bind(6, c.fit_count);
  st.bind(7, c.held_out_count);
  st.exec();
}

bool run_exists(SQLite::Database& db, int64_t id) {
  SQLite::Statement st(db, "SELECT 1 FROM runs WHERE id = ?");
  st.bind(1, id);
  return st.executeStep();
}

// --- reading ---------------------------------------------------------------

constexpr const char* kSummaryColumns =
    "id, kind, created_at, scenario_name, scenario_hash, shardlab_version, host, device, backend, "
    "summary_json, "
    "estimate_count, sim_phase_count, measurement_count, "
    "EXISTS (SELECT 1 FROM calibrations c WHERE c.run_id = runs.id), torchrec_version";

Result<RunSummary> read_summary(const std::string& path, SQLite::Statement& st) {
  RunSummary s;
  s.id = st.getColumn(0).getInt64();
  const std::string kind = st.getColumn(1).getString();
  std::optional<RunKind> k = parse_run_kind(kind);
  if (!k) return corrupt_row(path, "runs", "kind", kind);
  s.kind = *k;
  s.created_at = st.getColumn(2).getString();
  s.scenario_name = st.getColumn(3).getString();
  s.scenario_hash = st.getColumn(4).getString();
  s.shardlab_version = st.getColumn(5).getString();
  s.host = st.getColumn(6).getString();
  s.device = st.getColumn(7).getString();
  s.backend = st.getColumn(8).getString();
  s.summary_json = st.getColumn(9).getString();
  s.estimate_count = st.getColumn(10).getInt64();
  s.sim_phase_count = st.getColumn(11).getInt64();
  s.measurement_count = st.getColumn(12).getInt64();
  s.has_calibration = st.getColumn(13).getInt() != 0;
  s.torchrec_version = st.getColumn(14).getString();
  return s;
}

Status read_estimates(const std::string& path, SQLite::Database& db, int64_t id,
                      std::vector<EstimateRow>* out) {
  SQLite::Statement st(
      db,
      "SELECT fqn, table_name, shard, rank, sharding_type, compute_kernel, rows, cols, row_offset, "
      "col_offset, fwd_compute_ms, fwd_comms_ms, bwd_compute_ms, bwd_comms_ms, prefetch_ms, "
      "hbm_bytes, ddr_bytes FROM estimates WHERE run_id = ? ORDER BY seq");
  st.bind(1, id);
  while (st.executeStep()) {
    EstimateRow r;
    r.fqn = st.getColumn(0).getString();
    r.table = st.getColumn(1).getString();
    r.shard = st.getColumn(2).getInt();
    r.rank = st.getColumn(3).getInt();
    const std::string type = st.getColumn(4).getString();
    const std::string kernel = st.getColumn(5).getString();
    std::optional<planner::ShardingType> t = planner::parse_sharding_type(type);
    if (!t) return corrupt_row(path, "estimates", "sharding_type", type);
    std::optional<planner::ComputeKernel> k = planner::parse_compute_kernel(kernel);
    if (!k) return corrupt_row(path, "estimates", "compute_kernel", kernel);
    r.sharding_type = *t;
    r.compute_kernel = *k;
    r.rows = st.getColumn(6).getInt64();
    r.cols = st.getColumn(7).getInt64();
    r.row_offset = st.getColumn(8).getInt64();
    r.col_offset = st.getColumn(9).getInt64();
    r.fwd_compute_ms = st.getColumn(10).getDouble();
    r.fwd_comms_ms = st.getColumn(11).getDouble();
    r.bwd_compute_ms = st.getColumn(12).getDouble();
    r.bwd_comms_ms = st.getColumn(13).getDouble();
    r.prefetch_ms = st.getColumn(14).getDouble();
    r.hbm_bytes = st.getColumn(15).getInt64();
    r.ddr_bytes = st.getColumn(16).getInt64();
    out->push_back(std::move(r));
  }
  return Status::ok();
}

Status read_sim_phases(const std::string& path, SQLite::Database& db, int64_t id,
                       std::vector<SimPhaseRow>* out) {
  SQLite::Statement st(
      db,
      "SELECT rank, phase, stream, iteration, start_ms, end_ms, bytes, tables FROM sim_phases "
      "WHERE run_id = ? ORDER BY seq");
  st.bind(1, id);
  while (st.executeStep()) {
    SimPhaseRow r;
    r.rank = st.getColumn(0).getInt();
    const std::string phase = st.getColumn(1).getString();
    const std::string stream = st.getColumn(2).getString();
    std::optional<sim::Phase> p = internal::parse_phase(phase);
    if (!p) return corrupt_row(path, "sim_phases", "phase", phase);
    std::optional<sim::Stream> s = internal::parse_stream(stream);
    if (!s) return corrupt_row(path, "sim_phases", "stream", stream);
    r.phase = *p;
    r.stream = *s;
    r.iteration = st.getColumn(3).getInt();
    r.start_ms = st.getColumn(4).getDouble();
    r.end_ms = st.getColumn(5).getDouble();
    r.bytes = st.getColumn(6).getDouble();
    r.tables = st.getColumn(7).getInt();
    out->push_back(r);
  }
  return Status::ok();
}

Status read_measurements(const std::string& path, SQLite::Database& db, int64_t id,
                         std::vector<kernels::Measurement>* out) {
  SQLite::Statement st(
      db,
      "SELECT rank, phase, option_index, shard, table_name, sharding_type, compute_kernel, dim, "
      "precision, bags, pooling_factor, collective, collective_kind, members, inter_host, bytes, "
      "model_bytes, estimated_ms, median_ms, p90_ms, min_ms, samples, wrong_elements "
      "FROM measurements WHERE run_id = ? ORDER BY seq");
  st.bind(1, id);
  while (st.executeStep()) {
    kernels::Measurement m;
    m.rank = st.getColumn(0).getInt();
    const std::string phase = st.getColumn(1).getString();
    std::optional<sim::Phase> p = internal::parse_phase(phase);
    if (!p) return corrupt_row(path, "measurements", "phase", phase);
    m.phase = *p;
    m.option = st.getColumn(2).getInt();
    m.shard = st.getColumn(3).getInt();
    m.table = st.getColumn(4).getString();
    const std::string type = st.getColumn(5).getString();
    std::optional<planner::ShardingType> t = planner::parse_sharding_type(type);
    if (!t) return corrupt_row(path, "measurements", "sharding_type", type);
    m.sharding_type = *t;
    const std::string kernel = st.getColumn(6).getString();
    std::optional<planner::ComputeKernel> k = planner::parse_compute_kernel(kernel);
    if (!k) return corrupt_row(path, "measurements", "compute_kernel", kernel);
    m.compute_kernel = *k;
    m.dim = st.getColumn(7).getInt64();
    const std::string precision = st.getColumn(8).getString();
    std::optional<kernels::Precision> pr = internal::parse_precision(precision);
    if (!pr) return corrupt_row(path, "measurements", "precision", precision);
    m.precision = *pr;
    m.bags = st.getColumn(9).getInt64();
    m.pooling_factor = st.getColumn(10).getDouble();
    m.collective = st.getColumn(11).getInt();
    const std::string ckind = st.getColumn(12).getString();
    std::optional<sim::CollectiveKind> ck = internal::parse_collective_kind(ckind);
    if (!ck) return corrupt_row(path, "measurements", "collective_kind", ckind);
    m.collective_kind = *ck;
    m.members = st.getColumn(13).getInt();
    m.inter_host = st.getColumn(14).getInt() != 0;
    m.bytes = st.getColumn(15).getDouble();
    m.model_bytes = st.getColumn(16).getDouble();
    m.estimated_ms = st.getColumn(17).getDouble();
    m.timing.median_ms = st.getColumn(18).getDouble();
    m.timing.p90_ms = st.getColumn(19).getDouble();
    m.timing.min_ms = st.getColumn(20).getDouble();
    m.timing.samples = st.getColumn(21).getInt();
    m.wrong_elements = st.getColumn(22).getInt64();
    out->push_back(std::move(m));
  }
  return Status::ok();
}

std::optional<CalibrationRow> read_calibration(SQLite::Database& db, int64_t id) {
  SQLite::Statement st(
      db,
      "SELECT name, profile_json, mape_before, mape_after, fit_count, held_out_count "
      "FROM calibrations WHERE run_id = ?");
  st.bind(1, id);
  if (!st.executeStep()) return std::nullopt;
  CalibrationRow c;
  c.name = st.getColumn(0).getString();
  c.profile_json = st.getColumn(1).getString();
  c.mape_before = st.getColumn(2).getDouble();
  c.mape_after = st.getColumn(3).getDouble();
  c.fit_count = st.getColumn(4).getInt();
  c.held_out_count = st.getColumn(5).getInt();
  return c;
}

}  // namespace

// --- RunStore ----------------------------------------------------------------

RunStore::RunStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunStore::RunStore(RunStore&&) noexcept = default;
RunStore& RunStore::operator=(RunStore&&) noexcept = default;
RunStore::~RunStore() = default;

Result<RunStore> RunStore::open(const std::string& path) {
  if (path.empty()) return Status::invalid_scenario("run store path is empty");
  if (path == ":memory:")
    return Status::invalid_scenario("use RunStore::open_in_memory() for ':memory:'");
  return open_connection(path, /*in_memory=*/false);
}

Result<RunStore> RunStore::open_in_memory() {
  return open_connection(":memory:", /*in_memory=*/true);
}

const std::string& RunStore::path() const { return impl_->path; }

Result<int64_t> RunStore::add_run(const NewRun& run) {
  Result<std::string> summary = normalised_summary(run.summary_json);
  if (!summary) return summary.status().with_context(impl_->path);
  SQLite::Database& db = impl_->db;
  try {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    for (int64_t input : run.inputs) {
      if (!run_exists(db, input)) {
        return Status::invalid_scenario(
            fmt::format("{}: input run {} does not exist", impl_->path, input));
      }
    }
    SQLite::Statement st(
        db,
        "INSERT INTO runs (kind, created_at, scenario_name, scenario_hash, scenario_json, "
        "plan_json, summary_json, shardlab_version, host, device, backend, estimate_count, "
        "sim_phase_count, measurement_count, torchrec_version) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    int i = 1;
    st.bind(i++, std::string(to_string(run.kind)));
    st.bind(i++, internal::utc_timestamp_now());
    st.bindNoCopy(i++, run.scenario_name);
    st.bind(i++, internal::fnv1a64_hex(run.scenario_json));
    st.bindNoCopy(i++, run.scenario_json);
    st.bindNoCopy(i++, run.plan_json);
    st.bindNoCopy(i++, *summary);
    st.bind(i++, std::string(SHARDLAB_VERSION));
    st.bind(i++, internal::host_name());
    st.bindNoCopy(i++, run.device);
    st.bindNoCopy(i++, run.backend);
    st.bind(i++, static_cast<int64_t>(run.estimates.size()));
    st.bind(i++, static_cast<int64_t>(run.sim_phases.size()));
    st.bind(i++, static_cast<int64_t>(run.measurements.size()));
    st.bindNoCopy(i++, run.torchrec_version);
    st.exec();
    const int64_t id = db.getLastInsertRowid();
    insert_estimates(db, id, run.estimates);
    insert_sim_phases(db, id, run.sim_phases);
    insert_measurements(db, id, run.measurements);
    if (run.calibration) insert_calibration(db, id, *run.calibration);
    if (!run.inputs.empty()) {
      SQLite::Statement in(db,
                           "INSERT OR IGNORE INTO run_inputs (run_id, input_run_id) VALUES (?, ?)");
      for (int64_t input : run.inputs) {
        in.bind(1, id);
        in.bind(2, input);
        in.exec();
        in.reset();
      }
    }
    tx.commit();
    return id;
  } catch (const std::exception& e) {
    return store_error(impl_->path, "cannot record the run", e);
  }
}

Result<std::vector<RunSummary>> RunStore::list_runs(const RunFilter& filter) const {
  SQLite::Database& db = impl_->db;
  try {
    SQLite::Statement st(db,
                         fmt::format("SELECT {} FROM runs WHERE (?1 IS NULL OR kind = ?1) AND "
                                     "(?2 IS NULL OR scenario_name = ?2) ORDER BY id DESC LIMIT ?3",
                                     kSummaryColumns));
    if (filter.kind) st.bind(1, std::string(to_string(*filter.kind)));
    if (filter.scenario) st.bind(2, *filter.scenario);
    st.bind(3, static_cast<int64_t>(filter.limit > 0 ? filter.limit : -1));
    std::vector<RunSummary> out;
    while (st.executeStep()) {
      Result<RunSummary> s = read_summary(impl_->path, st);
      if (!s) return s.status();
      out.push_back(std::move(s).value());
    }
    return out;
  } catch (const std::exception& e) {
    return store_error(impl_->path, "cannot list runs", e);
  }
}

Result<StoredRun> RunStore::get_run(int64_t id) const {
  SQLite::Database& db = impl_->db;
  try {
    // One read transaction: the run and its rows come from one snapshot even
    // if another process deletes the run meanwhile.
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::DEFERRED);
    SQLite::Statement st(
        db,
        fmt::format("SELECT {}, scenario_json, plan_json FROM runs WHERE id = ?", kSummaryColumns));
    st.bind(1, id);
    if (!st.executeStep()) return no_run(impl_->path, id);
    StoredRun run;
    Result<RunSummary> s = read_summary(impl_->path, st);
    if (!s) return s.status();
    run.summary = std::move(s).value();
    run.scenario_json = st.getColumn(15).getString();
    run.plan_json = st.getColumn(16).getString();
    if (Status r = read_estimates(impl_->path, db, id, &run.estimates); !r) return r;
    if (Status r = read_sim_phases(impl_->path, db, id, &run.sim_phases); !r) return r;
    if (Status r = read_measurements(impl_->path, db, id, &run.measurements); !r) return r;
    run.calibration = read_calibration(db, id);
    SQLite::Statement in(
        db, "SELECT input_run_id FROM run_inputs WHERE run_id = ? ORDER BY input_run_id");
    in.bind(1, id);
    while (in.executeStep()) run.inputs.push_back(in.getColumn(0).getInt64());
    return run;
  } catch (const std::exception& e) {
    return store_error(impl_->path, fmt::format("cannot read run {}", id).c_str(), e);
  }
}

Status RunStore::delete_run(int64_t id) {
  SQLite::Database& db = impl_->db;
  try {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement st(db, "DELETE FROM runs WHERE id = ?");
    st.bind(1, id);
    if (st.exec() == 0) return no_run(impl_->path, id);
    tx.commit();
    return Status::ok();
  } catch (const std::exception& e) {
    return store_error(impl_->path, fmt::format("cannot delete run {}", id).c_str(), e);
  }
}

Result<std::vector<kernels::Measurement>> RunStore::measurements(
    const std::vector<int64_t>& run_ids) const {
  SQLite::Database& db = impl_->db;
  try {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::DEFERRED);
    std::vector<kernels::Measurement> out;
    for (int64_t id : run_ids) {
      if (!run_exists(db, id)) return no_run(impl_->path, id);
      if (Status r = read_measurements(impl_->path, db, id, &out); !r) return r;
    }
    return out;
  } catch (const std::exception& e) {
    return store_error(impl_->path, "cannot read measurements", e);
  }
}

Status RunStore::check_integrity() const {
  SQLite::Database& db = impl_->db;
  try {
    std::vector<std::string> problems;
    {
      SQLite::Statement st(db, "PRAGMA integrity_check(20)");
      while (st.executeStep()) {
        const std::string line = st.getColumn(0).getString();
        if (line != "ok") problems.push_back(line);
      }
    }
    {
      SQLite::Statement st(db, "PRAGMA foreign_key_check");
      while (st.executeStep()) {
        problems.push_back(fmt::format("table {} row {} refers to a missing row of {}",
                                       st.getColumn(0).getString(), st.getColumn(1).getInt64(),
                                       st.getColumn(2).getString()));
      }
    }
    {
      SQLite::Statement st(
          db,
          "SELECT id, estimate_count, (SELECT COUNT(*) FROM estimates e WHERE e.run_id = runs.id), "
          "sim_phase_count, (SELECT COUNT(*) FROM sim_phases p WHERE p.run_id = runs.id), "
          "measurement_count, (SELECT COUNT(*) FROM measurements m WHERE m.run_id = runs.id) "
          "FROM runs ORDER BY id");
      while (st.executeStep()) {
        const int64_t id = st.getColumn(0).getInt64();
        const char* names[] = {"estimates", "sim_phases", "measurements"};
        for (int t = 0; t < 3; ++t) {
          const int64_t want = st.getColumn(1 + 2 * t).getInt64();
          const int64_t have = st.getColumn(2 + 2 * t).getInt64();
          if (want != have) {
            problems.push_back(
                fmt::format("run {} should have {} {} rows but has {}", id, want, names[t], have));
          }
        }
      }
    }
    if (problems.empty()) return Status::ok();
    std::string msg = impl_->path + ": integrity check failed:";
    const size_t shown = std::min<size_t>(problems.size(), 10);
    for (size_t i = 0; i < shown; ++i) msg += "\n  " + problems[i];
    if (shown < problems.size()) msg += fmt::format("\n  ... {} more", problems.size() - shown);
    return Status::io_error(msg);
  } catch (const std::exception& e) {
    return store_error(impl_->path, "cannot check the run store", e);
  }
}

}  // namespace shardlab::data
