// Tests of data/run_store.h in one process: every record type round trips,
// listing and filters, deletes cascade, the schema is created from an empty
// file, and bad files (newer schema, another application's database, random
// bytes, truncated or damaged stores) give errors rather than crashes.

#include "shardlab/data/run_store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "run_store_test_helpers.h"

namespace shardlab::data {
namespace {

using testing::full_run;
using testing::sample_run;
using testing::TempDir;

RunStore open_memory() {
  Result<RunStore> s = RunStore::open_in_memory();
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  return std::move(s).value();
}

int64_t add(RunStore& store, const NewRun& run) {
  Result<int64_t> id = store.add_run(run);
  EXPECT_TRUE(id.is_ok()) << id.status().message();
  return id.is_ok() ? *id : -1;
}

// Big-endian 32-bit field of the SQLite file header (user_version at 60,
// application_id at 68; docs: sqlite.org/fileformat.html).
uint32_t header_field(const std::string& path, int offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(offset);
  unsigned char b[4] = {};
  in.read(reinterpret_cast<char*>(b), 4);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void set_header_field(const std::string& path, int offset, uint32_t v) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(offset);
  const unsigned char b[4] = {static_cast<unsigned char>(v >> 24),
                              static_cast<unsigned char>(v >> 16),
                              static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
  f.write(reinterpret_cast<const char*>(b), 4);
}

TEST(RunStore, RunKindNamesRoundTrip) {
  for (RunKind k : {RunKind::kPlan, RunKind::kSimulate, RunKind::kReplay, RunKind::kCalibrate,
                    RunKind::kOptimize}) {
    EXPECT_EQ(parse_run_kind(to_string(k)), k);
  }
  EXPECT_EQ(to_string(RunKind::kCalibrate), "calibrate");
  EXPECT_FALSE(parse_run_kind("Plan").has_value());
}

TEST(RunStore, EveryRecordTypeRoundTrips) {
  RunStore store = open_memory();
  const NewRun in = full_run(5);
  const int64_t id = add(store, in);
  Result<StoredRun> got = store.get_run(id);
  ASSERT_TRUE(got.is_ok()) << got.status().message();
  const StoredRun& out = *got;

  EXPECT_EQ(out.summary.id, id);
  EXPECT_EQ(out.summary.kind, RunKind::kReplay);
  EXPECT_EQ(out.summary.scenario_name, in.scenario_name);
  EXPECT_EQ(out.scenario_json, in.scenario_json);
  EXPECT_EQ(out.plan_json, in.plan_json);
  EXPECT_EQ(out.summary.summary_json, in.summary_json);
  EXPECT_EQ(out.summary.device, in.device);
  EXPECT_EQ(out.summary.backend, "cuda");
  EXPECT_EQ(out.summary.estimate_count, 4);
  EXPECT_EQ(out.summary.sim_phase_count, 4);
  EXPECT_EQ(out.summary.measurement_count, 2);
  EXPECT_TRUE(out.summary.has_calibration);
  EXPECT_FALSE(out.summary.shardlab_version.empty());
  EXPECT_FALSE(out.summary.host.empty());
  // "2025-01-31T17:04:05.123Z"
  ASSERT_EQ(out.summary.created_at.size(), 24u) << out.summary.created_at;
  EXPECT_EQ(out.summary.created_at[10], 'T');
  EXPECT_EQ(out.summary.created_at[19], '.');
  EXPECT_EQ(out.summary.created_at.back(), 'Z');
  ASSERT_EQ(out.summary.scenario_hash.size(), 16u);
  EXPECT_EQ(out.summary.scenario_hash.find_first_not_of("0123456789abcdef"), std::string::npos);

  testing::expect_same_rows(in, out);
  ASSERT_TRUE(out.calibration.has_value());
  EXPECT_EQ(out.calibration->name, "h100-fit");
  EXPECT_EQ(out.calibration->profile_json, in.calibration->profile_json);
  EXPECT_EQ(out.calibration->mape_before, 41.5);
  EXPECT_EQ(out.calibration->mape_after, 6.25);
  EXPECT_EQ(out.calibration->fit_count, 30);
  EXPECT_EQ(out.calibration->held_out_count, 8);
  EXPECT_TRUE(store.check_integrity().is_ok());
}

TEST(RunStore, ScenarioHashIsFnv1a64OfTheText) {
  RunStore store = open_memory();
  NewRun a = sample_run(RunKind::kPlan, 0);
  a.scenario_json = "";
  NewRun b = sample_run(RunKind::kPlan, 0);
  b.scenario_json = "a";
  Result<StoredRun> ra = store.get_run(add(store, a));
  Result<StoredRun> rb = store.get_run(add(store, b));
  ASSERT_TRUE(ra.is_ok() && rb.is_ok());
  // The published FNV-1a 64 values of "" and "a".
  EXPECT_EQ(ra->summary.scenario_hash, "cbf29ce484222325");
  EXPECT_EQ(rb->summary.scenario_hash, "af63dc4c8601ec8c");
}

TEST(RunStore, ListsNewestFirstWithFilters) {
  RunStore store = open_memory();
  std::vector<int64_t> ids;
  const RunKind kinds[] = {RunKind::kPlan, RunKind::kSimulate, RunKind::kPlan, RunKind::kReplay,
                           RunKind::kPlan};
  for (int i = 0; i < 5; ++i) ids.push_back(add(store, sample_run(kinds[i], i)));
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_GT(ids[i], ids[i - 1]);

  Result<std::vector<RunSummary>> all = store.list_runs();
  ASSERT_TRUE(all.is_ok());
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[0].id, ids[4]);
  EXPECT_EQ((*all)[4].id, ids[0]);
  EXPECT_EQ((*all)[1].kind, RunKind::kReplay);
  EXPECT_EQ((*all)[0].estimate_count, 3);

  Result<std::vector<RunSummary>> plans = store.list_runs({.kind = RunKind::kPlan});
  ASSERT_TRUE(plans.is_ok());
  ASSERT_EQ(plans->size(), 3u);
  EXPECT_EQ((*plans)[0].id, ids[4]);
  EXPECT_EQ((*plans)[2].id, ids[0]);

  Result<std::vector<RunSummary>> limited = store.list_runs({.kind = RunKind::kPlan, .limit = 2});
  ASSERT_TRUE(limited.is_ok());
  ASSERT_EQ(limited->size(), 2u);
  EXPECT_EQ((*limited)[1].id, ids[2]);

  // sample_run names scenarios "scenario-<seed % 3>": seeds 1 and 4.
  Result<std::vector<RunSummary>> by_name =
      store.list_runs({.scenario = std::string("scenario-1")});
  ASSERT_TRUE(by_name.is_ok());
  ASSERT_EQ(by_name->size(), 2u);
  EXPECT_EQ((*by_name)[0].id, ids[4]);
  EXPECT_EQ((*by_name)[1].id, ids[1]);

  Result<std::vector<RunSummary>> none = store.list_runs({.kind = RunKind::kCalibrate});
  ASSERT_TRUE(none.is_ok());
  EXPECT_TRUE(none->empty());
}

TEST(RunStore, SummaryMustBeAJsonObjectAndNothingIsWrittenOtherwise) {
  RunStore store = open_memory();
  for (const char* bad : {"[1, 2]", "3", "{\"a\": ", "not json"}) {
    NewRun run = sample_run(RunKind::kPlan, 1);
    run.summary_json = bad;
    Result<int64_t> id = store.add_run(run);
    ASSERT_FALSE(id.is_ok()) << bad;
    EXPECT_NE(id.status().message().find("summary_json must be a JSON object"), std::string::npos)
        << id.status().message();
  }
  NewRun empty = sample_run(RunKind::kPlan, 1);
  empty.summary_json.clear();
  Result<StoredRun> stored = store.get_run(add(store, empty));
  ASSERT_TRUE(stored.is_ok());
  EXPECT_EQ(stored->summary.summary_json, "{}");
  Result<std::vector<RunSummary>> all = store.list_runs();
  ASSERT_TRUE(all.is_ok());
  EXPECT_EQ(all->size(), 1u);
}

TEST(RunStore, DeleteCascadesAndMissingIdsAreErrors) {
  RunStore store = open_memory();
  const int64_t keep = add(store, full_run(1));
  const int64_t gone = add(store, full_run(2));
  ASSERT_TRUE(store.delete_run(gone).is_ok());
  Result<StoredRun> missing = store.get_run(gone);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), ":memory:: no run " + std::to_string(gone));
  Status again = store.delete_run(gone);
  EXPECT_EQ(again.code(), StatusCode::kNotFound);
  EXPECT_NE(again.message().find("no run"), std::string::npos);
  // The kept run is whole; the child rows of the deleted one are gone (the
  // count check would report rows of a missing run through foreign_key_check).
  Result<StoredRun> kept = store.get_run(keep);
  ASSERT_TRUE(kept.is_ok());
  EXPECT_EQ(kept->estimates.size(), 4u);
  EXPECT_EQ(kept->measurements.size(), 2u);
  Status check = store.check_integrity();
  EXPECT_TRUE(check.is_ok()) << check.message();
  Result<std::vector<kernels::Measurement>> m = store.measurements({gone});
  EXPECT_FALSE(m.is_ok());
}

// Labels: given when the run is recorded, set or removed later, and a
// filter of list_runs; a missing run is kNotFound.
TEST(RunStore, LabelsAreKeptSetAndFiltered) {
  RunStore store = open_memory();
  NewRun labelled = full_run(1);
  labelled.label = "baseline";
  const int64_t a = add(store, labelled);
  const int64_t b = add(store, full_run(2));
  EXPECT_EQ(store.get_run(a)->summary.label, "baseline");
  EXPECT_EQ(store.get_run(b)->summary.label, "");
  ASSERT_TRUE(store.set_label(b, "after rebalancing").is_ok());
  Result<std::vector<RunSummary>> after = store.list_runs({.label = "after rebalancing"});
  ASSERT_TRUE(after.is_ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ(after->front().id, b);
  ASSERT_TRUE(store.set_label(a, "").is_ok());
  EXPECT_TRUE(store.list_runs({.label = "baseline"}).value().empty());
  EXPECT_EQ(store.set_label(b + 9, "x").code(), StatusCode::kNotFound);
}

// delete_runs is all or none; runs_beyond names what prune deletes.
TEST(RunStore, DeleteSeveralRunsAllOrNone) {
  RunStore store = open_memory();
  std::vector<int64_t> ids;
  for (int i = 1; i <= 5; ++i) ids.push_back(add(store, full_run(i)));
  const Status missing = store.delete_runs({ids[0], ids[4] + 7});
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.message(), ":memory:: no run " + std::to_string(ids[4] + 7));
  EXPECT_TRUE(store.get_run(ids[0]).is_ok());  // nothing was deleted
  ASSERT_TRUE(store.delete_runs({ids[0], ids[2]}).is_ok());
  EXPECT_FALSE(store.get_run(ids[0]).is_ok());
  EXPECT_FALSE(store.get_run(ids[2]).is_ok());
  EXPECT_TRUE(store.check_integrity().is_ok());
  // Left: 1, 3, 4 (0-based); beyond the newest 2 of them: ids[1].
  Result<std::vector<int64_t>> beyond = store.runs_beyond({}, 2);
  ASSERT_TRUE(beyond.is_ok());
  EXPECT_EQ(*beyond, (std::vector<int64_t>{ids[1]}));
  EXPECT_EQ(store.runs_beyond({}, 0).value(), (std::vector<int64_t>{ids[4], ids[3], ids[1]}));
  EXPECT_TRUE(store.runs_beyond({}, 9).value().empty());
  EXPECT_TRUE(store.runs_beyond({.kind = RunKind::kPlan}, 0).value().empty());
}

// compact() gives the deleted runs' space back to the file system; a store
// opened for reading refuses it (kInternal).
TEST(RunStoreFile, CompactGivesTheSpaceBack) {
  TempDir dir;
  const std::string path = dir.file("runs.db");
  std::vector<int64_t> ids;
  {
    Result<RunStore> store = RunStore::open(path);
    ASSERT_TRUE(store.is_ok()) << store.status().message();
    for (int i = 1; i <= 40; ++i) ids.push_back(add(*store, sample_run(RunKind::kPlan, i, 400)));
    ids.pop_back();
    ASSERT_TRUE(store->delete_runs(ids).is_ok());
    Result<RunStore::Compacted> c = store->compact();
    ASSERT_TRUE(c.is_ok()) << c.status().message();
    EXPECT_LT(c->bytes_after, c->bytes_before / 4);
    EXPECT_EQ(c->bytes_after, static_cast<int64_t>(std::filesystem::file_size(path)));
    EXPECT_EQ(store->list_runs().value().size(), 1u);
  }
  Result<RunStore> reader = RunStore::open(path, StoreAccess::kRead);
  ASSERT_TRUE(reader.is_ok());
  EXPECT_EQ(reader->compact().status().code(), StatusCode::kInternal);
  EXPECT_EQ(reader->delete_runs({1}).code(), StatusCode::kInternal);
}

TEST(RunStore, MeasurementsOfSeveralRunsInTheGivenOrder) {
  RunStore store = open_memory();
  NewRun a = full_run(1);
  a.measurements.resize(1);  // the lookup only
  const int64_t ia = add(store, a);
  const int64_t ib = add(store, full_run(2));
  Result<std::vector<kernels::Measurement>> m = store.measurements({ib, ia});
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ((*m)[0].phase, sim::Phase::kFwdCompute);
  EXPECT_EQ((*m)[1].phase, sim::Phase::kOutputDist);
  EXPECT_EQ((*m)[2].phase, sim::Phase::kFwdCompute);
  Result<std::vector<kernels::Measurement>> bad = store.measurements({ia, 999});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("no run 999"), std::string::npos);
}

TEST(RunStore, InputsLinkRunsAndMustExist) {
  RunStore store = open_memory();
  const int64_t r1 = add(store, full_run(1));
  const int64_t r2 = add(store, full_run(2));
  NewRun cal = sample_run(RunKind::kCalibrate, 3, 0);
  cal.inputs = {r2, r1};
  const int64_t c = add(store, cal);
  Result<StoredRun> got = store.get_run(c);
  ASSERT_TRUE(got.is_ok());
  EXPECT_EQ(got->inputs, (std::vector<int64_t>{r1, r2}));

  NewRun dangling = sample_run(RunKind::kCalibrate, 4, 0);
  dangling.inputs = {r1, 12345};
  Result<int64_t> refused = store.add_run(dangling);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("input run 12345 does not exist"), std::string::npos);
  Result<std::vector<RunSummary>> all = store.list_runs();
  ASSERT_TRUE(all.is_ok());
  EXPECT_EQ(all->size(), 3u);

  ASSERT_TRUE(store.delete_run(r1).is_ok());
  got = store.get_run(c);
  ASSERT_TRUE(got.is_ok());
  EXPECT_EQ(got->inputs, (std::vector<int64_t>{r2}));
}

TEST(RunStoreFile, CreatesTheSchemaInAnEmptyFileInWalMode) {
  TempDir dir;
  const std::string path = dir.file("empty.db");
  std::ofstream(path).close();  // 0 bytes: SQLite treats it as a new database
  ASSERT_EQ(std::filesystem::file_size(path), 0u);
  int64_t id = 0;
  {
    Result<RunStore> store = RunStore::open(path);
    ASSERT_TRUE(store.is_ok()) << store.status().message();
    EXPECT_EQ(store->path(), path);
    Result<int64_t> added = store->add_run(full_run(1));
    ASSERT_TRUE(added.is_ok()) << added.status().message();
    id = *added;
    EXPECT_TRUE(std::filesystem::exists(path + "-wal"));
  }
  EXPECT_EQ(header_field(path, 60), static_cast<uint32_t>(kRunStoreSchemaVersion));
  EXPECT_EQ(header_field(path, 68), 0x53484C42u);  // application_id "SHLB"
  // File format read/write versions 2 mean WAL.
  std::ifstream in(path, std::ios::binary);
  in.seekg(18);
  EXPECT_EQ(in.get(), 2);
  EXPECT_EQ(in.get(), 2);
  // Opening again migrates nothing and finds the run.
  Result<RunStore> again = RunStore::open(path);
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  Result<StoredRun> run = again->get_run(id);
  ASSERT_TRUE(run.is_ok());
  EXPECT_EQ(run->estimates.size(), 4u);
}

TEST(RunStoreFile, RefusesANewerSchemaWithoutTouchingIt) {
  TempDir dir;
  const std::string path = dir.file("newer.db");
  {
    Result<RunStore> store = RunStore::open(path);
    ASSERT_TRUE(store.is_ok());
    ASSERT_TRUE(store->add_run(sample_run(RunKind::kPlan, 1)).is_ok());
  }
  set_header_field(path, 60, 7);
  Result<RunStore> refused = RunStore::open(path);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(refused.status().message(), path +
                                            ": run store schema version 7 is newer than the "
                                            "version this ShardLab supports (5); use a "
                                            "newer ShardLab or another run store file");
  EXPECT_EQ(header_field(path, 60), 7u);
}

TEST(RunStoreFile, UpgradesAVersion2StoreInPlace) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  int64_t id = 0;
  {
    Result<RunStore> store = RunStore::open(path);
    ASSERT_TRUE(store.is_ok());
    Result<int64_t> added = store->add_run(sample_run(RunKind::kPlan, 1));
    ASSERT_TRUE(added.is_ok());
    id = *added;
  }
  {
    // What version 2 wrote: no torchrec_version column (nor version 4's label).
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("DROP INDEX runs_by_label");
    db.exec("ALTER TABLE runs DROP COLUMN label");
    db.exec("ALTER TABLE runs DROP COLUMN torchrec_version");
    db.exec("PRAGMA user_version = 2");
  }
  ASSERT_EQ(header_field(path, 60), 2u);
  {
    Result<RunStore> upgraded = RunStore::open(path);
    ASSERT_TRUE(upgraded.is_ok()) << upgraded.status().message();
    // Runs recorded before version 3 were all planned with the 2024-02 model.
    Result<StoredRun> run = upgraded->get_run(id);
    ASSERT_TRUE(run.is_ok());
    EXPECT_EQ(run->summary.torchrec_version, "2024-02");
    EXPECT_EQ(run->summary.label, "");  // and before version 4 had no label
    EXPECT_EQ(run->estimates.size(), 3u);
    NewRun next = sample_run(RunKind::kPlan, 1);
    next.torchrec_version = "2026-08";
    Result<int64_t> added = upgraded->add_run(next);
    ASSERT_TRUE(added.is_ok());
    EXPECT_EQ(upgraded->get_run(*added)->summary.torchrec_version, "2026-08");
  }
  // Closed (the write-ahead log checkpointed): the file is at this version.
  EXPECT_EQ(header_field(path, 60), static_cast<uint32_t>(kRunStoreSchemaVersion));
}

TEST(RunStoreFile, RefusesAnotherApplicationsDatabase) {
  TempDir dir;
  const std::string path = dir.file("other.db");
  {
    Result<RunStore> store = RunStore::open(path);
    ASSERT_TRUE(store.is_ok());
  }
  set_header_field(path, 68, 0x12345678);
  Result<RunStore> refused = RunStore::open(path);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find(path + ": not a ShardLab run store"), std::string::npos)
      << refused.status().message();
}

TEST(RunStoreFile, RandomBytesAreAnErrorNamingTheFile) {
  TempDir dir;
  const std::string path = dir.file("random.db");
  std::mt19937 rng(42);
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 64 * 1024; ++i) out.put(static_cast<char>(rng() & 0xff));
  }
  Result<RunStore> store = RunStore::open(path);
  ASSERT_FALSE(store.is_ok());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(store.status().message().starts_with(path + ": ")) << store.status().message();
  EXPECT_NE(store.status().message().find("not a ShardLab run store or is damaged"),
            std::string::npos)
      << store.status().message();
}

TEST(RunStoreFile, UnwritableLocationIsAnErrorNamingTheFile) {
  TempDir dir;
  const std::string path = dir.file("no/such/dir/runs.db");
  Result<RunStore> store = RunStore::open(path);
  ASSERT_FALSE(store.is_ok());
  EXPECT_EQ(store.status().code(), StatusCode::kIo);
  EXPECT_TRUE(store.status().message().starts_with(path + ": ")) << store.status().message();
}

// Writes a store with enough runs to span many pages and closes it (the
// close checkpoints the WAL into the file).
void write_store(const std::string& path, int runs) {
  Result<RunStore> store = RunStore::open(path);
  ASSERT_TRUE(store.is_ok()) << store.status().message();
  for (int i = 0; i < runs; ++i)
    ASSERT_TRUE(store->add_run(sample_run(RunKind::kPlan, i, 50)).is_ok());
}

// Every call on a damaged store returns; counts the ones that failed.
int failures_reading(const std::string& path) {
  Result<RunStore> store = RunStore::open(path, StoreAccess::kRead);
  if (!store.is_ok()) return 1;
  int failures = 0;
  Result<std::vector<RunSummary>> runs = store->list_runs();
  if (!runs.is_ok()) ++failures;
  for (int64_t id = 1; id <= 40; ++id) {
    if (!store->get_run(id).is_ok()) ++failures;
  }
  if (!store->check_integrity().is_ok()) ++failures;
  return failures;
}

TEST(RunStoreFile, TruncatedStoreGivesErrorsNotACrash) {
  TempDir dir;
  const std::string path = dir.file("truncated.db");
  write_store(path, 40);
  ASSERT_FALSE(std::filesystem::exists(path + "-wal"));
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 64u * 1024u);
  std::filesystem::resize_file(path, size / 2);
  EXPECT_GT(failures_reading(path), 0);
}

TEST(RunStoreFile, DamagedPagesAreReportedByTheIntegrityCheck) {
  TempDir dir;
  const std::string path = dir.file("damaged.db");
  write_store(path, 40);
  const auto size = std::filesystem::file_size(path);
  {
    // Overwrite the middle third with noise, leaving the header page intact.
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    std::mt19937 rng(7);
    f.seekp(static_cast<std::streamoff>(size / 3));
    for (size_t i = 0; i < size / 3; ++i) f.put(static_cast<char>(rng() & 0xff));
  }
  EXPECT_GT(failures_reading(path), 0);
  // Read-only opening looks at the header page only; the check finds the rest.
  Result<RunStore> store = RunStore::open(path, StoreAccess::kRead);
  ASSERT_TRUE(store.is_ok()) << store.status().message();
  Status check = store->check_integrity();
  ASSERT_FALSE(check.is_ok());
  EXPECT_TRUE(check.message().starts_with(path + ": ")) << check.message();
  // Nothing is written into it: every writer runs SQLite's quick check first.
  const std::string before = read_bytes(path);
  for (const StoreAccess access : {StoreAccess::kWrite, StoreAccess::kCreate}) {
    Result<RunStore> writer = RunStore::open(path, access);
    ASSERT_FALSE(writer.is_ok());
    EXPECT_EQ(writer.status().code(), StatusCode::kCorrupt);
    EXPECT_TRUE(writer.status().message().starts_with(
        path + ": the run store is damaged (SQLite's quick check: "))
        << writer.status().message();
    EXPECT_NE(writer.status().message().find("`shardlab runs check` shows what is wrong"),
              std::string::npos);
  }
  EXPECT_EQ(read_bytes(path), before);
}

// Every way of opening `path`, each expected to fail leaving it as it was
// (bytes, and no -wal or -shm beside it).
void expect_refused_unchanged(const std::string& path, const std::string& message_start) {
  const std::string before = read_bytes(path);
  for (const StoreAccess access : {StoreAccess::kRead, StoreAccess::kWrite, StoreAccess::kCreate}) {
    Result<RunStore> store = RunStore::open(path, access);
    ASSERT_FALSE(store.is_ok()) << static_cast<int>(access);
    EXPECT_TRUE(store.status().message().starts_with(message_start)) << store.status().message();
    EXPECT_EQ(read_bytes(path), before)
        << "access " << static_cast<int>(access) << " modified the file";
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
  }
}

TEST(RunStoreFile, AnotherProgramsDatabaseIsLeftByteForByte) {
  TempDir dir;
  // No application_id, a table: the usual SQLite file of another program.
  const std::string plain = dir.file("app.db");
  {
    SQLite::Database db(plain, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES "
        "('ada')");
  }
  expect_refused_unchanged(plain,
                           plain +
                               ": not a ShardLab run store: an SQLite database of another program "
                               "(no application_id, user_version 0, 1 tables and indexes)");
  // A user_version but no tables, and another application_id.
  const std::string versioned = dir.file("versioned.db");
  {
    SQLite::Database db(versioned, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA user_version = 3");
  }
  expect_refused_unchanged(versioned, versioned + ": not a ShardLab run store");
  const std::string other = dir.file("other_app.db");
  {
    SQLite::Database db(other, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA application_id = 1234; CREATE TABLE t (x)");
  }
  expect_refused_unchanged(other,
                           other +
                               ": not a ShardLab run store: an SQLite database of another program "
                               "(application_id 0x4d2");
}

// A store of this version that lost a table or a column, and a file with the
// store's application_id and version but no tables at all: every access
// refuses it (corrupt, naming what is missing) before writing anything.
TEST(RunStoreFile, AStoreMissingPartOfItsSchemaIsRefusedUntouched) {
  TempDir dir;
  const std::string dropped = dir.file("dropped.db");
  {
    Result<RunStore> s = RunStore::open(dropped, StoreAccess::kCreate);
    ASSERT_TRUE(s.is_ok()) << s.status().message();
    ASSERT_TRUE(s->add_run(sample_run(RunKind::kPlan, 0)).is_ok());
  }
  {
    SQLite::Database db(dropped, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA journal_mode = DELETE; DROP TABLE measurements");
  }
  expect_refused_unchanged(dropped, dropped +
                                        ": the run store is damaged: its schema has no "
                                        "table measurements");
  for (const StoreAccess access : {StoreAccess::kRead, StoreAccess::kWrite}) {
    EXPECT_EQ(RunStore::open(dropped, access).status().code(), StatusCode::kCorrupt);
  }

  const std::string bare = dir.file("bare.db");
  {
    SQLite::Database db(bare, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA application_id = " + std::to_string(0x53484C42) +
            "; PRAGMA user_version = " + std::to_string(kRunStoreSchemaVersion));
  }
  expect_refused_unchanged(bare, bare + ": the run store is damaged: its schema has no table ");
}

TEST(RunStoreFile, FilesThatAreNotSqliteAreNeverReinitialised) {
  TempDir dir;
  for (const std::string& bytes :
       {std::string("x"), std::string("{\"tables\": []}\n"), std::string(99, '\0'),
        std::string("SQLite format 3") + std::string(20, '\0')}) {
    const std::string path = dir.file("short.db");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    expect_refused_unchanged(
        path, path +
                  ": the file is not a ShardLab run store or is damaged: not an SQLite "
                  "database (");
  }
  Result<RunStore> folder = RunStore::open(dir.file(""), StoreAccess::kCreate);
  ASSERT_FALSE(folder.is_ok());
  EXPECT_NE(folder.status().message().find("not a run store: is a directory"), std::string::npos);
}

TEST(RunStoreFile, OnlyCreatingMakesAStoreOfAnEmptyOrMissingFile) {
  TempDir dir;
  const std::string empty = dir.file("empty.db");
  std::ofstream(empty).close();
  for (const StoreAccess access : {StoreAccess::kRead, StoreAccess::kWrite}) {
    Result<RunStore> store = RunStore::open(empty, access);
    ASSERT_FALSE(store.is_ok());
    EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
    EXPECT_NE(store.status().message().find("no run store here"), std::string::npos)
        << store.status().message();
    EXPECT_EQ(std::filesystem::file_size(empty), 0u);
  }
  const std::string missing = dir.file("missing.db");
  for (const StoreAccess access : {StoreAccess::kRead, StoreAccess::kWrite}) {
    EXPECT_FALSE(RunStore::open(missing, access).is_ok());
    EXPECT_FALSE(std::filesystem::exists(missing));
  }
  EXPECT_TRUE(RunStore::check_can_create(missing).is_ok());
  EXPECT_FALSE(std::filesystem::exists(missing));
  const Status no_dir = RunStore::check_can_create(dir.file("no/dir/runs.db"));
  ASSERT_FALSE(no_dir.is_ok());
  EXPECT_EQ(no_dir.message(), dir.file("no/dir/runs.db") +
                                  ": cannot create the run store: no directory " +
                                  dir.file("no/dir"));
  // An SQLite database with nothing in it is as good as an empty file.
  const std::string blank = dir.file("blank.db");
  {
    SQLite::Database db(blank, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE t (x); DROP TABLE t");
  }
  EXPECT_FALSE(RunStore::open(blank, StoreAccess::kRead).is_ok());
  Result<RunStore> created = RunStore::open(blank, StoreAccess::kCreate);
  ASSERT_TRUE(created.is_ok()) << created.status().message();
  EXPECT_TRUE(created->add_run(sample_run(RunKind::kPlan, 1)).is_ok());
}

TEST(RunStoreFile, ReadingWritesNothing) {
  TempDir dir;
  const std::string path = dir.file("runs.db");
  {
    Result<RunStore> store = RunStore::open(path);
    ASSERT_TRUE(store.is_ok());
    ASSERT_TRUE(store->add_run(sample_run(RunKind::kPlan, 1)).is_ok());
  }
  const std::string before = read_bytes(path);
  {
    Result<RunStore> store = RunStore::open(path, StoreAccess::kRead);
    ASSERT_TRUE(store.is_ok()) << store.status().message();
    Result<std::vector<RunSummary>> runs = store->list_runs();
    ASSERT_TRUE(runs.is_ok());
    EXPECT_EQ(runs->size(), 1u);
    EXPECT_TRUE(store->get_run(1).is_ok());
    EXPECT_TRUE(store->check_integrity().is_ok());
    Result<int64_t> added = store->add_run(sample_run(RunKind::kPlan, 2));
    ASSERT_FALSE(added.is_ok());
    EXPECT_EQ(added.status().code(), StatusCode::kInternal);
    EXPECT_FALSE(store->delete_run(1).is_ok());
  }
  EXPECT_EQ(read_bytes(path), before);
}

}  // namespace
}  // namespace shardlab::data
