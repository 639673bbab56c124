// The run store's schema: the only place its tables are defined. Each
// migration brings the file from version N-1 to N (PRAGMA user_version) and
// runs in one transaction with the version bump, so a file is always at a
// whole version. Never edit a released step: add the next one.
// A column added by a step is also added to its table's list in
// run_store_columns.h, from which the store's statements are made (a test
// compares the two).
//
// Version 1 (docs/run-store.md describes every column):
//   runs          one row per run. kind is plan / simulate / replay /
//                 calibrate; created_at is UTC ISO-8601 with ms;
//                 scenario_hash is FNV-1a 64 of scenario_json's bytes in 16
//                 lowercase hex digits; summary_json is a JSON object of
//                 headline numbers; the *_count columns are written with the
//                 run and must match its child rows (check_integrity).
//   estimates     per-shard TorchRec estimates of the run's plan (ms, bytes).
//   sim_phases    simulated phase times per rank (ms; bytes sent).
//   measurements  measured phase times, one kernels::Measurement each (ms).
//   calibrations  at most one fitted profile per run, with its fit errors (%).
//   run_inputs    runs a run was derived from (calibration <- replays).
// Child rows are keyed (run_id, seq), seq being the order they were added,
// and go with their run (ON DELETE CASCADE; foreign_keys is on).
//
// Version 2: runs.kind also takes 'optimize' (shardlab optimize). SQLite
// cannot change a CHECK in place, so the runs table is rebuilt with SQLite's
// documented procedure (sqlite.org/lang_altertable.html, "Making Other Kinds
// Of Table Schema Changes"): foreign keys off around the step (so dropping
// the old table cascades to nothing), rows copied with their ids, the
// AUTOINCREMENT high-water mark carried over (ids are never reused), indexes
// rebuilt, foreign_key_check before the commit.
// Version 5: runs.kind also takes 'trace' (a summarized profiler trace),
// the runs table rebuilt as in version 2.
// Version 3:
//   runs.torchrec_version  the TorchRec planner model the run planned or
//                 rated with ("2024-02", "2026-08"; docs/torchrec-versions.md).
//                 Runs recorded before version 3 all used the 2024-02 model.

#include "run_store_internal.h"

namespace shardlab::data::internal {
namespace {

constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE runs (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  kind              TEXT    NOT NULL CHECK (kind IN ('plan', 'simulate', 'replay', 'calibrate')),
  created_at        TEXT    NOT NULL,
  scenario_name     TEXT    NOT NULL,
  scenario_hash     TEXT    NOT NULL,
  scenario_json     TEXT    NOT NULL,
  plan_json         TEXT    NOT NULL DEFAULT '',
  summary_json      TEXT    NOT NULL DEFAULT '{}',
  shardlab_version  TEXT    NOT NULL,
  host              TEXT    NOT NULL,
  device            TEXT    NOT NULL DEFAULT '',
  backend           TEXT    NOT NULL DEFAULT '',
  estimate_count    INTEGER NOT NULL DEFAULT 0,
  sim_phase_count   INTEGER NOT NULL DEFAULT 0,
  measurement_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX runs_by_kind ON runs (kind, id);
CREATE INDEX runs_by_scenario ON runs (scenario_name, id);

CREATE TABLE estimates (
  run_id          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL,
  fqn             TEXT    NOT NULL,
  table_name      TEXT    NOT NULL,
  shard           INTEGER NOT NULL,
  rank            INTEGER NOT NULL,
  sharding_type   TEXT    NOT NULL,
  compute_kernel  TEXT    NOT NULL,
  rows            INTEGER NOT NULL,
  cols            INTEGER NOT NULL,
  row_offset      INTEGER NOT NULL,
  col_offset      INTEGER NOT NULL,
  fwd_compute_ms  REAL    NOT NULL,
  fwd_comms_ms    REAL    NOT NULL,
  bwd_compute_ms  REAL    NOT NULL,
  bwd_comms_ms    REAL    NOT NULL,
  prefetch_ms     REAL    NOT NULL,
  hbm_bytes       INTEGER NOT NULL,
  ddr_bytes       INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE sim_phases (
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  rank       INTEGER NOT NULL,
  phase      TEXT    NOT NULL,
  stream     TEXT    NOT NULL,
  iteration  INTEGER NOT NULL,
  start_ms   REAL    NOT NULL,
  end_ms     REAL    NOT NULL,
  bytes      REAL    NOT NULL,
  tables     INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE measurements (
  run_id          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL,
  rank            INTEGER NOT NULL,
  phase           TEXT    NOT NULL,
  option_index    INTEGER NOT NULL,
  shard           INTEGER NOT NULL,
  table_name      TEXT    NOT NULL,
  sharding_type   TEXT    NOT NULL,
  compute_kernel  TEXT    NOT NULL,
  dim             INTEGER NOT NULL,
  precision       TEXT    NOT NULL,
  bags            INTEGER NOT NULL,
  pooling_factor  REAL    NOT NULL,
  collective      INTEGER NOT NULL,
  collective_kind TEXT    NOT NULL,
  members         INTEGER NOT NULL,
  inter_host      INTEGER NOT NULL,
  bytes           REAL    NOT NULL,
  model_bytes     REAL    NOT NULL,
  estimated_ms    REAL    NOT NULL,
  median_ms       REAL    NOT NULL,
  p90_ms          REAL    NOT NULL,
  min_ms          REAL    NOT NULL,
  samples         INTEGER NOT NULL,
  wrong_elements  INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE calibrations (
  run_id          INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  name            TEXT    NOT NULL,
  profile_json    TEXT    NOT NULL,
  mape_before     REAL    NOT NULL,
  mape_after      REAL    NOT NULL,
  fit_count       INTEGER NOT NULL,
  held_out_count  INTEGER NOT NULL
);

CREATE TABLE run_inputs (
  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  input_run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  PRIMARY KEY (run_id, input_run_id)
) WITHOUT ROWID;
CREATE INDEX run_inputs_by_input ON run_inputs (input_run_id);
)sql";

constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE runs_v2 (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  kind              TEXT    NOT NULL
                    CHECK (kind IN ('plan', 'simulate', 'replay', 'calibrate', 'optimize')),
  created_at        TEXT    NOT NULL,
  scenario_name     TEXT    NOT NULL,
  scenario_hash     TEXT    NOT NULL,
  scenario_json     TEXT    NOT NULL,
  plan_json         TEXT    NOT NULL DEFAULT '',
  summary_json      TEXT    NOT NULL DEFAULT '{}',
  shardlab_version  TEXT    NOT NULL,
  host              TEXT    NOT NULL,
  device            TEXT    NOT NULL DEFAULT '',
  backend           TEXT    NOT NULL DEFAULT '',
  estimate_count    INTEGER NOT NULL DEFAULT 0,
  sim_phase_count   INTEGER NOT NULL DEFAULT 0,
  measurement_count INTEGER NOT NULL DEFAULT 0
);
INSERT INTO runs_v2 (id, kind, created_at, scenario_name, scenario_hash, scenario_json, plan_json,
                     summary_json, shardlab_version, host, device, backend, estimate_count,
                     sim_phase_count, measurement_count)
  SELECT id, kind, created_at, scenario_name, scenario_hash, scenario_json, plan_json,
         summary_json, shardlab_version, host, device, backend, estimate_count,
         sim_phase_count, measurement_count
  FROM runs ORDER BY id;
DELETE FROM sqlite_sequence WHERE name = 'runs_v2';
INSERT INTO sqlite_sequence (name, seq) SELECT 'runs_v2', seq FROM sqlite_sequence WHERE name = 'runs';
DROP TABLE runs;
ALTER TABLE runs_v2 RENAME TO runs;
CREATE INDEX runs_by_kind ON runs (kind, id);
CREATE INDEX runs_by_scenario ON runs (scenario_name, id);
)sql";

constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE runs ADD COLUMN torchrec_version TEXT NOT NULL DEFAULT '';
UPDATE runs SET torchrec_version = '2024-02';
)sql";

// Version 4: the user's label of a run (--label, shardlab runs label).
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE runs ADD COLUMN label TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_label ON runs (label, id);
)sql";

// Version 5: runs.kind also takes 'trace' (shardlab trace summarize), the
// runs table rebuilt as in version 2.
constexpr const char* kSchemaV5 = R"sql(
CREATE TABLE runs_v5 (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  kind              TEXT    NOT NULL
                    CHECK (kind IN ('plan', 'simulate', 'replay', 'calibrate', 'optimize', 'trace')),
  created_at        TEXT    NOT NULL,
  scenario_name     TEXT    NOT NULL,
  scenario_hash     TEXT    NOT NULL,
  scenario_json     TEXT    NOT NULL,
  plan_json         TEXT    NOT NULL DEFAULT '',
  summary_json      TEXT    NOT NULL DEFAULT '{}',
  shardlab_version  TEXT    NOT NULL,
  host              TEXT    NOT NULL,
  device            TEXT    NOT NULL DEFAULT '',
  backend           TEXT    NOT NULL DEFAULT '',
  estimate_count    INTEGER NOT NULL DEFAULT 0,
  sim_phase_count   INTEGER NOT NULL DEFAULT 0,
  measurement_count INTEGER NOT NULL DEFAULT 0,
  torchrec_version  TEXT    NOT NULL DEFAULT '',
  label             TEXT    NOT NULL DEFAULT ''
);
INSERT INTO runs_v5 (id, kind, created_at, scenario_name, scenario_hash, scenario_json, plan_json,
                     summary_json, shardlab_version, host, device, backend, estimate_count,
                     sim_phase_count, measurement_count, torchrec_version, label)
  SELECT id, kind, created_at, scenario_name, scenario_hash, scenario_json, plan_json,
         summary_json, shardlab_version, host, device, backend, estimate_count,
         sim_phase_count, measurement_count, torchrec_version, label
  FROM runs ORDER BY id;
DELETE FROM sqlite_sequence WHERE name = 'runs_v5';
INSERT INTO sqlite_sequence (name, seq) SELECT 'runs_v5', seq FROM sqlite_sequence WHERE name = 'runs';
DROP TABLE runs;
ALTER TABLE runs_v5 RENAME TO runs;
CREATE INDEX runs_by_kind ON runs (kind, id);
CREATE INDEX runs_by_scenario ON runs (scenario_name, id);
CREATE INDEX runs_by_label ON runs (label, id);
)sql";

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> kMigrations = {
      {.version = 1, .sql = kSchemaV1},
      {.version = 2, .sql = kSchemaV2, .rebuilds_tables = true},
      {.version = 3, .sql = kSchemaV3},
      {.version = 4, .sql = kSchemaV4},
      {.version = 5, .sql = kSchemaV5, .rebuilds_tables = true},
  };
  return kMigrations;
}

}  // namespace shardlab::data::internal
