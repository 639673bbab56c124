#include "shardlab/trace/trace_lookups.h"

#include <map>

#include "shardlab/planner/estimators.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::trace {
namespace {

// One shard of the plan on a rank, with what its records need.
struct PlacedShard {
  int option = -1;
  int shard = -1;
  double model_bytes = 0.0;
  double estimate_ms[2] = {0.0, 0.0};  // forward, backward
};

constexpr sim::Phase kPhases[2] = {sim::Phase::kFwdCompute, sim::Phase::kBwdCompute};

}  // namespace

Result<TraceLookups> trace_lookups(const TraceSummary& summary, const planner::Scenario& scenario,
                                   const planner::PlannerResult& planned) {
  if (!planned.ok() || !planned.search_space || !planned.best) {
    return Status::invalid_argument(
        "the lookups of a trace need the plan the job ran: " +
        (planned.ok() ? std::string("none was given") : planned.error.message()));
  }
  const planner::SearchSpace& space = *planned.search_space;
  const planner::PartitionedPlan& plan = *planned.best;
  const planner::EstimatorContext ctx = planner::estimator_context(scenario, planned.topology);
  const int world = planned.topology.world_size;
  std::map<int, std::vector<PlacedShard>> by_rank;
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const int index = plan.proposal[i];
    const planner::ShardingOption& o = space.options[static_cast<size_t>(index)];
    const double bytes = planner::fwd_compute_bytes(ctx, o);
    for (int s = 0; s < o.num_shards(); ++s) {
      const int rank = plan.ranks[static_cast<size_t>(plan.first_shard[i] + s)];
      if (o.shards[static_cast<size_t>(s)].rows == 0) continue;  // looks nothing up
      by_rank[rank].push_back(
          PlacedShard{.option = index,
                      .shard = s,
                      .model_bytes = bytes,
                      .estimate_ms = {o.shard_perf.fwd_compute, o.shard_perf.bwd_compute}});
    }
  }
  TraceLookups out;
  for (const RankTrace& r : summary.ranks) {
    const std::string who = "rank " + std::to_string(r.rank) + " (" + r.file + ")";
    if (r.rank < 0 || r.rank >= world) {
      out.notes.push_back(who + ": left out, " +
                          (r.rank < 0 ? std::string("the trace names no rank")
                                      : "the scenario has " + std::to_string(world) + " ranks"));
      continue;
    }
    const auto placed = by_rank.find(r.rank);
    if (placed == by_rank.end() || r.steps.empty()) {
      out.notes.push_back(who + ": left out, the plan gives it no lookups");
      continue;
    }
    for (int p = 0; p < 2; ++p) {
      double estimated = 0.0;
      for (const PlacedShard& s : placed->second) estimated += s.estimate_ms[p];
      std::vector<double> measured;
      for (const StepSummary& step : r.steps)
        measured.push_back(step.phase_ms[static_cast<size_t>(kPhases[p])]);
      if (!(estimated > 0.0) || kernels::summarize(measured).median_ms <= 0.0) {
        out.notes.push_back(who + ": no " + std::string(sim::to_string(kPhases[p])) +
                            " time measured or estimated; left out");
        continue;
      }
      for (const PlacedShard& s : placed->second) {
        const planner::ShardingOption& o = space.options[static_cast<size_t>(s.option)];
        const double share = s.estimate_ms[p] / estimated;
        std::vector<double> samples;
        samples.reserve(measured.size());
        for (const double m : measured) samples.push_back(m * share);
        kernels::Measurement m;
        m.rank = r.rank;
        m.phase = kPhases[p];
        m.option = s.option;
        m.shard = s.shard;
        m.table = o.name;
        m.sharding_type = o.sharding_type;
        m.compute_kernel = o.compute_kernel;
        m.dim = o.shards[static_cast<size_t>(s.shard)].cols;
        m.bytes = s.model_bytes;
        m.model_bytes = s.model_bytes;
        m.estimated_ms = s.estimate_ms[p];
        m.timing = kernels::summarize(std::move(samples));
        out.measurements.push_back(std::move(m));
      }
    }
  }
  if (!out.measurements.empty()) {
    out.notes.push_back(
        "lookup records share each rank's measured time in proportion to TorchRec's estimates of "
        "its shards: their held-out error measures the spread across ranks and steps, not an "
        "independent test of a shard");
  }
  if (out.measurements.empty()) {
    std::string why;
    for (const std::string& n : out.notes) why += "; " + n;
    return Status::invalid_argument("no traced rank has lookups the plan can account for" + why);
  }
  return out;
}

}  // namespace shardlab::trace
