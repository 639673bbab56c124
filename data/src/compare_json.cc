#include "shardlab/data/compare_json.h"

#include <cassert>
#include <cmath>
#include <optional>

#include "json_writer.h"
#include "shardlab/data/plan_json.h"

namespace shardlab::data {
namespace {

using internal::JsonWriter;

void write_relative(JsonWriter& w, std::string_view key, const std::optional<double>& v) {
  write_optional(w, key, v && std::isfinite(*v) ? v : std::nullopt);
}

void write_row(JsonWriter& w, const planner::Scenario& scenario, const sim::CompareRow& row,
               bool winner) {
  w.begin_object();
  w.member("label", row.label);
  w.member("proposer", sim::proposer_name(row.config));
  w.member("partitioner", sim::partitioner_name(row.config, scenario));
  w.member("perf_model", sim::to_string(row.config.rating));
  w.member("torchrec_version", planner::to_string(row.torchrec_version));
  w.key("axes");
  w.begin_object();
  for (const auto& [axis, value] : row.config.extra_axes) w.member(axis, value);
  w.end_object();
  w.member("ok", row.status.is_ok());
  w.member("applies", row.applies);
  w.key("error");
  if (row.status.is_ok()) {
    w.null();
  } else {
    w.begin_object();
    w.member("type", error_type_name(row.status));
    w.member("message", row.status.message());
    w.end_object();
  }
  write_optional(w, "perf_rating_ms", row.torchrec_rating_ms);
  write_optional(w, "iteration_ms", row.iteration_ms);
  write_optional(w, "peak_hbm_bytes", row.peak_hbm_bytes);
  write_optional(w, "imbalance", row.imbalance);
  w.member("num_proposals", row.num_proposals);
  w.member("num_plans", row.num_plans);
  w.member("simulations", row.simulations);
  w.member("plan_seconds", row.plan_seconds);
  w.member("winner", winner);
  write_relative(w, "iteration_vs_winner", row.iteration_vs_winner);
  write_relative(w, "rating_vs_winner", row.rating_vs_winner);
  w.key("moved_vs_winner");
  w.begin_array();
  for (const std::string& t : row.moved_vs_winner) w.value(t);
  w.end_array();
  w.key("ranks");
  w.begin_array();
  for (size_t r = 0; r < row.ranks.size(); ++r) {
    const sim::CompareRank& k = row.ranks[r];
    w.begin_object();
    w.member("rank", static_cast<int64_t>(r));
    w.member("perf_ms", k.torchrec_perf_ms);
    w.member("shard_hbm_bytes", k.shard_hbm);
    if (row.iteration_ms) {
      w.member("busy_compute_ms", k.busy_compute_ms);
      w.member("busy_comm_ms", k.busy_comm_ms);
    } else {
      w.null_member("busy_compute_ms");
      w.null_member("busy_comm_ms");
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

std::string comparison_to_json(const planner::Scenario& scenario, const sim::Comparison& comparison,
                               bool compact) {
  JsonWriter w(compact ? kCompactJson : kDefaultJsonIndent);
  w.begin_object();
  w.member("scenario", comparison.scenario);
  w.member("iterations", comparison.iterations);
  // Stopped before every row was done: by the time limit or a cancel.
  if (comparison.cancelled) {
    w.member("stopped", comparison.timed_out ? "time_limit" : "cancelled");
  } else {
    w.null_member("stopped");
  }
  if (comparison.winner >= 0) {
    w.member("winner", comparison.winner);
  } else {
    w.null_member("winner");
  }
  w.key("rows");
  w.begin_array();
  for (size_t i = 0; i < comparison.rows.size(); ++i) {
    write_row(w, scenario, comparison.rows[i], static_cast<int>(i) == comparison.winner);
  }
  w.end_array();
  w.end_object();
  return std::move(w).take();
}

}  // namespace shardlab::data
