// A stored run as one JSON document. Built as an nlohmann tree: the stored
// scenario, plan, summary and profile texts are parsed and embedded, which the
// streaming writer cannot do, and a run's rows are few enough (the store keeps
// one simulated iteration) for a tree.

#include "shardlab/data/run_export.h"

#include <nlohmann/json.hpp>

#include "run_export_internal.h"

namespace shardlab::data {

using Json = nlohmann::ordered_json;

namespace internal {

Json embedded_json(const std::string& text) {
  if (text.empty()) return nullptr;
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return text;
  return j;
}

}  // namespace internal

namespace {

Json estimate_json(const EstimateRow& r) {
  return Json{{"fqn", r.fqn},
              {"table", r.table},
              {"shard", r.shard},
              {"rank", r.rank},
              {"sharding_type", planner::to_string(r.sharding_type)},
              {"compute_kernel", planner::to_string(r.compute_kernel)},
              {"rows", r.rows},
              {"cols", r.cols},
              {"row_offset", r.row_offset},
              {"col_offset", r.col_offset},
              {"fwd_compute_ms", r.fwd_compute_ms},
              {"fwd_comms_ms", r.fwd_comms_ms},
              {"bwd_compute_ms", r.bwd_compute_ms},
              {"bwd_comms_ms", r.bwd_comms_ms},
              {"prefetch_ms", r.prefetch_ms},
              {"hbm_bytes", r.hbm_bytes},
              {"ddr_bytes", r.ddr_bytes}};
}

Json sim_phase_json(const SimPhaseRow& r) {
  return Json{{"rank", r.rank},
              {"phase", sim::to_string(r.phase)},
              {"stream", sim::to_string(r.stream)},
              {"iteration", r.iteration},
              {"start_ms", r.start_ms},
              {"end_ms", r.end_ms},
              {"bytes", r.bytes},
              {"tables", r.tables}};
}

Json measurement_json(const kernels::Measurement& m) {
  return Json{{"rank", m.rank},
              {"phase", sim::to_string(m.phase)},
              {"option", m.option},
              {"shard", m.shard},
              {"table", m.table},
              {"sharding_type", planner::to_string(m.sharding_type)},
              {"compute_kernel", planner::to_string(m.compute_kernel)},
              {"dim", m.dim},
              {"precision", kernels::to_string(m.precision)},
              {"bags", m.bags},
              {"pooling_factor", m.pooling_factor},
              {"collective", m.collective},
              {"collective_kind", sim::to_string(m.collective_kind)},
              {"members", m.members},
              {"inter_host", m.inter_host},
              {"bytes", m.bytes},
              {"model_bytes", m.model_bytes},
              {"estimated_ms", m.estimated_ms},
              {"median_ms", m.timing.median_ms},
              {"p90_ms", m.timing.p90_ms},
              {"min_ms", m.timing.min_ms},
              {"samples", m.timing.samples},
              {"wrong_elements", m.wrong_elements}};
}

}  // namespace

std::string run_to_json(const StoredRun& run, int indent) {
  const RunSummary& s = run.summary;
  Json j = Json::object();
  j["id"] = s.id;
  j["kind"] = to_string(s.kind);
  j["created_at"] = s.created_at;
  j["scenario_name"] = s.scenario_name;
  j["scenario_hash"] = s.scenario_hash;
  j["shardlab_version"] = s.shardlab_version;
  j["host"] = s.host;
  j["device"] = s.device;
  j["backend"] = s.backend;
  j["torchrec_version"] = s.torchrec_version;
  j["label"] = s.label;
  j["inputs"] = run.inputs;
  j["summary"] = internal::embedded_json(s.summary_json);
  j["scenario"] = internal::embedded_json(run.scenario_json);
  j["plan"] = internal::embedded_json(run.plan_json);
  Json& estimates = j["estimates"] = Json::array();
  for (const EstimateRow& r : run.estimates) estimates.push_back(estimate_json(r));
  Json& phases = j["sim_phases"] = Json::array();
  for (const SimPhaseRow& r : run.sim_phases) phases.push_back(sim_phase_json(r));
  Json& measurements = j["measurements"] = Json::array();
  for (const kernels::Measurement& m : run.measurements)
    measurements.push_back(measurement_json(m));
  if (run.calibration) {
    const CalibrationRow& c = *run.calibration;
    j["calibration"] = Json{{"name", c.name},
                            {"mape_before", c.mape_before},
                            {"mape_after", c.mape_after},
                            {"fit_count", c.fit_count},
                            {"held_out_count", c.held_out_count},
                            {"profile", internal::embedded_json(c.profile_json)}};
  } else {
    j["calibration"] = nullptr;
  }
  // Replace: stored strings are the user's, and may hold bytes that are not UTF-8.
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string run_summaries_to_json(const std::vector<RunSummary>& runs, int indent) {
  Json j = Json::array();
  for (const RunSummary& s : runs) {
    j.push_back(Json{{"id", s.id},
                     {"kind", to_string(s.kind)},
                     {"created_at", s.created_at},
                     {"scenario_name", s.scenario_name},
                     {"scenario_hash", s.scenario_hash},
                     {"shardlab_version", s.shardlab_version},
                     {"host", s.host},
                     {"device", s.device},
                     {"backend", s.backend},
                     {"torchrec_version", s.torchrec_version},
                     {"label", s.label},
                     {"summary", internal::embedded_json(s.summary_json)},
                     {"estimates", s.estimate_count},
                     {"sim_phases", s.sim_phase_count},
                     {"measurements", s.measurement_count},
                     {"calibration", s.has_calibration}});
  }
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace shardlab::data
