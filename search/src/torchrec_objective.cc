// The TorchRec objective: TorchRec's rating, the largest per-rank sum of shard
// perf estimates (planner::rate_plan). Its estimator keeps the same sums per
// rank, so it differs from the objective only by the order of additions.
#include <algorithm>
#include <memory>
#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/search/objective.h"

namespace shardlab::search {
namespace {

class PerRankPerf final : public Estimator {
 public:
  explicit PerRankPerf(const Problem& problem)
      : problem_(problem), total_(problem.world_size(), 0.0) {}

  void add(int option, const int* ranks, double sign) override {
    const double v = sign * problem_.option(option).shard_perf.total();
    for (int s = 0; s < problem_.option(option).num_shards(); ++s) total_[ranks[s]] += v;
  }
  void add_shard(int option, int /*shard*/, int rank, double sign) override {
    total_[rank] += sign * problem_.option(option).shard_perf.total();
  }
  double value() override {
    return total_.empty() ? 0.0 : *std::max_element(total_.begin(), total_.end());
  }
  int busiest_rank(Rng& /*rng*/) override {
    return static_cast<int>(std::max_element(total_.begin(), total_.end()) - total_.begin());
  }
  void clear() override { std::fill(total_.begin(), total_.end(), 0.0); }

 private:
  const Problem& problem_;
  std::vector<double> total_;
};

class TorchRecObjective final : public Objective {
 public:
  explicit TorchRecObjective(const Problem& problem) : problem_(problem) {}

  std::string_view name() const override { return "torchrec"; }

  Result<Evaluation> evaluate(const planner::PartitionedPlan& plan) override {
    Evaluation e;
    planner::rate_plan(problem_.space(), plan, problem_.world_size(), &device_perf_, &e.value);
    return e;
  }

  Result<std::unique_ptr<Estimator>> make_estimator() override {
    return std::unique_ptr<Estimator>(new PerRankPerf(problem_));
  }

 private:
  const Problem& problem_;
  std::vector<double> device_perf_;
};

}  // namespace

std::unique_ptr<Objective> make_torchrec_objective(const Problem& problem) {
  return std::make_unique<TorchRecObjective>(problem);
}

}  // namespace shardlab::search
