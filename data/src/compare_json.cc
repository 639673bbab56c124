#include "shardlab/data/compare_json.h"

#include <cassert>

#include "json_writer.h"
#include "shardlab/data/plan_json.h"

namespace shardlab::data {
namespace {

using internal::JsonWriter;

void write_row(JsonWriter& w, const ComparisonRow& row) {
  w.begin_object();
  w.member("proposer", row.proposer);
  w.member("partitioner", row.partitioner);
  w.member("perf_model", row.perf_model);
  w.member("torchrec_version", row.torchrec_version);
  w.member("ok", row.status.is_ok());
  w.key("error");
  if (row.status.is_ok()) {
    w.null();
  } else {
    w.begin_object();
    w.member("type", error_type_name(row.status));
    w.member("message", row.status.message());
    w.end_object();
  }
  write_optional(w, "perf_rating_ms", row.perf_rating_ms);
  write_optional(w, "iteration_ms", row.iteration_ms);
  write_optional(w, "peak_hbm_bytes", row.peak_hbm_bytes);
  write_optional(w, "imbalance", row.imbalance);
  w.member("num_proposals", row.num_proposals);
  w.member("num_plans", row.num_plans);
  w.member("simulations", row.simulations);
  w.member("plan_seconds", row.plan_seconds);
  w.end_object();
}

}  // namespace

std::string error_type_name(const Status& status) {
  assert(!status.is_ok());
  switch (status.code()) {
    case StatusCode::kPlanner: return to_string(status.planner_error());
    case StatusCode::kInternal: return "internal";
    default: return "invalid_scenario";
  }
}

std::string comparison_to_json(const std::string& scenario, int iterations, const std::vector<ComparisonRow>& rows,
                               bool compact) {
  JsonWriter w(compact ? kCompactJson : kDefaultJsonIndent);
  w.begin_object();
  w.member("scenario", scenario);
  w.member("iterations", iterations);
  w.key("rows");
  w.begin_array();
  for (const ComparisonRow& row : rows) write_row(w, row);
  w.end_array();
  w.end_object();
  return std::move(w).take();
}

}  // namespace shardlab::data
