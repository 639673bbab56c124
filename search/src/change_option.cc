// change_option: a table takes another of its options (sharding type and
// compute kernel): of a few options drawn at random, each placed where the
// estimate rises least, the one with the lowest estimate.
#include <algorithm>
#include <limits>
#include <utility>

#include "move_helpers.h"

namespace shardlab::search {
namespace {

class ChangeOption final : public Move {
 public:
  std::string_view name() const override { return "change_option"; }

  bool propose(MoveContext& ctx, Change* change) override {
    change->clear();
    const int table = pick_table(ctx);
    if (table < 0) return false;
    // Up to kCandidates other options, drawn without repetition; the one
    // whose placement gives the lowest estimate wins.
    candidates_ = ctx.problem.options_of(table);
    const int current = ctx.state.option(table);
    candidates_.erase(std::find(candidates_.begin(), candidates_.end(), current));
    double best = std::numeric_limits<double>::infinity();
    int chosen = -1;
    const int n = static_cast<int>(candidates_.size());
    const auto old_ranks = ctx.state.ranks(table);
    hint_.assign(old_ranks.begin(), old_ranks.end());
    // Placements are compared without the table's current assignment.
    detail::Room room(ctx);
    room.change(current, old_ranks.data(), -1);
    ctx.estimator.checkpoint();
    ctx.estimator.add(current, old_ranks.data(), -1.0);
    for (int k = 0; k < n && k < kCandidates; ++k) {
      std::swap(candidates_[k], candidates_[k + ctx.rng.below(n - k)]);
      double estimate = 0.0;
      if (!detail::place_table(ctx, room, table, candidates_[k], kTries, hint_, &ranks_,
                               &estimate)) {
        continue;
      }
      if (estimate < best) {
        best = estimate;
        chosen = candidates_[k];
        best_ranks_ = ranks_;
      }
    }
    ctx.estimator.add(current, old_ranks.data(), 1.0);
    ctx.estimator.restore();
    if (chosen < 0) return false;
    change->add(table, chosen).ranks = best_ranks_;
    return true;
  }

 private:
  // A table with a shard on the busiest rank (half the time), else any table
  // with a choice; -1 when no table has one.
  int pick_table(MoveContext& ctx) {
    const int n = ctx.problem.num_tables();
    if (ctx.rng.chance(kFocus)) {
      const std::vector<ShardRef>& on = ctx.state.shards_on(ctx.estimator.busiest_rank(ctx.rng));
      for (int k = 0; k < 4 && !on.empty(); ++k) {
        const int t = on[ctx.rng.below(static_cast<int>(on.size()))].table;
        if (ctx.problem.options_of(t).size() > 1) return t;
      }
    }
    for (int k = 0; k < 16; ++k) {
      const int t = ctx.rng.below(n);
      if (ctx.problem.options_of(t).size() > 1) return t;
    }
    return -1;
  }

  static constexpr double kFocus = 0.5;
  static constexpr int kCandidates = 3;  // options compared per move
  static constexpr int kTries = 2;       // random ranks tried per shard
  std::vector<int> candidates_;
  std::vector<int> ranks_;
  std::vector<int> best_ranks_;
  std::vector<int> hint_;
};

}  // namespace

std::unique_ptr<Move> make_change_option() { return std::make_unique<ChangeOption>(); }

}  // namespace shardlab::search
