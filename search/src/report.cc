#include "shardlab/search/report.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "shardlab/sim/compare.h"

namespace shardlab::search {
namespace {

template <typename... Args>
std::string format(const char* pattern, Args... args) {
  char buffer[256];
  const int n = std::snprintf(buffer, sizeof(buffer), pattern, args...);
  if (n < 0) return {};
  if (static_cast<size_t>(n) < sizeof(buffer)) return std::string(buffer, static_cast<size_t>(n));
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), pattern, args...);
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string join(const std::vector<int>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
  return out;
}

}  // namespace

Result<PlanRating> rate_both(const planner::Scenario& scenario, const planner::SearchSpace& space,
                             const planner::PartitionedPlan& plan, int world_size,
                             sim::SimOptions sim_options) {
  PlanRating r;
  std::vector<double> device_perf;
  planner::rate_plan(space, plan, world_size, &device_perf, &r.torchrec_ms);
  sim_options.record_phases = false;
  Result<sim::SimResult> simulated = sim::simulate(scenario, space, plan, sim_options);
  if (!simulated.is_ok()) return simulated.status();
  r.simulated_ms = simulated->iteration_ms;
  return r;
}

double OptimizeSummary::simulated_change() const {
  return sim::relative_change(reference().simulated_ms, best.simulated_ms);
}

double OptimizeSummary::rating_change() const {
  return sim::relative_change(reference().torchrec_ms, best.torchrec_ms);
}

double OptimizeSummary::gain_pct() const {
  return -sim::relative_change(start.simulated_ms, best.simulated_ms) * 100.0;
}

Result<OptimizeSummary> summarize(const Problem& problem, const OptimizeResult& result,
                                  const planner::PlannerResult* torchrec,
                                  sim::SimOptions sim_options) {
  OptimizeSummary s;
  const int world = problem.world_size();
  Result<PlanRating> start =
      rate_both(problem.scenario(), problem.space(), result.start, world, sim_options);
  if (!start.is_ok()) return start.status();
  Result<PlanRating> best =
      rate_both(problem.scenario(), problem.space(), result.best, world, sim_options);
  if (!best.is_ok()) return best.status();
  s.start = *start;
  s.best = *best;
  if (torchrec != nullptr && torchrec->ok()) {
    Result<PlanRating> t = rate_both(problem.scenario(), *torchrec->search_space, *torchrec->best,
                                     torchrec->topology.world_size, sim_options);
    if (t.is_ok()) s.torchrec = *t;
  }
  return s;
}

std::string move_share_text(const TableMove& move) {
  return format("(%5.1f%%)", 100.0 * move.cumulative_share);
}

std::string placement_text(const planner::ShardingOption& option, const std::vector<int>& ranks) {
  bool consecutive = ranks.size() > 2;
  for (size_t i = 1; i < ranks.size() && consecutive; ++i) {
    consecutive = ranks[i] == ranks[i - 1] + 1;
  }
  const std::string where =
      consecutive ? "ranks " + std::to_string(ranks.front()) + "-" + std::to_string(ranks.back())
                  : (ranks.size() == 1 ? "rank " : "ranks ") + join(ranks);
  return std::string(planner::to_string(option.sharding_type)) + "/" +
         std::string(planner::to_string(option.compute_kernel)) + " on " + where;
}

std::string move_text(const Problem& problem, const TableMove& move) {
  return move.name + ": " + placement_text(problem.option(move.from_option), move.from_ranks) +
         " -> " + placement_text(problem.option(move.to_option), move.to_ranks);
}

std::string search_text(const OptimizeResult& r) {
  std::string stop(to_string(r.stop));
  std::replace(stop.begin(), stop.end(), '_', ' ');
  const double rate = r.wall_seconds > 0 ? static_cast<double>(r.moves) / r.wall_seconds : 0.0;
  return format("stopped on %s after %.1f s, %s moves (%s/s), %lld evaluations", stop.c_str(),
                r.wall_seconds, count_text(static_cast<double>(r.moves)).c_str(),
                count_text(rate).c_str(), static_cast<long long>(r.evaluations));
}

std::string count_text(double n) {
  if (n >= 1e6) return format("%.2fM", n / 1e6);
  if (n >= 1e4) return format("%.0fk", n / 1e3);
  return format("%.0f", n);
}

std::string percent_text(double from, double to) {
  if (!(from > 0.0)) return "n/a";
  return format("%+.1f%%", (to - from) / from * 100.0);
}

std::string progress_text(const Progress& p) {
  const double rate = p.elapsed_s > 0 ? static_cast<double>(p.moves) / p.elapsed_s : 0.0;
  return format("%6.1f s  %s moves (%s/s)  %lld evaluations  best %.6g ms (%s vs start)",
                p.elapsed_s, count_text(static_cast<double>(p.moves)).c_str(),
                count_text(rate).c_str(), static_cast<long long>(p.evaluations), p.best_value,
                percent_text(p.start_value, p.best_value).c_str());
}

planner::PlannerResult as_planner_result(const planner::PlannerResult& start,
                                         const OptimizeResult& result) {
  planner::PlannerResult out = start;
  out.best = result.best;
  out.num_proposals = 0;
  out.num_plans = 0;
  double rating = 0.0;
  planner::rate_plan(*out.search_space, result.best, out.topology.world_size,
                     &out.device_perf_total, &rating);
  out.perf_rating = result.best_value;
  out.error = Status::ok();
  out.last_proposal.reset();
  out.wall_seconds = result.wall_seconds;
  return out;
}

}  // namespace shardlab::search
