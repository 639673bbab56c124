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
#include <fmt/ranges.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>

#include "run_store_columns.h"
#include "run_store_internal.h"
#include "shardlab/data/message_text.h"

#ifndef SHARDLAB_VERSION
#define SHARDLAB_VERSION "unknown"
#endif

namespace shardlab::data {

using internal::kRunStoreApplicationId;

struct RunStore::Impl {
  // `open_as`: what SQLite opens when not `path` itself (a URI).
  Impl(std::string p, int flags, StoreAccess a, const std::string& open_as = {})
      : path(std::move(p)),
        access(a),
        db(open_as.empty() ? path : open_as, flags, kBusyTimeoutMs) {}
  std::string path;
  StoreAccess access;
  SQLite::Database db;
};

namespace {

// The least room writing to a store takes: a new store with one small run
// is 76 KiB, and its write-ahead log holds as much again until the
// checkpoint; rounded up. Less than this free, a writer is refused before a
// verb's work rather than failing after it.
constexpr uint64_t kWriteRoomBytes = 256 * 1024;

// The room SQLite's write-ahead-log index (-shm) takes: 32 KiB.
constexpr uint64_t kIndexBytes = 32 * 1024;

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

// Bytes an unprivileged writer may still use on the file system of `path`;
// nullopt when the system does not say.
std::optional<uint64_t> free_space(const std::string& path) {
  struct statvfs fs_stat {};
  if (::statvfs(path.c_str(), &fs_stat) != 0) return std::nullopt;
  return static_cast<uint64_t>(fs_stat.f_bavail) * fs_stat.f_frsize;
}

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
    // A directory that cannot take the file, and a full disk, are found
    // here, before a verb's work, not after it.
    if (::access(dir.empty() ? "." : dir.c_str(), W_OK) != 0) {
      return Status::io_error(printable(fmt::format(
          "{}: cannot create the run store: {} cannot be written ({}); record elsewhere (--db "
          "PATH) or not at all (--no-record)",
          path, dir.empty() ? std::string("the working directory") : dir.string(),
          std::strerror(errno))));
    }
    if (const std::optional<uint64_t> free_bytes = free_space(dir.empty() ? "." : dir.string())) {
      if (*free_bytes < kWriteRoomBytes) {
        return Status::io_error(printable(fmt::format(
            "{}: cannot create the run store: {} KiB free on its file system, and a new store "
            "needs about {} KiB; free some space, or record elsewhere (--db PATH) or not at all "
            "(--no-record)",
            path, *free_bytes / 1024, kWriteRoomBytes / 1024)));
      }
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

// Tables and their columns, as a database holds them (sqlite_* left out).
using Schema = std::map<std::string, std::set<std::string>>;

Schema read_schema(SQLite::Database& db) {
  Schema out;
  SQLite::Statement tables(
      db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  while (tables.executeStep()) out[tables.getColumn(0).getString()];
  for (auto& [table, columns] : out) {
    SQLite::Statement info(db, "SELECT name FROM pragma_table_info(?)");
    info.bind(1, table);
    while (info.executeStep()) columns.insert(info.getColumn(0).getString());
  }
  return out;
}

// This build's schema: the migrations applied to an empty database, once.
const Schema& expected_schema() {
  static const Schema schema = [] {
    SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    for (const internal::Migration& m : internal::migrations()) db.exec(m.sql);
    return read_schema(db);
  }();
  return schema;
}

// What a store at this build's version lacks of the schema: "no table X",
// "table X has no column Y". Extra tables and columns are not problems.
std::vector<std::string> schema_problems(SQLite::Database& db) {
  const Schema have = read_schema(db);
  std::vector<std::string> out;
  for (const auto& [table, columns] : expected_schema()) {
    const auto t = have.find(table);
    if (t == have.end()) {
      out.push_back("no table " + table);
      continue;
    }
    for (const std::string& c : columns) {
      if (!t->second.contains(c)) out.push_back("table " + table + " has no column " + c);
    }
  }
  return out;
}

// A writer's refusal of a damaged store; `finding` is what SQLite said.
Status damaged(const std::string& path, const std::string& finding) {
  return Status::corrupt(printable(fmt::format(
      "{}: the run store is damaged (SQLite's quick check: {}); nothing is written to a damaged "
      "store: `shardlab runs check` shows what is wrong; copy the runs you need and start another "
      "store",
      path, finding)));
}

// Removes what a store creation that failed left at `path` (a file the
// caller found missing): an empty file, or an SQLite file whose header never
// got the run store's application id (bytes 68-71, big-endian).
void remove_failed_creation(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  if (st.st_size > 0) {
    unsigned char head[72] = {};
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(head), sizeof head);
    if (in.gcount() == sizeof head) {
      const uint32_t id = (uint32_t{head[68]} << 24) | (uint32_t{head[69]} << 16) |
                          (uint32_t{head[70]} << 8) | uint32_t{head[71]};
      if (id == static_cast<uint32_t>(kRunStoreApplicationId)) return;
    }
  }
  ::unlink(path.c_str());
}

// SQLite's errors that say the file system refused (full, read-only, I/O),
// rather than anything about the file's contents.
bool is_file_system_error(const std::exception& e) {
  const auto* se = dynamic_cast<const SQLite::Exception*>(&e);
  if (se == nullptr) return false;
  const int code = se->getErrorCode() & 0xff;
  return code == SQLITE_IOERR || code == SQLITE_CANTOPEN || code == SQLITE_FULL ||
         code == SQLITE_READONLY;
}

// For a reader of a store whose write-ahead-log index SQLite cannot set up
// (a full or read-only file system refuses the -shm file): the URI that
// opens the file as immutable, read without the index and without locks.
// Only when the write-ahead log is absent or empty, so every committed run
// is in the file itself; nullopt otherwise.
std::optional<std::string> immutable_uri(const std::string& path) {
  struct stat wal {};
  if (::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0) return std::nullopt;
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
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
      // is left exactly as it was. A reader on a disk without room for
      // SQLite's index files reads the file as it is, creating none.
      const std::optional<uint64_t> room = free_space(path);
      const std::optional<std::string> as_is =
          access == StoreAccess::kRead && room && *room < kIndexBytes ? immutable_uri(path)
                                                                      : std::nullopt;
      if (access != StoreAccess::kRead && room && *room < kWriteRoomBytes) {
        return Status::io_error(printable(fmt::format(
            "{}: cannot write to the run store: {} KiB free on its file system, and writing "
            "needs at least {} KiB; free some space, or record elsewhere (--db PATH) or not at "
            "all (--no-record)",
            path, *room / 1024, kWriteRoomBytes / 1024)));
      }
      auto reader = as_is ? std::make_unique<Impl>(path, SQLite::OPEN_READONLY | SQLite::OPEN_URI,
                                                   access, *as_is)
                          : std::make_unique<Impl>(path, SQLite::OPEN_READONLY, access);
      doing = "cannot read the run store";
      Probe p;
      try {
        p = probe(reader->db);
      } catch (const std::exception& e) {
        // A reader on a full or read-only disk: read the file as it is.
        if (access != StoreAccess::kRead || !is_file_system_error(e)) throw;
        const std::optional<std::string> uri = immutable_uri(path);
        if (!uri) {
          return Status::io_error(printable(fmt::format(
              "{}: cannot read the run store: {} (its write-ahead log, {}-wal, holds runs SQLite "
              "reads only with room to write its index: free some space on the disk)",
              path, e.what(), path)));
        }
        reader =
            std::make_unique<Impl>(path, SQLite::OPEN_READONLY | SQLite::OPEN_URI, access, *uri);
        p = probe(reader->db);
      }
      if (Status verdict = judge(path, p, access); !verdict.is_ok()) return verdict;
      // A store of this version has all of this version's tables and columns:
      // one that lost some is refused before anything is written to it.
      if (p.application_id == kRunStoreApplicationId && p.user_version == kRunStoreSchemaVersion) {
        const std::vector<std::string> missing =
            retry_busy([&] { return schema_problems(reader->db); });
        if (!missing.empty()) {
          std::string list = missing.front();
          if (missing.size() > 1) list += fmt::format(" and {} more", missing.size() - 1);
          return Status::corrupt(printable(fmt::format(
              "{}: the run store is damaged: its schema has {}; nothing is written to a damaged "
              "store: copy the runs you need and start another store",
              path, list)));
        }
      }
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
    // SQLite opens a file it may not write read-only without a word: say so
    // now, before a verb's work, rather than when the run is recorded.
    if (!in_memory && sqlite3_db_readonly(impl->db.getHandle(), "main") == 1) {
      return Status::io_error(printable(fmt::format(
          "{}: cannot record runs: the run store cannot be written (a read-only file or file "
          "system); record elsewhere (--db PATH) or not at all (--no-record)",
          path)));
    }
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
    // A store this call began to create and could not (a full disk) leaves
    // no empty file behind.
    if (state == FileState::kMissing && !in_memory) remove_failed_creation(path);
    return store_error(path, doing, e);
  }
}

namespace {

// --- columns -----------------------------------------------------------------
// Every statement below that names a record's columns, and every bind and
// read of them, comes from the column lists of run_store_columns.h.

using internal::CalibrationColumns;
using internal::EstimateColumns;
using internal::MeasurementColumns;
using internal::RunInputColumns;
using internal::RunSummaryColumns;
using internal::RunTextColumns;
using internal::SimPhaseColumns;

// A column list as SQL text, made once per list.
struct ColumnText {
  std::string names;      // List::columns: "fqn, table_name, ..."
  std::string with_keys;  // List::kKeys first: "run_id, seq, fqn, ..."
  int count = 0;          // columns in `names`
  int count_with_keys = 0;
};

template <typename List>
const ColumnText& column_text() {
  static const ColumnText text = [] {
    ColumnText t;
    const std::vector<std::string> names = internal::column_names<List>();
    std::vector<std::string> all(List::kKeys.begin(), List::kKeys.end());
    all.insert(all.end(), names.begin(), names.end());
    t.names = fmt::format("{}", fmt::join(names, ", "));
    t.with_keys = fmt::format("{}", fmt::join(all, ", "));
    t.count = static_cast<int>(names.size());
    t.count_with_keys = static_cast<int>(all.size());
    return t;
  }();
  return text;
}

// "?, ?, ?" for n = 3.
std::string placeholders(int n) {
  std::string out = "?";
  for (int i = 1; i < n; ++i) out += ", ?";
  return out;
}

// "<verb> INTO <table> (<keys>, <columns>) VALUES (?, ...)": one row of List.
template <typename List>
std::string insert_sql(std::string_view verb) {
  const ColumnText& t = column_text<List>();
  return fmt::format("{} INTO {} ({}) VALUES ({})", verb, List::kTable, t.with_keys,
                     placeholders(t.count_with_keys));
}

// The enums' text forms, read back (the inverses of their to_string).
std::optional<RunKind> parse_text(std::type_identity<RunKind>, std::string_view s) {
  return parse_run_kind(s);
}
std::optional<planner::ShardingType> parse_text(std::type_identity<planner::ShardingType>,
                                                std::string_view s) {
  return planner::parse_sharding_type(s);
}
std::optional<planner::ComputeKernel> parse_text(std::type_identity<planner::ComputeKernel>,
                                                 std::string_view s) {
  return planner::parse_compute_kernel(s);
}
std::optional<sim::Phase> parse_text(std::type_identity<sim::Phase>, std::string_view s) {
  return internal::parse_phase(s);
}
std::optional<sim::Stream> parse_text(std::type_identity<sim::Stream>, std::string_view s) {
  return internal::parse_stream(s);
}
std::optional<sim::CollectiveKind> parse_text(std::type_identity<sim::CollectiveKind>,
                                              std::string_view s) {
  return internal::parse_collective_kind(s);
}
std::optional<kernels::Precision> parse_text(std::type_identity<kernels::Precision>,
                                             std::string_view s) {
  return internal::parse_precision(s);
}

// A column visitor binding a record's members to consecutive parameters from
// `index` on. Strings are bound without a copy: the record must outlive the
// statement's execution.
class ColumnBinder {
 public:
  ColumnBinder(SQLite::Statement& st, int index) : st_(st), index_(index) {}
  void operator()(const char*, const std::string& v) { st_.bindNoCopy(index_++, v); }
  void operator()(const char*, int v) { st_.bind(index_++, v); }
  void operator()(const char*, int64_t v) { st_.bind(index_++, v); }
  void operator()(const char*, double v) { st_.bind(index_++, v); }
  void operator()(const char*, bool v) { st_.bind(index_++, v ? 1 : 0); }
  template <typename E>
  requires std::is_enum_v<E>
  void operator()(const char*, E v) { st_.bind(index_++, std::string(to_string(v))); }

 private:
  SQLite::Statement& st_;
  int index_;
};

// A column visitor reading a record's members from consecutive result
// columns from `index` on. An enum column holding a name this build does not
// know leaves its member as it was; status() reports the first such column.
class ColumnReader {
 public:
  ColumnReader(SQLite::Statement& st, int index) : st_(st), index_(index) {}
  void operator()(const char*, std::string& v) { v = st_.getColumn(index_++).getString(); }
  void operator()(const char*, int& v) { v = st_.getColumn(index_++).getInt(); }
  void operator()(const char*, int64_t& v) { v = st_.getColumn(index_++).getInt64(); }
  void operator()(const char*, double& v) { v = st_.getColumn(index_++).getDouble(); }
  void operator()(const char*, bool& v) { v = st_.getColumn(index_++).getInt() != 0; }
  template <typename E>
  requires std::is_enum_v<E>
  void operator()(const char* name, E& v) {
    std::string text = st_.getColumn(index_++).getString();
    if (std::optional<E> e = parse_text(std::type_identity<E>{}, text)) {
      v = *e;
    } else if (bad_column_ == nullptr) {
      bad_column_ = name;
      bad_value_ = std::move(text);
    }
  }

  // corrupt_row for the first unknown enum name read, ok when there was none.
  Status status(const std::string& path, const char* table) const {
    return bad_column_ == nullptr ? Status::ok()
                                  : corrupt_row(path, table, bad_column_, bad_value_);
  }

 private:
  SQLite::Statement& st_;
  int index_;
  const char* bad_column_ = nullptr;
  std::string bad_value_;
};

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

// The rows of a child table keyed (run_id, seq), kRowsPerInsert per statement.
template <typename List>
void insert_keyed_rows(SQLite::Database& db, int64_t run_id,
                       const std::vector<typename List::Record>& rows) {
  const ColumnText& t = column_text<List>();
  insert_rows(db, fmt::format("{} ({})", List::kTable, t.with_keys), t.count_with_keys, rows.size(),
              [&](SQLite::Statement& st, int i, size_t seq) {
                st.bind(i++, run_id);
                st.bind(i++, static_cast<int64_t>(seq));
                List::columns(rows[seq], ColumnBinder(st, i));
              });
}

void insert_measurements(SQLite::Database& db, int64_t run_id,
                         const std::vector<kernels::Measurement>& rows) {
  if (rows.empty()) return;
  SQLite::Statement st(db, insert_sql<MeasurementColumns>("INSERT"));
  int64_t seq = 0;
  for (const kernels::Measurement& m : rows) {
    st.bind(1, run_id);
    st.bind(2, seq++);
    MeasurementColumns::columns(m, ColumnBinder(st, 3));
    st.exec();
    st.reset();
  }
}

void insert_calibration(SQLite::Database& db, int64_t run_id, const CalibrationRow& c) {
  SQLite::Statement st(db, insert_sql<CalibrationColumns>("INSERT"));
  st.bind(1, run_id);
  CalibrationColumns::columns(c, ColumnBinder(st, 2));
  st.exec();
}

bool run_exists(SQLite::Database& db, int64_t id) {
  SQLite::Statement st(db, "SELECT 1 FROM runs WHERE id = ?");
  st.bind(1, id);
  return st.executeStep();
}

// --- reading ---------------------------------------------------------------

// What list_runs and get_run select first: a RunSummary.
const std::string& summary_select() {
  static const std::string text =
      fmt::format("{}, EXISTS (SELECT 1 FROM calibrations c WHERE c.run_id = runs.id)",
                  column_text<RunSummaryColumns>().with_keys);
  return text;
}

// Reads summary_select()'s columns at `reader`'s position.
void read_summary(ColumnReader& reader, RunSummary& s) {
  reader("id", s.id);
  RunSummaryColumns::columns(s, reader);
  reader("has_calibration", s.has_calibration);
}

// Appends the rows of List's table that belong to run `run_id`, in
// List::kOrderBy order.
template <typename List>
Status read_rows(const std::string& path, SQLite::Database& db, int64_t run_id,
                 std::vector<typename List::Record>* out) {
  SQLite::Statement st(db, fmt::format("SELECT {} FROM {} WHERE run_id = ? ORDER BY {}",
                                       column_text<List>().names, List::kTable, List::kOrderBy));
  st.bind(1, run_id);
  while (st.executeStep()) {
    typename List::Record r{};
    ColumnReader reader(st, 0);
    List::columns(r, reader);
    if (Status s = reader.status(path, List::kTable); !s) return s;
    out->push_back(std::move(r));
  }
  return Status::ok();
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
    // The runs row: the run's own values and those the store fills in.
    const RunSummary row{.kind = run.kind,
                         .created_at = internal::utc_timestamp_now(),
                         .scenario_name = run.scenario_name,
                         .scenario_hash = internal::fnv1a64_hex(run.scenario_json),
                         .shardlab_version = SHARDLAB_VERSION,
                         .host = internal::host_name(),
                         .device = run.device,
                         .backend = run.backend,
                         .torchrec_version = run.torchrec_version,
                         .label = run.label,
                         .summary_json = std::move(summary).value(),
                         .estimate_count = static_cast<int64_t>(run.estimates.size()),
                         .sim_phase_count = static_cast<int64_t>(run.sim_phases.size()),
                         .measurement_count = static_cast<int64_t>(run.measurements.size())};
    const ColumnText& summary_columns = column_text<RunSummaryColumns>();
    const ColumnText& text_columns = column_text<RunTextColumns>();
    SQLite::Statement st(db, fmt::format("INSERT INTO runs ({}, {}) VALUES ({})",
                                         summary_columns.names, text_columns.names,
                                         placeholders(summary_columns.count + text_columns.count)));
    ColumnBinder bind(st, 1);
    RunSummaryColumns::columns(row, bind);
    RunTextColumns::columns(run, bind);
    st.exec();
    const int64_t id = db.getLastInsertRowid();
    insert_keyed_rows<EstimateColumns>(db, id, run.estimates);
    insert_keyed_rows<SimPhaseColumns>(db, id, run.sim_phases);
    insert_measurements(db, id, run.measurements);
    if (run.calibration) insert_calibration(db, id, *run.calibration);
    if (!run.inputs.empty()) {
      SQLite::Statement in(db, insert_sql<RunInputColumns>("INSERT OR IGNORE"));
      for (const int64_t& input : run.inputs) {
        in.bind(1, id);
        RunInputColumns::columns(input, ColumnBinder(in, 2));
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
    SQLite::Statement st(db, fmt::format("SELECT {} FROM runs WHERE (?1 IS NULL OR kind = ?1) AND "
                                         "(?2 IS NULL OR scenario_name = ?2) AND "
                                         "(?4 IS NULL OR label = ?4) ORDER BY id DESC LIMIT ?3",
                                         summary_select()));
    if (filter.kind) st.bind(1, std::string(to_string(*filter.kind)));
    if (filter.scenario) st.bind(2, *filter.scenario);
    st.bind(3, static_cast<int64_t>(filter.limit > 0 ? filter.limit : -1));
    if (filter.label) st.bind(4, *filter.label);
    std::vector<RunSummary> out;
    while (st.executeStep()) {
      RunSummary s;
      ColumnReader reader(st, 0);
      read_summary(reader, s);
      if (Status r = reader.status(impl_->path, RunSummaryColumns::kTable); !r) return r;
      out.push_back(std::move(s));
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
    SQLite::Statement st(db, fmt::format("SELECT {}, {} FROM runs WHERE id = ?", summary_select(),
                                         column_text<RunTextColumns>().names));
    st.bind(1, id);
    if (!st.executeStep()) return no_run(impl_->path, id);
    StoredRun run;
    ColumnReader reader(st, 0);
    read_summary(reader, run.summary);
    RunTextColumns::columns(run, reader);
    if (Status r = reader.status(impl_->path, RunSummaryColumns::kTable); !r) return r;
    const std::string& path = impl_->path;
    if (Status r = read_rows<EstimateColumns>(path, db, id, &run.estimates); !r) return r;
    if (Status r = read_rows<SimPhaseColumns>(path, db, id, &run.sim_phases); !r) return r;
    if (Status r = read_rows<MeasurementColumns>(path, db, id, &run.measurements); !r) return r;
    std::vector<CalibrationRow> calibrations;  // at most one
    if (Status r = read_rows<CalibrationColumns>(path, db, id, &calibrations); !r) return r;
    if (!calibrations.empty()) run.calibration = std::move(calibrations.front());
    if (Status r = read_rows<RunInputColumns>(path, db, id, &run.inputs); !r) return r;
    return run;
  } catch (const std::exception& e) {
    return store_error(impl_->path, fmt::format("cannot read run {}", id).c_str(), e);
  }
}

Status RunStore::delete_run(int64_t id) { return delete_runs({id}); }

Status RunStore::delete_runs(const std::vector<int64_t>& ids) {
  if (impl_->access == StoreAccess::kRead) return read_only(impl_->path, "cannot delete runs");
  SQLite::Database& db = impl_->db;
  int64_t at = ids.empty() ? 0 : ids.front();
  try {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement st(db, "DELETE FROM runs WHERE id = ?");
    for (const int64_t id : ids) {
      at = id;
      st.reset();
      st.bind(1, id);
      if (st.exec() == 0) return no_run(impl_->path, id);  // the transaction rolls back
    }
    tx.commit();
    return Status::ok();
  } catch (const std::exception& e) {
    return store_error(impl_->path, fmt::format("cannot delete run {}", at).c_str(), e);
  }
}

Status RunStore::set_label(int64_t id, const std::string& label) {
  if (impl_->access == StoreAccess::kRead) return read_only(impl_->path, "cannot label the run");
  try {
    SQLite::Transaction tx(impl_->db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement st(impl_->db, "UPDATE runs SET label = ? WHERE id = ?");
    st.bind(1, label);
    st.bind(2, id);
    if (st.exec() == 0) return no_run(impl_->path, id);
    tx.commit();
    return Status::ok();
  } catch (const std::exception& e) {
    return store_error(impl_->path, fmt::format("cannot label run {}", id).c_str(), e);
  }
}

Result<std::vector<int64_t>> RunStore::runs_beyond(const RunFilter& filter, int keep) const {
  RunFilter all = filter;
  all.limit = 0;
  Result<std::vector<RunSummary>> runs = list_runs(all);  // newest first
  if (!runs) return runs.status();
  std::vector<int64_t> out;
  for (std::size_t i = static_cast<std::size_t>(std::max(keep, 0)); i < runs->size(); ++i)
    out.push_back((*runs)[i].id);
  return out;
}

Result<RunStore::Compacted> RunStore::compact() {
  if (impl_->access == StoreAccess::kRead) return read_only(impl_->path, "cannot compact");
  const auto size_of = [&] {
    struct stat st {};
    return ::stat(impl_->path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : int64_t{0};
  };
  Compacted c{.bytes_before = size_of()};
  try {
    impl_->db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    impl_->db.exec("VACUUM");
    impl_->db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch (const std::exception& e) {
    return store_error(impl_->path, "cannot give the deleted runs' space back (VACUUM)", e);
  }
  c.bytes_after = size_of();
  return c;
}

Result<std::vector<kernels::Measurement>> RunStore::measurements(
    const std::vector<int64_t>& run_ids) const {
  SQLite::Database& db = impl_->db;
  try {
    SQLite::Transaction tx(db, SQLite::TransactionBehavior::DEFERRED);
    std::vector<kernels::Measurement> out;
    for (int64_t id : run_ids) {
      if (!run_exists(db, id)) return no_run(impl_->path, id);
      if (Status r = read_rows<MeasurementColumns>(impl_->path, db, id, &out); !r) return r;
    }
    return out;
  } catch (const std::exception& e) {
    return store_error(impl_->path, "cannot read measurements", e);
  }
}

Status RunStore::check_integrity() const {
  SQLite::Database& db = impl_->db;
  try {
    std::vector<std::string> problems = schema_problems(db);
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
