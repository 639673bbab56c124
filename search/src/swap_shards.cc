// swap_shards: two shards of separable tables on different ranks trade ranks.
#include "move_helpers.h"

namespace shardlab::search {
namespace {

bool may_take(const Problem& p, int option, int current_rank, int rank) {
  const detail::RankRange range = detail::shard_ranks(p, option, current_rank);
  return rank >= range.first && rank < range.first + range.count;
}

class SwapShards final : public Move {
 public:
  std::string_view name() const override { return "swap_shards"; }

  bool propose(MoveContext& ctx, Change* change) override {
    change->clear();
    const std::optional<ShardRef> a = detail::pick_movable_shard(ctx, kFocus);
    if (!a) return false;
    const int oa = ctx.state.option(a->table);
    const int ra = ctx.state.ranks(a->table)[a->shard];
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      const std::optional<ShardRef> b = detail::pick_movable_shard(ctx, 0.0);
      const int ob = ctx.state.option(b->table);
      const int rb = ctx.state.ranks(b->table)[b->shard];
      if (rb == ra || !may_take(ctx.problem, oa, ra, rb) || !may_take(ctx.problem, ob, rb, ra)) {
        continue;
      }
      if (a->table == b->table) {
        // Two shards of one table: one assignment with both ranks swapped.
        TableAssignment& t = change->add(a->table, oa);
        const auto ranks = ctx.state.ranks(a->table);
        t.ranks.assign(ranks.begin(), ranks.end());
        t.ranks[a->shard] = rb;
        t.ranks[b->shard] = ra;
        return true;
      }
      TableAssignment& ta = change->add(a->table, oa);
      const auto ranks_a = ctx.state.ranks(a->table);
      ta.ranks.assign(ranks_a.begin(), ranks_a.end());
      ta.ranks[a->shard] = rb;
      TableAssignment& tb = change->add(b->table, ob);
      const auto ranks_b = ctx.state.ranks(b->table);
      tb.ranks.assign(ranks_b.begin(), ranks_b.end());
      tb.ranks[b->shard] = ra;
      return true;
    }
    return false;
  }

 private:
  static constexpr double kFocus = 0.5;
  static constexpr int kAttempts = 8;
};

}  // namespace

std::unique_ptr<Move> make_swap_shards() { return std::make_unique<SwapShards>(); }

}  // namespace shardlab::search
