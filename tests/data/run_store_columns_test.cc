// The run store's column lists (data/src/run_store_columns.h) against its
// schema and its stored layout:
//  - each list names exactly the columns of its table in a new store, so a
//    column added to the schema and not to a list (or the other way round)
//    fails here;
//  - rows written with plain SQL in the layout earlier builds wrote read back
//    exactly, and rows the store writes read back by plain SQL with the same
//    values: the lists change how the code names columns, not what is stored;
//  - an enum column holding a name this build does not know is a corrupt
//    error naming table, column and value.

#include "../../data/src/run_store_columns.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../../data/src/run_store_internal.h"
#include "run_store_test_helpers.h"
#include "shardlab/data/run_store.h"

namespace shardlab::data {
namespace {

using testing::expect_same_rows;
using testing::full_run;
using testing::TempDir;

// A new, empty store at `path`.
void create_store(const std::string& path) {
  Result<RunStore> store = RunStore::open(path);
  ASSERT_TRUE(store.is_ok()) << store.status().message();
}

// The columns of `table`, sorted.
std::vector<std::string> schema_columns(SQLite::Database& db, const std::string& table) {
  SQLite::Statement st(db, "SELECT name FROM pragma_table_info(?)");
  st.bind(1, table);
  std::vector<std::string> out;
  while (st.executeStep()) out.push_back(st.getColumn(0).getString());
  std::sort(out.begin(), out.end());
  return out;
}

// The keys and columns `Lists` name for their table, sorted.
template <typename... Lists>
std::vector<std::string> listed_columns() {
  std::vector<std::string> out;
  auto add = [&out]<typename List>(List*) {
    out.insert(out.end(), List::kKeys.begin(), List::kKeys.end());
    const std::vector<std::string> names = internal::column_names<List>();
    out.insert(out.end(), names.begin(), names.end());
  };
  (add(static_cast<Lists*>(nullptr)), ...);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RunStoreColumns, EachListNamesExactlyTheColumnsOfItsTable) {
  TempDir dir;
  const std::string path = dir.file("new.db");
  create_store(path);
  SQLite::Database db(path, SQLite::OPEN_READONLY);

  // Every table of the schema has a list below.
  std::vector<std::string> tables;
  SQLite::Statement st(db,
                       "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                       "'sqlite_%' ORDER BY name");
  while (st.executeStep()) tables.push_back(st.getColumn(0).getString());
  EXPECT_EQ(tables, (std::vector<std::string>{"calibrations", "estimates", "measurements",
                                              "run_inputs", "runs", "sim_phases"}));

  using namespace internal;
  EXPECT_STREQ(RunSummaryColumns::kTable, "runs");
  EXPECT_STREQ(RunTextColumns::kTable, "runs");
  EXPECT_EQ((listed_columns<RunSummaryColumns, RunTextColumns>()), schema_columns(db, "runs"));
  EXPECT_EQ(listed_columns<EstimateColumns>(), schema_columns(db, EstimateColumns::kTable));
  EXPECT_EQ(listed_columns<SimPhaseColumns>(), schema_columns(db, SimPhaseColumns::kTable));
  EXPECT_EQ(listed_columns<MeasurementColumns>(), schema_columns(db, MeasurementColumns::kTable));
  EXPECT_EQ(listed_columns<CalibrationColumns>(), schema_columns(db, CalibrationColumns::kTable));
  EXPECT_EQ(listed_columns<RunInputColumns>(), schema_columns(db, RunInputColumns::kTable));
}

// Binds `values` to st's parameters 1, 2, ... and runs it.
template <typename... Values>
void exec_with(SQLite::Statement& st, const Values&... values) {
  int i = 1;
  (st.bind(i++, values), ...);
  st.exec();
  st.reset();
}

std::string text(std::string_view s) { return std::string(s); }

// Writes `run` as run `id` of the store at `path` with plain SQL, every
// column spelled out as builds before the column lists wrote them (schema
// version 3).
void write_old_layout(const std::string& path, int64_t id, const NewRun& run) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  SQLite::Transaction tx(db);
  SQLite::Statement runs(
      db,
      "INSERT INTO runs (id, kind, created_at, scenario_name, scenario_hash, scenario_json, "
      "plan_json, summary_json, shardlab_version, host, device, backend, estimate_count, "
      "sim_phase_count, measurement_count, torchrec_version) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  exec_with(runs, id, text(to_string(run.kind)), text("2025-01-31T17:04:05.123Z"),
            run.scenario_name, text("0123456789abcdef"), run.scenario_json, run.plan_json,
            run.summary_json, text("0.3.0"), text("old-host"), run.device, run.backend,
            static_cast<int64_t>(run.estimates.size()), static_cast<int64_t>(run.sim_phases.size()),
            static_cast<int64_t>(run.measurements.size()), run.torchrec_version);
  SQLite::Statement estimates(
      db,
      "INSERT INTO estimates (run_id, seq, fqn, table_name, shard, rank, sharding_type, "
      "compute_kernel, rows, cols, row_offset, col_offset, fwd_compute_ms, fwd_comms_ms, "
      "bwd_compute_ms, bwd_comms_ms, prefetch_ms, hbm_bytes, ddr_bytes) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  int64_t seq = 0;
  for (const EstimateRow& r : run.estimates) {
    exec_with(estimates, id, seq++, r.fqn, r.table, r.shard, r.rank,
              text(planner::to_string(r.sharding_type)), text(planner::to_string(r.compute_kernel)),
              r.rows, r.cols, r.row_offset, r.col_offset, r.fwd_compute_ms, r.fwd_comms_ms,
              r.bwd_compute_ms, r.bwd_comms_ms, r.prefetch_ms, r.hbm_bytes, r.ddr_bytes);
  }
  SQLite::Statement phases(
      db,
      "INSERT INTO sim_phases (run_id, seq, rank, phase, stream, iteration, "
      "start_ms, end_ms, bytes, tables) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  seq = 0;
  for (const SimPhaseRow& r : run.sim_phases) {
    exec_with(phases, id, seq++, r.rank, text(sim::to_string(r.phase)),
              text(sim::to_string(r.stream)), r.iteration, r.start_ms, r.end_ms, r.bytes, r.tables);
  }
  SQLite::Statement measurements(
      db,
      "INSERT INTO measurements (run_id, seq, rank, phase, option_index, shard, table_name, "
      "sharding_type, compute_kernel, dim, precision, bags, pooling_factor, collective, "
      "collective_kind, members, inter_host, bytes, model_bytes, estimated_ms, median_ms, p90_ms, "
      "min_ms, samples, wrong_elements) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  seq = 0;
  for (const kernels::Measurement& m : run.measurements) {
    exec_with(measurements, id, seq++, m.rank, text(sim::to_string(m.phase)), m.option, m.shard,
              m.table, text(planner::to_string(m.sharding_type)),
              text(planner::to_string(m.compute_kernel)), m.dim,
              text(kernels::to_string(m.precision)), m.bags, m.pooling_factor, m.collective,
              text(sim::to_string(m.collective_kind)), m.members, m.inter_host ? 1 : 0, m.bytes,
              m.model_bytes, m.estimated_ms, m.timing.median_ms, m.timing.p90_ms, m.timing.min_ms,
              m.timing.samples, m.wrong_elements);
  }
  if (run.calibration) {
    const CalibrationRow& c = *run.calibration;
    SQLite::Statement calibration(
        db,
        "INSERT INTO calibrations (run_id, name, profile_json, mape_before, mape_after, "
        "fit_count, held_out_count) VALUES (?, ?, ?, ?, ?, ?, ?)");
    exec_with(calibration, id, c.name, c.profile_json, c.mape_before, c.mape_after, c.fit_count,
              c.held_out_count);
  }
  SQLite::Statement inputs(db, "INSERT INTO run_inputs (run_id, input_run_id) VALUES (?, ?)");
  for (int64_t input : run.inputs) exec_with(inputs, id, input);
  tx.commit();
}

TEST(RunStoreColumns, RowsWrittenInTheOldLayoutReadBackExactly) {
  TempDir dir;
  const std::string path = dir.file("old.db");
  create_store(path);
  NewRun first = full_run(3);
  first.torchrec_version = "2024-02";
  NewRun second = full_run(4);
  second.kind = RunKind::kCalibrate;
  second.torchrec_version = "2026-08";
  second.inputs = {1};
  write_old_layout(path, 1, first);
  write_old_layout(path, 2, second);

  Result<RunStore> store = RunStore::open(path, StoreAccess::kRead);
  ASSERT_TRUE(store.is_ok()) << store.status().message();
  EXPECT_TRUE(store->check_integrity().is_ok());
  Result<StoredRun> got = store->get_run(2);
  ASSERT_TRUE(got.is_ok()) << got.status().message();
  const RunSummary& s = got->summary;
  EXPECT_EQ(s.id, 2);
  EXPECT_EQ(s.kind, RunKind::kCalibrate);
  EXPECT_EQ(s.created_at, "2025-01-31T17:04:05.123Z");
  EXPECT_EQ(s.scenario_name, second.scenario_name);
  EXPECT_EQ(s.scenario_hash, "0123456789abcdef");
  EXPECT_EQ(s.shardlab_version, "0.3.0");
  EXPECT_EQ(s.host, "old-host");
  EXPECT_EQ(s.device, second.device);
  EXPECT_EQ(s.backend, second.backend);
  EXPECT_EQ(s.torchrec_version, "2026-08");
  EXPECT_EQ(s.summary_json, second.summary_json);
  EXPECT_EQ(s.estimate_count, 4);
  EXPECT_EQ(s.sim_phase_count, 4);
  EXPECT_EQ(s.measurement_count, 2);
  EXPECT_TRUE(s.has_calibration);
  EXPECT_EQ(got->scenario_json, second.scenario_json);
  EXPECT_EQ(got->plan_json, second.plan_json);
  EXPECT_EQ(got->inputs, (std::vector<int64_t>{1}));
  expect_same_rows(second, *got);

  Result<std::vector<RunSummary>> list = store->list_runs();
  ASSERT_TRUE(list.is_ok()) << list.status().message();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[1].id, 1);
  EXPECT_EQ((*list)[1].torchrec_version, "2024-02");
  EXPECT_EQ((*list)[1].kind, RunKind::kReplay);
  Result<std::vector<kernels::Measurement>> measured = store->measurements({1});
  ASSERT_TRUE(measured.is_ok()) << measured.status().message();
  StoredRun only_measurements;
  only_measurements.measurements = *measured;
  NewRun first_measurements;
  first_measurements.measurements = first.measurements;
  expect_same_rows(first_measurements, only_measurements);
}

TEST(RunStoreColumns, RowsTheStoreWritesReadBackByPlainSqlInTheOldLayout) {
  TempDir dir;
  const std::string path = dir.file("new.db");
  NewRun run = full_run(6);
  run.torchrec_version = "2026-08";
  {
    Result<RunStore> store = RunStore::open(path);
    ASSERT_TRUE(store.is_ok()) << store.status().message();
    ASSERT_TRUE(store->add_run(full_run(1)).is_ok());
    run.inputs = {1};
    Result<int64_t> id = store->add_run(run);
    ASSERT_TRUE(id.is_ok()) << id.status().message();
    ASSERT_EQ(*id, 2);
  }
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  StoredRun out;
  {
    SQLite::Statement st(db,
                         "SELECT kind, scenario_name, scenario_json, plan_json, summary_json, "
                         "device, backend, estimate_count, sim_phase_count, measurement_count, "
                         "torchrec_version, scenario_hash FROM runs WHERE id = 2");
    ASSERT_TRUE(st.executeStep());
    EXPECT_EQ(st.getColumn(0).getString(), "replay");
    EXPECT_EQ(st.getColumn(1).getString(), run.scenario_name);
    EXPECT_EQ(st.getColumn(2).getString(), run.scenario_json);
    EXPECT_EQ(st.getColumn(3).getString(), run.plan_json);
    EXPECT_EQ(st.getColumn(4).getString(), run.summary_json);
    EXPECT_EQ(st.getColumn(5).getString(), run.device);
    EXPECT_EQ(st.getColumn(6).getString(), run.backend);
    EXPECT_EQ(st.getColumn(7).getInt64(), 4);
    EXPECT_EQ(st.getColumn(8).getInt64(), 4);
    EXPECT_EQ(st.getColumn(9).getInt64(), 2);
    EXPECT_EQ(st.getColumn(10).getString(), "2026-08");
    EXPECT_EQ(st.getColumn(11).getString().size(), 16u);
  }
  {
    SQLite::Statement st(
        db,
        "SELECT fqn, table_name, shard, rank, sharding_type, compute_kernel, rows, cols, "
        "row_offset, col_offset, fwd_compute_ms, fwd_comms_ms, bwd_compute_ms, bwd_comms_ms, "
        "prefetch_ms, hbm_bytes, ddr_bytes FROM estimates WHERE run_id = 2 ORDER BY seq");
    while (st.executeStep()) {
      EstimateRow r;
      r.fqn = st.getColumn(0).getString();
      r.table = st.getColumn(1).getString();
      r.shard = st.getColumn(2).getInt();
      r.rank = st.getColumn(3).getInt();
      r.sharding_type = *planner::parse_sharding_type(st.getColumn(4).getString());
      r.compute_kernel = *planner::parse_compute_kernel(st.getColumn(5).getString());
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
      out.estimates.push_back(r);
    }
  }
  {
    SQLite::Statement st(db,
                         "SELECT rank, phase, stream, iteration, start_ms, end_ms, bytes, tables "
                         "FROM sim_phases WHERE run_id = 2 ORDER BY seq");
    while (st.executeStep()) {
      SimPhaseRow r;
      r.rank = st.getColumn(0).getInt();
      r.phase = *internal::parse_phase(st.getColumn(1).getString());
      r.stream = *internal::parse_stream(st.getColumn(2).getString());
      r.iteration = st.getColumn(3).getInt();
      r.start_ms = st.getColumn(4).getDouble();
      r.end_ms = st.getColumn(5).getDouble();
      r.bytes = st.getColumn(6).getDouble();
      r.tables = st.getColumn(7).getInt();
      out.sim_phases.push_back(r);
    }
  }
  {
    SQLite::Statement st(
        db,
        "SELECT rank, phase, option_index, shard, table_name, sharding_type, compute_kernel, dim, "
        "precision, bags, pooling_factor, collective, collective_kind, members, inter_host, "
        "bytes, model_bytes, estimated_ms, median_ms, p90_ms, min_ms, samples, wrong_elements "
        "FROM measurements WHERE run_id = 2 ORDER BY seq");
    while (st.executeStep()) {
      kernels::Measurement m;
      m.rank = st.getColumn(0).getInt();
      m.phase = *internal::parse_phase(st.getColumn(1).getString());
      m.option = st.getColumn(2).getInt();
      m.shard = st.getColumn(3).getInt();
      m.table = st.getColumn(4).getString();
      m.sharding_type = *planner::parse_sharding_type(st.getColumn(5).getString());
      m.compute_kernel = *planner::parse_compute_kernel(st.getColumn(6).getString());
      m.dim = st.getColumn(7).getInt64();
      m.precision = *internal::parse_precision(st.getColumn(8).getString());
      m.bags = st.getColumn(9).getInt64();
      m.pooling_factor = st.getColumn(10).getDouble();
      m.collective = st.getColumn(11).getInt();
      m.collective_kind = *internal::parse_collective_kind(st.getColumn(12).getString());
      m.members = st.getColumn(13).getInt();
      EXPECT_EQ(st.getColumn(14).getType(), SQLite::INTEGER);
      m.inter_host = st.getColumn(14).getInt() != 0;
      m.bytes = st.getColumn(15).getDouble();
      m.model_bytes = st.getColumn(16).getDouble();
      m.estimated_ms = st.getColumn(17).getDouble();
      m.timing.median_ms = st.getColumn(18).getDouble();
      m.timing.p90_ms = st.getColumn(19).getDouble();
      m.timing.min_ms = st.getColumn(20).getDouble();
      m.timing.samples = st.getColumn(21).getInt();
      m.wrong_elements = st.getColumn(22).getInt64();
      out.measurements.push_back(m);
    }
  }
  {
    SQLite::Statement st(db,
                         "SELECT name, profile_json, mape_before, mape_after, fit_count, "
                         "held_out_count FROM calibrations WHERE run_id = 2");
    ASSERT_TRUE(st.executeStep());
    out.calibration = CalibrationRow{.name = st.getColumn(0).getString(),
                                     .profile_json = st.getColumn(1).getString(),
                                     .mape_before = st.getColumn(2).getDouble(),
                                     .mape_after = st.getColumn(3).getDouble(),
                                     .fit_count = st.getColumn(4).getInt(),
                                     .held_out_count = st.getColumn(5).getInt()};
  }
  expect_same_rows(run, out);
  EXPECT_EQ(db.execAndGet("SELECT group_concat(input_run_id) FROM run_inputs WHERE run_id = 2")
                .getString(),
            "1");
}

// Each enum column: writing an unknown name into it makes reading the run a
// corrupt error naming the table, the column and the value.
TEST(RunStoreColumns, UnknownEnumNamesAreCorruptNamingTableColumnAndValue) {
  TempDir dir;
  struct Case {
    const char* table;
    const char* column;
  };
  for (const Case& c :
       {Case{"estimates", "sharding_type"}, Case{"estimates", "compute_kernel"},
        Case{"sim_phases", "phase"}, Case{"sim_phases", "stream"}, Case{"measurements", "phase"},
        Case{"measurements", "sharding_type"}, Case{"measurements", "compute_kernel"},
        Case{"measurements", "precision"}, Case{"measurements", "collective_kind"}}) {
    const std::string name = std::string(c.table) + "." + c.column;
    SCOPED_TRACE(name);
    const std::string path = dir.file(name + ".db");
    {
      Result<RunStore> store = RunStore::open(path);
      ASSERT_TRUE(store.is_ok()) << store.status().message();
      ASSERT_TRUE(store->add_run(full_run(2)).is_ok());
    }
    {
      SQLite::Database db(path, SQLite::OPEN_READWRITE);
      db.exec(std::string("UPDATE ") + c.table + " SET " + c.column + " = 'bogus' WHERE seq = 1");
    }
    Result<RunStore> store = RunStore::open(path, StoreAccess::kRead);
    ASSERT_TRUE(store.is_ok()) << store.status().message();
    Result<StoredRun> got = store->get_run(1);
    ASSERT_FALSE(got.is_ok());
    EXPECT_EQ(got.status().code(), StatusCode::kCorrupt);
    EXPECT_NE(got.status().message().find(std::string("table ") + c.table + ": column " + c.column +
                                          " holds unknown value 'bogus'"),
              std::string::npos)
        << got.status().message();
    if (std::string(c.table) == "measurements") {
      Result<std::vector<kernels::Measurement>> measured = store->measurements({1});
      ASSERT_FALSE(measured.is_ok());
      EXPECT_EQ(measured.status().code(), StatusCode::kCorrupt);
    }
  }
}

}  // namespace
}  // namespace shardlab::data
