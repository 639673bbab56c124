// The columns of every table the run store writes, each named once, beside
// the record member it holds. run_store.cc generates its INSERT and SELECT
// statements, its binds and its reads from these lists, so a column is added
// here and in a migration step (run_store_schema.cc), and nowhere else. A
// test checks each table's list against PRAGMA table_info of a new store.
//
// Each list is a struct with
//   kTable    the table;
//   kKeys     the columns the store fills in, not the record: the run's id
//             (SQLite assigns it), the owning run_id, the row's seq;
//   kOrderBy  the order rows are read back in (child tables);
//   Record    the type a row is read into;
//   columns(record, visit)
//             calls visit(name, member) for each other column, in the
//             order of the statements. `record` is const when writing; the
//             template also takes any type with the same members (NewRun's
//             scenario_json and plan_json are written, StoredRun's read).
// Members are std::string, int, int64_t, double, bool (0 or 1) or an enum
// stored as its to_string text.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "shardlab/data/run_store.h"
#include "shardlab/kernels/measurement.h"

namespace shardlab::data::internal {

// runs: what list_runs reads. Besides these, list_runs reads whether the run
// has a calibration (a row in calibrations, not a column).
struct RunSummaryColumns {
  static constexpr const char* kTable = "runs";
  static constexpr std::array<const char*, 1> kKeys{"id"};  // INTEGER PRIMARY KEY AUTOINCREMENT
  using Record = RunSummary;
  template <typename Summary, typename Visit>
  static void columns(Summary& s, Visit&& v) {
    v("kind", s.kind);
    v("created_at", s.created_at);
    v("scenario_name", s.scenario_name);
    v("scenario_hash", s.scenario_hash);
    v("summary_json", s.summary_json);
    v("shardlab_version", s.shardlab_version);
    v("host", s.host);
    v("device", s.device);
    v("backend", s.backend);
    v("estimate_count", s.estimate_count);
    v("sim_phase_count", s.sim_phase_count);
    v("measurement_count", s.measurement_count);
    v("torchrec_version", s.torchrec_version);
    v("label", s.label);
  }
};

// runs: the documents, which only get_run reads.
struct RunTextColumns {
  static constexpr const char* kTable = "runs";
  static constexpr std::array<const char*, 0> kKeys{};
  using Record = StoredRun;
  template <typename Run, typename Visit>
  static void columns(Run& r, Visit&& v) {
    v("scenario_json", r.scenario_json);
    v("plan_json", r.plan_json);
  }
};

struct EstimateColumns {
  static constexpr const char* kTable = "estimates";
  static constexpr std::array<const char*, 2> kKeys{"run_id", "seq"};
  static constexpr const char* kOrderBy = "seq";
  using Record = EstimateRow;
  template <typename Row, typename Visit>
  static void columns(Row& r, Visit&& v) {
    v("fqn", r.fqn);
    v("table_name", r.table);
    v("shard", r.shard);
    v("rank", r.rank);
    v("sharding_type", r.sharding_type);
    v("compute_kernel", r.compute_kernel);
    v("rows", r.rows);
    v("cols", r.cols);
    v("row_offset", r.row_offset);
    v("col_offset", r.col_offset);
    v("fwd_compute_ms", r.fwd_compute_ms);
    v("fwd_comms_ms", r.fwd_comms_ms);
    v("bwd_compute_ms", r.bwd_compute_ms);
    v("bwd_comms_ms", r.bwd_comms_ms);
    v("prefetch_ms", r.prefetch_ms);
    v("hbm_bytes", r.hbm_bytes);
    v("ddr_bytes", r.ddr_bytes);
  }
};

struct SimPhaseColumns {
  static constexpr const char* kTable = "sim_phases";
  static constexpr std::array<const char*, 2> kKeys{"run_id", "seq"};
  static constexpr const char* kOrderBy = "seq";
  using Record = SimPhaseRow;
  template <typename Row, typename Visit>
  static void columns(Row& r, Visit&& v) {
    v("rank", r.rank);
    v("phase", r.phase);
    v("stream", r.stream);
    v("iteration", r.iteration);
    v("start_ms", r.start_ms);
    v("end_ms", r.end_ms);
    v("bytes", r.bytes);
    v("tables", r.tables);
  }
};

struct MeasurementColumns {
  static constexpr const char* kTable = "measurements";
  static constexpr std::array<const char*, 2> kKeys{"run_id", "seq"};
  static constexpr const char* kOrderBy = "seq";
  using Record = kernels::Measurement;
  template <typename Row, typename Visit>
  static void columns(Row& m, Visit&& v) {
    v("rank", m.rank);
    v("phase", m.phase);
    v("option_index", m.option);
    v("shard", m.shard);
    v("table_name", m.table);
    v("sharding_type", m.sharding_type);
    v("compute_kernel", m.compute_kernel);
    v("dim", m.dim);
    v("precision", m.precision);
    v("bags", m.bags);
    v("pooling_factor", m.pooling_factor);
    v("collective", m.collective);
    v("collective_kind", m.collective_kind);
    v("members", m.members);
    v("inter_host", m.inter_host);
    v("bytes", m.bytes);
    v("model_bytes", m.model_bytes);
    v("estimated_ms", m.estimated_ms);
    v("median_ms", m.timing.median_ms);
    v("p90_ms", m.timing.p90_ms);
    v("min_ms", m.timing.min_ms);
    v("samples", m.timing.samples);
    v("wrong_elements", m.wrong_elements);
  }
};

// At most one row per run.
struct CalibrationColumns {
  static constexpr const char* kTable = "calibrations";
  static constexpr std::array<const char*, 1> kKeys{"run_id"};
  static constexpr const char* kOrderBy = "run_id";
  using Record = CalibrationRow;
  template <typename Row, typename Visit>
  static void columns(Row& c, Visit&& v) {
    v("name", c.name);
    v("profile_json", c.profile_json);
    v("mape_before", c.mape_before);
    v("mape_after", c.mape_after);
    v("fit_count", c.fit_count);
    v("held_out_count", c.held_out_count);
  }
};

// The runs a run was derived from; the record is the input run's id.
struct RunInputColumns {
  static constexpr const char* kTable = "run_inputs";
  static constexpr std::array<const char*, 1> kKeys{"run_id"};
  static constexpr const char* kOrderBy = "input_run_id";
  using Record = int64_t;
  template <typename Id, typename Visit>
  static void columns(Id& input_run_id, Visit&& v) {
    v("input_run_id", input_run_id);
  }
};

// The names List::columns visits, in order (keys not included).
template <typename List>
std::vector<std::string> column_names() {
  std::vector<std::string> names;
  typename List::Record record{};
  List::columns(record, [&](const char* name, const auto&) { names.emplace_back(name); });
  return names;
}

}  // namespace shardlab::data::internal
