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
#include <sys/stat.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "run_store_internal.h"
#include "shardlab/data/message_text.h"

#ifndef SHARDLAB_VERSION
#define SHARDLAB_VERSION "unknown"
#endif

namespace shardlab::data {

using internal::kRunStoreApplicationId;

struct RunStore::Impl {
  Impl(std::string p, int flags, StoreAccess a)
      : path(std::move(p)), access(a), db(path, flags, kBusyTimeoutMs) {}
  std::string path;
  StoreAccess access;
  SQLite::Database db;
};

namespace {

// What to do when the file is not a store: said once, used by every refusal.
constexpr const char* kLeftAlone =
    "ShardLab leaves it unchanged: move it away or name another run store file";

// An SQLite failure as a Status naming the file and what was being done.
// Errors that mean the file itself is bad get advice on what to do.
Status store_error(const std::string& path, const char* doing, const std::exception& e) {
  std::string msg = fmt::format("{}: {}: {}", path, doing, e.what());
  if (const auto* se = dynamic_cast<const SQLite::Exception*>(&e)) {
    const int code = se->getErrorCode();
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
      msg += fmt::format(" (the file is not a ShardLab run store or is damaged; {})", kLeftAlone);
      return Status::corrupt(printable(msg));
    } else if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
      msg += fmt::format(" (another process held the store for more than {} ms)", kBusyTimeoutMs);
    }
  }
  return Status::io_error(printable(msg));
}

Status corrupt_row(const std::string& path, const char* table, const char* column,
                   const std::string& value) {
  return Status::corrupt(
      printable(fmt::format("{}: table {}: column {} holds unknown value '{}' (damaged run store?)",
                            path, table, column, value)));
}

Status no_run(const std::string& path, int64_t id) {
  return Status::not_found(printable(fmt::format("{}: no run {}", path, id)));
}

Status read_only(const std::string& path, const char* doing) {
  return Status::internal(
      printable(fmt::format("{}: {}: the store was opened for reading only", path, doing)));
}

// Validates and normalises a summary: a JSON object, written compactly in
// its own key order.
Result<std::string> normalised_summary(const std::string& text) {
  if (text.empty()) return std::string("{}");
  nlohmann::ordered_json j =
      nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::invalid_argument("run summary_json must be a JSON object, got: " +
                                    printable(text.substr(0, 80)));
  }
  return j.dump();
}

int user_version(SQLite::Database& db) { return db.execAndGet("PRAGMA user_version").getInt(); }

// Runs `step` until it succeeds, retrying for up to kBusyTimeoutMs while
// SQLite answers SQLITE_BUSY or SQLITE_LOCKED without waiting itself: it
// does so while another connection switches a new file to WAL or recovers
// its WAL index, where the busy handler is not called.
template <typename Step>
auto retry_busy(Step&& step) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    try {
      return step();
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

// One migration step in its own transaction, skipped when the file is at its
// version already (another process migrated first). A step that rebuilds
// tables must leave every foreign key pointing somewhere.
void apply_step(SQLite::Database& db, const internal::Migration& m) {
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  if (user_version(db) >= m.version) return;  // tx rolls back: nothing was written
  db.exec(m.sql);
  if (m.rebuilds_tables) {
    SQLite::Statement check(db, "PRAGMA foreign_key_check");
    if (check.executeStep()) {
      throw std::runtime_error("schema upgrade to version " + std::to_string(m.version) +
                               " left rows whose foreign keys point nowhere");
    }
  }
  db.exec(fmt::format("PRAGMA application_id = {}", kRunStoreApplicationId));
  db.exec(fmt::format("PRAGMA user_version = {}", m.version));
  tx.commit();
}

// Applies the migrations past the file's version, one transaction each. The
// version is read again inside each transaction, so when two processes open
// a new file at once the second finds the step done and skips it.
void migrate(SQLite::Database& db) {
  // The usual case needs no write lock: readers beside a writer stay readers.
  if (user_version(db) >= internal::migrations().back().version) return;
  for (const internal::Migration& m : internal::migrations()) {
    // PRAGMA foreign_keys is a no-op inside a transaction: a step that
    // rebuilds tables has it off around its transaction (which ends inside
    // apply_step), and on again afterwards whatever happened.
    if (!m.rebuilds_tables) {
      apply_step(db, m);
      continue;
    }
    db.exec("PRAGMA foreign_keys = OFF");
    try {
      apply_step(db, m);
    } catch (...) {
      db.exec("PRAGMA foreign_keys = ON");
      throw;
    }
    db.exec("PRAGMA foreign_keys = ON");
  }
}

// Connection settings every writer gets. WAL keeps committed runs whole
// across a killed writer and lets readers run beside a writer; NORMAL sync
// loses nothing on a process crash (only on power loss, the last
// transactions).
//
// Switching a new file to WAL needs an exclusive lock, and SQLite answers
// SQLITE_BUSY at once, without the busy handler, while another connection
// holds any lock (two processes creating one store). So the switch is retried
// for up to kBusyTimeoutMs. A file already in WAL mode needs no lock.
void configure(SQLite::Database& db, bool in_memory) {
  if (!in_memory && db.execAndGet("PRAGMA journal_mode").getString() != "wal") {
    retry_busy([&] {
      const std::string mode = db.execAndGet("PRAGMA journal_mode = WAL").getString();
      if (mode != "wal") {
        throw std::runtime_error("cannot switch the journal to WAL mode (got " + mode + ")");
      }
      return 0;
    });
  }
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
}

// What a path holds, judged from its bytes before SQLite opens it (SQLite
// would take a file shorter than a page for an empty database and write over
// it).
enum class FileState { kMissing, kEmpty, kSqlite };

Result<FileState> inspect_file(const std::string& path, StoreAccess access) {
  namespace fs = std::filesystem;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT) {
      return Status::io_error(
          printable(fmt::format("{}: cannot open the run store: {}", path, std::strerror(err))));
    }
    if (access != StoreAccess::kCreate) {
      return Status::not_found(printable(fmt::format(
          "{}: no run store here (no such file; nothing has been recorded in it)", path)));
    }
    const fs::path dir = fs::path(path).parent_path();
    struct stat dst {};
    if (!dir.empty() && (::stat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode))) {
      return Status::io_error(printable(
          fmt::format("{}: cannot create the run store: no directory {}", path, dir.string())));
    }
    return FileState::kMissing;
  }
  if (S_ISDIR(st.st_mode)) {
    return Status::invalid_argument(
        printable(fmt::format("{}: not a run store: is a directory", path)));
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::invalid_argument(printable(
        fmt::format("{}: not a run store: not a regular file (a device or a pipe)", path)));
  }
  if (st.st_size == 0) return FileState::kEmpty;
  static constexpr char kMagic[] = "SQLite format 3";  // and its '\0': the first 16 bytes
  char head[sizeof kMagic] = {};
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::io_error(
        printable(fmt::format("{}: cannot open the run store: {}", path, std::strerror(errno))));
  in.read(head, sizeof head);
  // SQLite's smallest database is one 512-byte page; 100 bytes hold the header.
  if (st.st_size < 100 || in.gcount() != sizeof head ||
      std::memcmp(head, kMagic, sizeof head) != 0) {
    return Status::invalid_argument(
        printable(fmt::format("{}: the file is not a ShardLab run store or is damaged: not an "
                              "SQLite database ({} byte{}, not "
                              "starting with SQLite's header); {}",
                              path, st.st_size, st.st_size == 1 ? "" : "s", kLeftAlone)));
  }
  return FileState::kSqlite;
}

// What an existing SQLite file holds, read without writing.
struct Probe {
  int32_t application_id = 0;
  int user_version = 0;
  int64_t schema_objects = 0;  // tables, indexes, views, triggers
};

Probe probe(SQLite::Database& db) {
  return retry_busy([&] {
    Probe p;
    p.application_id = db.execAndGet("PRAGMA application_id").getInt();
    p.user_version = user_version(db);
    p.schema_objects = db.execAndGet("SELECT count(*) FROM sqlite_master").getInt64();
    return p;
  });
}

// The store's verdict on an existing SQLite file: ok (a run store, or an empty
// database `access` may initialise) or the refusal.
Status judge(const std::string& path, const Probe& p, StoreAccess access) {
  if (p.application_id == kRunStoreApplicationId) {
    if (p.user_version > kRunStoreSchemaVersion) {
      return Status::unavailable(printable(
          fmt::format("{}: run store schema version {} is newer than the version this ShardLab "
                      "supports ({}); use a newer ShardLab or another run store file",
                      path, p.user_version, kRunStoreSchemaVersion)));
    }
    return Status::ok();
  }
  if (p.application_id == 0 && p.user_version == 0 && p.schema_objects == 0) {
    if (access == StoreAccess::kCreate) return Status::ok();
    return Status::not_found(printable(fmt::format(
        "{}: no run store here (an empty database; nothing has been recorded in it)", path)));
  }
  const std::string app =
      p.application_id == 0
          ? std::string("no application_id")
          : fmt::format("application_id {:#x}", static_cast<uint32_t>(p.application_id));
  return Status::invalid_argument(printable(fmt::format(
      "{}: not a ShardLab run store: an SQLite database of another program ({}, user_version {}, "
      "{} tables and indexes); {}",
      path, app, p.user_version, p.schema_objects, kLeftAlone)));
}

// A writer's refusal of a damaged store; `finding` is what SQLite said.
Status damaged(const std::string& path, const std::string& finding) {
  return Status::corrupt(printable(fmt::format(
      "{}: the run store is damaged (SQLite's quick check: {}); nothing is written to a damaged "
      "store: `shardlab runs check` shows what is wrong; copy the runs you need and start another "
      "store",
      path, finding)));
}

bool is_damage(const std::exception& e) {
  const auto* se = dynamic_cast<const SQLite::Exception*>(&e);
  return se != nullptr &&
         (se->getErrorCode() == SQLITE_CORRUPT || se->getErrorCode() == SQLITE_NOTADB);
}

// SQLite's quick check (page structure, not index contents): a writer must
// not add runs to a file that is falling apart.
Status quick_check(const std::string& path, SQLite::Database& db) {
  const std::string first = db.execAndGet("PRAGMA quick_check(1)").getString();
  return first == "ok" ? Status::ok() : damaged(path, first);
}

}  // namespace

Result<RunStore> RunStore::open_connection(const std::string& path, StoreAccess access,
                                           bool in_memory) {
  const char* doing = "cannot open the run store";
  FileState state = FileState::kMissing;
  if (!in_memory) {
    Result<FileState> inspected = inspect_file(path, access);
    if (!inspected) return inspected.status();
    state = *inspected;
    if (state == FileState::kEmpty && access != StoreAccess::kCreate) {
      return Status::not_found(printable(fmt::format(
          "{}: no run store here (an empty file; nothing has been recorded in it)", path)));
    }
  }
  try {
    if (state == FileState::kSqlite) {
      // Look before writing anything: read-only, so a file that is not ours
      // is left exactly as it was.
      auto reader = std::make_unique<Impl>(path, SQLite::OPEN_READONLY, access);
      doing = "cannot read the run store";
      const Probe p = probe(reader->db);
      if (Status verdict = judge(path, p, access); !verdict.is_ok()) return verdict;
      if (access == StoreAccess::kRead) {
        if (p.user_version < kRunStoreSchemaVersion) {
          return Status::invalid_argument(
              printable(fmt::format("{}: run store schema version {} is older than this ShardLab's "
                                    "({}); recording a run upgrades it",
                                    path, p.user_version, kRunStoreSchemaVersion)));
        }
        return RunStore(std::move(reader));
      }
      reader.reset();
    }
    doing = "cannot open the run store";
    const int flags =
        SQLite::OPEN_READWRITE | (access == StoreAccess::kCreate ? SQLite::OPEN_CREATE : 0);
    auto impl = std::make_unique<Impl>(path, flags, access);
    if (state == FileState::kSqlite) {
      doing = "cannot check the run store";
      if (Status st = quick_check(path, impl->db); !st.is_ok()) return st;
    }
    doing = "cannot set up the run store";
    configure(impl->db, in_memory);
    doing = "cannot create or upgrade the run store's tables";
    migrate(impl->db);
    return RunStore(std::move(impl));
  } catch (const std::exception& e) {
    // Damage met while a writer looks at the file is the quick check's finding.
    if (access != StoreAccess::kRead && state == FileState::kSqlite && is_damage(e))
      return damaged(path, e.what());
    return store_error(path, doing, e);
  }
}

namespace {

// --- writing ---------------------------------------------------------------

// Inserts `count` rows into `target` ("table (col, ...)", `columns` of
// them), kRowsPerInsert rows per statement: SQLite runs one statement of 64
// rows several times faster than 64 statements of one (the per-statement
// work, not the rows, dominates). bind_row(statement, first_parameter, row)
// binds one row's values from parameter first_parameter on.
constexpr size_t kRowsPerInsert = 64;

template <typename BindRow>
void insert_rows(SQLite::Database& db, std::string_view target, int columns, size_t count,
                 BindRow bind_row) {
  auto sql = [&](size_t rows) {
    std::string row = "(?";
    for (int c = 1; c < columns; ++c) row += ", ?";
    row += ")";
    std::string text = fmt::format("INSERT INTO {} VALUES {}", target, row);
    for (size_t r = 1; r < rows; ++r) text += ", " + row;
    return text;
  };
  std::optional<SQLite::Statement> full;
  for (size_t first = 0; first < count; first += kRowsPerInsert) {
    const size_t rows = std::min(kRowsPerInsert, count - first);
    std::optional<SQLite::Statement> partial;
    if (rows == kRowsPerInsert && !full) full.emplace(db, sql(kRowsPerInsert));
    if (rows < kRowsPerInsert) partial.emplace(db, sql(rows));
    SQLite::Statement& st = rows == kRowsPerInsert ? *full : *partial;
    for (size_t r = 0; r < rows; ++r) bind_row(st, static_cast<int>(r) * columns + 1, first + r);
    st.exec();
    st.reset();
  }
}

void insert_estimates(SQLite::Database& db, int64_t run_id, const std::vector<EstimateRow>& rows) {
  insert_rows(db,
              "estimates (run_id, seq, fqn, table_name, shard, rank, sharding_type, "
              "compute_kernel, rows, cols, row_offset, col_offset, fwd_compute_ms, fwd_comms_ms, "
              "bwd_compute_ms, bwd_comms_ms, prefetch_ms, hbm_bytes, ddr_bytes)",
              19, rows.size(), [&](SQLite::Statement& st, int i, size_t seq) {
                const EstimateRow& r = rows[seq];
                st.bind(i++, run_id);
                st.bind(i++, static_cast<int64_t>(seq));
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
              });
}

void insert_sim_phases(SQLite::Database& db, int64_t run_id, const std::vector<SimPhaseRow>& rows) {
  insert_rows(
      db,
      "sim_phases (run_id, seq, rank, phase, stream, iteration, start_ms, end_ms, bytes, tables)",
      10, rows.size(), [&](SQLite::Statement& st, int i, size_t seq) {
        const SimPhaseRow& r = rows[seq];
        st.bind(i++, run_id);
        st.bind(i++, static_cast<int64_t>(seq));
        st.bind(i++, r.rank);
        st.bind(i++, std::string(sim::to_string(r.phase)));
        st.bind(i++, std::string(sim::to_string(r.stream)));
        st.bind(i++, r.iteration);
        st.bind(i++, r.start_ms);
        st.bind(i++, r.end_ms);
        st.bind(i++, r.bytes);
        st.bind(i++, r.tables);
      });
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

Result<RunStore> RunStore::open(const std::string& path, StoreAccess access) {
  if (path.empty()) return Status::invalid_argument("run store path is empty");
  if (path == ":memory:")
    return Status::invalid_argument("use RunStore::open_in_memory() for ':memory:'");
  return open_connection(path, access, /*in_memory=*/false);
}

Status RunStore::check_can_create(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 || errno != ENOENT) return Status::ok();
  Result<FileState> state = inspect_file(path, StoreAccess::kCreate);
  return state.is_ok() ? Status::ok() : state.status();
}

Result<RunStore> RunStore::open_in_memory() {
  return open_connection(":memory:", StoreAccess::kCreate, /*in_memory=*/true);
}

const std::string& RunStore::path() const { return impl_->path; }

Result<int64_t> RunStore::add_run(const NewRun& run) {
  if (impl_->access == StoreAccess::kRead) return read_only(impl_->path, "cannot record the run");
  Result<std::string> summary = normalised_summary(run.summary_json);
  if (!summary) return summary.status().with_context(impl_->path);
  SQLite::Database& db = impl_->db;
  try {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    for (int64_t input : run.inputs) {
      if (!run_exists(db, input)) {
        return Status::invalid_argument(
            printable(fmt::format("{}: input run {} does not exist", impl_->path, input)));
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
  if (impl_->access == StoreAccess::kRead) return read_only(impl_->path, "cannot delete the run");
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
    return Status::corrupt(printable_lines(msg));
  } catch (const std::exception& e) {
    return store_error(impl_->path, "cannot check the run store", e);
  }
}

}  // namespace shardlab::data
