#include "lazy_rating.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>

#include "shardlab/planner/planner.h"

namespace shardlab::planner::internal {

double rating_margin(int64_t num_shards) { return static_cast<double>(num_shards + 16) * 0x1p-50; }

// Both numbers sum the same non-negative shard perfs per device, in
// different orders (e.g. per component then total, vs per shard total,
// docs/cost-model.md O27). Each is within a relative (k + 4)·2^-53 (first
// order) of the exact sum over a device's k shards, so rating >=
// partitioner_max · (1 - 2(k + 4)·2^-53). The margin uses k = every shard of
// the plan and is twice that, which also covers the rounding of the product
// and difference.
bool cannot_beat(double partitioner_max, int64_t num_shards, double best) {
  const double margin = rating_margin(num_shards);
  return partitioner_max - partitioner_max * margin >= best;
}

// cannot_beat is monotone in partitioner_max (with a margin below 1/4, so
// x - x·margin grows with x even after rounding), so a placement whose
// largest total reaches this value cannot beat `best`, however it ends.
double cannot_beat_from(int64_t num_shards, double best) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double margin = rating_margin(num_shards);
  if (!(margin < 0.25)) return kInf;
  double x = best + 2 * margin * best;
  for (int step = 0; step < 4 && x < kInf; ++step) {
    if (cannot_beat(x, num_shards, best)) return x;
    x = std::nextafter(x, kInf);
  }
  return kInf;
}

// Both sums of a rank lie within a relative (k + 4)·2^-53 of its real sum
// (cannot_beat), and `margin` (rating_margin) is at least 8 times that: a
// rank whose partitioner total is below the largest by more than 2·margin of
// it has an exact sum below that of the rank with the largest total. So only
// the ranks above that floor are summed, in one pass over the plan in order,
// each rank's shard totals added in plan order as rate_plan adds them.
std::optional<double> exact_rating(const SearchSpace& space, const Proposal& proposal,
                                   const Partitioner::Placement& placement, double margin) {
  constexpr int kMaxExactRanks = 16;
  const std::vector<double>& totals = *placement.device_totals;
  const std::vector<char>& in_rank_order = *placement.in_rank_order;
  const PartitionedPlan& plan = *placement.plan;
  if (totals.empty() || in_rank_order.size() != proposal.size() ||
      plan.first_shard.size() != proposal.size() + 1) {
    return std::nullopt;
  }
  const double largest = *std::max_element(totals.begin(), totals.end());
  if (!std::isfinite(largest)) return std::nullopt;
  const double floor = largest - 2 * margin * largest;
  int ranks[kMaxExactRanks];
  double sums[kMaxExactRanks] = {};
  int count = 0;
  for (int r = 0; r < static_cast<int>(totals.size()); ++r) {
    if (!(totals[r] >= floor)) continue;
    if (count == kMaxExactRanks) return std::nullopt;
    ranks[count++] = r;
  }
  for (size_t i = 0; i < proposal.size(); ++i) {
    const double shard_total = space.options[proposal[i]].shard_perf.total();
    const int first = plan.first_shard[i];
    const int n = plan.first_shard[i + 1] - first;
    if (in_rank_order[i]) {  // shard r on rank r
      for (int k = 0; k < count; ++k) {
        if (ranks[k] < n) sums[k] += shard_total;
      }
      continue;
    }
    for (int j = 0; j < n; ++j) {
      const int rank = plan.ranks[first + j];
      for (int k = 0; k < count; ++k) {
        if (ranks[k] == rank) sums[k] += shard_total;
      }
    }
  }
  return *std::max_element(sums, sums + count);
}

struct LazyRater::Worker {
  std::unique_ptr<Partitioner> partitioner;
  PartitionedPlan plan;  // for the ratings exact_rating cannot give
  std::vector<double> device_perf;
};

LazyRater::LazyRater(const Scenario& scenario, const SearchSpace& space, const Topology& reserved,
                     int threads)
    : space_(space), reserved_(reserved) {
  for (int t = 0; t < std::max(threads, 1); ++t) {
    auto w = std::make_unique<Worker>();
    w->partitioner = make_partitioner(scenario.planner.partitioner, scenario.behaviour());
    w->partitioner->set_detailed_errors(false);  // the reported failure is re-run with details
    w->partitioner->set_fixed_topology(&reserved_);
    partitioners_.push_back(std::move(w));
  }
}

LazyRater::~LazyRater() = default;

namespace {

void settle_one(const SearchSpace& space, const Topology& reserved, Partitioner& partitioner,
                PartitionedPlan& plan, std::vector<double>& device_perf, LazyItem& item,
                double best) {
  partitioner.set_early_stop(cannot_beat_from(item.num_shards, best));
  item.status = partitioner.partition(space, item.proposal, reserved, nullptr);
  item.bound.reset();
  item.rating.reset();
  if (!item.status) return;
  item.bound = partitioner.max_device_perf();
  if (item.bound && cannot_beat(*item.bound, item.num_shards, best)) return;
  if (const std::optional<Partitioner::Placement> placed = partitioner.last_placement()) {
    item.rating = exact_rating(space, item.proposal, *placed, rating_margin(item.num_shards));
  }
  if (item.rating) return;
  // Deterministic: the same plan as the lazy partition found.
  (void)partitioner.partition(space, item.proposal, reserved, &plan);
  double rating = 0.0;
  rate_plan(space, plan, static_cast<int>(reserved.devices.size()), &device_perf, &rating);
  item.rating = rating;
}

}  // namespace

void LazyRater::settle(const std::vector<LazyItem*>& items, double best) {
  if (items.empty()) return;
  std::atomic<size_t> next{0};
  // An exception (std::bad_alloc) on any thread stops every thread at its
  // next item and is rethrown here, after the joins.
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(partitioners_.size());
  // Runs of consecutive items per thread: a partitioner reuses what a
  // proposal shares with the one it placed before (consecutive proposals
  // differ in few tables), which items dealt one by one would halve.
  constexpr size_t kRun = 8;
  auto run = [&](size_t t) {
    Worker& w = *partitioners_[t];
    try {
      for (size_t first = next.fetch_add(kRun); first < items.size() && !failed.load();
           first = next.fetch_add(kRun)) {
        const size_t end = std::min(items.size(), first + kRun);
        for (size_t i = first; i < end && !failed.load(); ++i)
          settle_one(space_, reserved_, *w.partitioner, w.plan, w.device_perf, *items[i], best);
      }
    } catch (...) {
      errors[t] = std::current_exception();
      failed.store(true);
    }
  };
  const size_t helpers = std::min(partitioners_.size(), items.size()) - 1;
  std::vector<std::thread> threads;
  threads.reserve(helpers);
  for (size_t t = 1; t <= helpers; ++t) threads.emplace_back(run, t);
  run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

void LazyRater::set_table_order(const std::vector<int>* order) {
  for (auto& w : partitioners_) w->partitioner->set_table_order(order);
}

void LazyRater::build(const Proposal& proposal, PartitionedPlan* out) {
  (void)partitioners_[0]->partitioner->partition(space_, proposal, reserved_, out);
}

}  // namespace shardlab::planner::internal
