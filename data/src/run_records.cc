#include "shardlab/data/run_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <type_traits>

#include "json_writer.h"
#include "run_export_internal.h"
#include "shardlab/data/plan_json.h"

namespace shardlab::data {

std::vector<EstimateRow> estimate_rows(const planner::SearchSpace& space,
                                       const planner::PartitionedPlan& plan) {
  std::vector<EstimateRow> rows;
  rows.reserve(plan.ranks.size());
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const planner::ShardingOption& opt = space.options[static_cast<size_t>(plan.proposal[i])];
    assert(plan.first_shard.size() == plan.proposal.size() + 1);
    const int first = plan.first_shard[i];
    for (int s = 0; s < opt.num_shards(); ++s) {
      const planner::Shard& shard = opt.shards[static_cast<size_t>(s)];
      EstimateRow r;
      r.fqn = opt.fqn;
      r.table = opt.name;
      r.shard = s;
      r.rank = plan.ranks[static_cast<size_t>(first + s)];
      r.sharding_type = opt.sharding_type;
      r.compute_kernel = opt.compute_kernel;
      r.rows = shard.rows;
      r.cols = shard.cols;
      r.row_offset = shard.row_offset;
      r.col_offset = shard.col_offset;
      r.fwd_compute_ms = opt.shard_perf.fwd_compute;
      r.fwd_comms_ms = opt.shard_perf.fwd_comms;
      r.bwd_compute_ms = opt.shard_perf.bwd_compute;
      r.bwd_comms_ms = opt.shard_perf.bwd_comms;
      r.prefetch_ms = opt.shard_perf.prefetch_compute;
      r.hbm_bytes = shard.storage.hbm;
      r.ddr_bytes = shard.storage.ddr;
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

NewRun new_run(RunKind kind, const planner::Scenario& scenario,
               const planner::PlannerResult* planned, std::string plan_json) {
  NewRun run;
  run.kind = kind;
  run.scenario_name = scenario.name;
  run.torchrec_version = std::string(planner::to_string(scenario.planner.torchrec_version));
  if (planned != nullptr && planned->search_space && planned->best) {
    run.plan_json =
        plan_json.empty() ? plan_to_json(scenario, *planned, kCompactJson) : std::move(plan_json);
    run.estimates = estimate_rows(*planned->search_space, *planned->best);
    run.device = std::string(planner::to_string(scenario.topology.compute_device));
  }
  return run;
}

NewRun plan_run(const planner::Scenario& scenario, const planner::PlannerResult& planned,
                const PlanRunSettings& settings, std::string plan_json) {
  NewRun run = new_run(RunKind::kPlan, scenario, &planned, std::move(plan_json));
  std::vector<std::pair<std::string, SummaryValue>> summary = {
      {"rating_ms", planned.perf_rating},
      {"perf_model", settings.perf_model},
      {"tables", static_cast<int64_t>(scenario.tables.size())},
      {"world_size", static_cast<int64_t>(planned.topology.world_size)},
      {"num_proposals", static_cast<int64_t>(planned.num_proposals)},
      {"num_plans", static_cast<int64_t>(planned.num_plans)},
      {"wall_ms", planned.wall_seconds * 1e3}};
  if (settings.simulations >= 0)
    summary.emplace_back("simulations", static_cast<int64_t>(settings.simulations));
  if (!settings.from_plan.empty()) summary.emplace_back("from_plan", settings.from_plan);
  if (!settings.calibration.empty()) summary.emplace_back("calibration", settings.calibration);
  run.summary_json = summary_json(summary);
  return run;
}

NewRun simulation_run(const planner::Scenario& scenario, const planner::PlannerResult& planned,
                      const sim::SimResult& result, const SimulationRunSettings& settings) {
  NewRun run = new_run(RunKind::kSimulate, scenario, &planned);
  run.sim_phases = sim_phase_rows(result);
  std::vector<std::pair<std::string, SummaryValue>> summary = {
      {"iteration_ms", result.iteration_ms},
      {"total_ms", result.total_ms},
      {"iterations", static_cast<int64_t>(result.iterations)},
      {"rating_ms", planned.perf_rating},
      {"overlap", settings.overlap},
      {"contention", settings.contention},
      {"comm_model", settings.comm_model},
      {"ranks", static_cast<int64_t>(result.ranks.size())},
      {"events", static_cast<int64_t>(result.events)},
      {"wall_ms", result.wall_seconds * 1e3}};
  if (!settings.from_plan.empty()) summary.emplace_back("from_plan", settings.from_plan);
  if (!settings.calibration.empty()) summary.emplace_back("calibration", settings.calibration);
  run.summary_json = summary_json(summary);
  return run;
}

NewRun trace_run(std::string name, std::string device,
                 const std::vector<std::pair<std::string, double>>& headline) {
  NewRun run;
  run.kind = RunKind::kTrace;
  run.scenario_name = std::move(name);
  run.device = std::move(device);
  run.backend = "trace";
  std::vector<std::pair<std::string, SummaryValue>> summary;
  for (const auto& [key, value] : headline) {
    // Counts as integers, times as numbers.
    const bool count = key == "kernels" || key == "ranks" || key == "steps" || key == "world_size";
    if (count && value == static_cast<double>(static_cast<int64_t>(value))) {
      summary.emplace_back(key, static_cast<int64_t>(value));
    } else {
      summary.emplace_back(key, value);
    }
  }
  run.summary_json = summary_json(summary);
  return run;
}

std::string summary_text(const std::string& summary_json, int digits, std::string_view separator) {
  std::string out;
  for (const auto& [key, value] : summary_fields(summary_json)) {
    std::string name = key;
    std::string unit;
    if (name.size() > 3 && name.compare(name.size() - 3, 3, "_ms") == 0) {
      name.resize(name.size() - 3);
      unit = " ms";
    }
    std::replace(name.begin(), name.end(), '_', ' ');
    std::string text;
    if (const double* d = std::get_if<double>(&value)) {
      text = digits > 0 ? fmt::format("{:.{}g}", *d, digits) : fmt::format("{}", *d);
    } else if (const int64_t* i = std::get_if<int64_t>(&value)) {
      text = std::to_string(*i);
    } else if (const bool* b = std::get_if<bool>(&value)) {
      text = *b ? "true" : "false";
    } else {
      text = std::get<std::string>(value);
    }
    if (!out.empty()) out += separator;
    out += name + " " + text + unit;
  }
  return out;
}

std::vector<SimPhaseRow> sim_phase_rows(const sim::SimResult& result, SimPhaseSelection selection) {
  const int last = result.iterations - 1;
  std::vector<SimPhaseRow> rows;
  for (const sim::RankResult& rr : result.ranks) {
    for (const sim::PhaseRecord& p : rr.phases) {
      if (selection == SimPhaseSelection::kLastIteration && p.iteration != last) continue;
      rows.push_back(SimPhaseRow{.rank = rr.rank,
                                 .phase = p.phase,
                                 .stream = p.stream,
                                 .iteration = p.iteration,
                                 .start_ms = p.start_ms,
                                 .end_ms = p.end_ms,
                                 .bytes = p.bytes,
                                 .tables = p.tables});
    }
  }
  return rows;
}

std::string summary_json(const std::vector<std::pair<std::string, SummaryValue>>& fields) {
  internal::JsonWriter w(-1);
  w.begin_object();
  for (const auto& [name, value] : fields) {
    w.key(name);
    std::visit([&w](const auto& v) { w.value(v); }, value);
  }
  w.end_object();
  return std::move(w).take();
}

std::vector<std::pair<std::string, SummaryValue>> summary_fields(const std::string& text) {
  std::vector<std::pair<std::string, SummaryValue>> out;
  const nlohmann::ordered_json j = internal::embedded_json(text);
  if (!j.is_object()) return out;
  for (const auto& [name, v] : j.items()) {
    if (v.is_boolean()) {
      out.emplace_back(name, v.get<bool>());
    } else if (v.is_number_integer()) {
      out.emplace_back(name, v.get<int64_t>());
    } else if (v.is_number()) {
      out.emplace_back(name, v.get<double>());
    } else if (v.is_string()) {
      out.emplace_back(name, v.get<std::string>());
    }
  }
  return out;
}

std::string device_label(const RunSummary& run) {
  return run.backend.empty() ? run.device : run.backend + ": " + run.device;
}

}  // namespace shardlab::data
