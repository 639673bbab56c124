// move_shard: one shard of a separable table to another rank it may use:
// the best by estimate of a few drawn at random.
#include "move_helpers.h"

namespace shardlab::search {
namespace {

class MoveShard final : public Move {
 public:
  std::string_view name() const override { return "move_shard"; }

  bool propose(MoveContext& ctx, Change* change) override {
    change->clear();
    const std::optional<ShardRef> s = detail::pick_movable_shard(ctx, kFocus);
    if (!s) return false;
    const int option = ctx.state.option(s->table);
    const auto ranks = ctx.state.ranks(s->table);
    const int from = ranks[s->shard];
    const detail::RankRange range = detail::shard_ranks(ctx.problem, option, from);
    if (range.count < 2) return false;
    // Of a few other ranks of the range drawn at random, the one where the
    // shard gives the lowest estimate.
    Estimator& est = ctx.estimator;
    const planner::Storage& need = ctx.problem.option(option).shards.storage(s->shard);
    est.checkpoint();
    est.add_shard(option, s->shard, from, -1.0);
    double best = 0.0;
    int to = -1;
    for (int k = 0; k < kTries; ++k) {
      int r = range.first + ctx.rng.below(range.count - 1);
      if (r >= from) ++r;
      if (!(ctx.state.used(r) + need).fits_in(ctx.problem.capacity()[r])) continue;
      est.checkpoint();
      est.add_shard(option, s->shard, r, 1.0);
      const double v = est.value();
      est.add_shard(option, s->shard, r, -1.0);
      est.restore();
      if (to < 0 || v < best) {
        best = v;
        to = r;
      }
    }
    est.add_shard(option, s->shard, from, 1.0);
    est.restore();
    if (to < 0) return false;
    TableAssignment& a = change->add(s->table, option);
    a.ranks.assign(ranks.begin(), ranks.end());
    a.ranks[s->shard] = to;
    return true;
  }

 private:
  static constexpr double kFocus = 0.5;  // share of shards taken off the busiest rank
  static constexpr int kTries = 3;       // target ranks compared
};

}  // namespace

std::unique_ptr<Move> make_move_shard() { return std::make_unique<MoveShard>(); }

}  // namespace shardlab::search
