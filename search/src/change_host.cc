// change_host: a table-row-wise or table-column-wise table to another host
// (table-column-wise shards keep their local ranks).
#include "move_helpers.h"

namespace shardlab::search {
namespace {

class ChangeHost final : public Move {
 public:
  std::string_view name() const override { return "change_host"; }

  bool propose(MoveContext& ctx, Change* change) override {
    change->clear();
    const Problem& p = ctx.problem;
    const int hosts = p.num_groups();
    if (hosts < 2) return false;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      const int table = ctx.rng.below(p.num_tables());
      const int option = ctx.state.option(table);
      if (p.option(option).partition_by != planner::PartitionBy::kHost) continue;
      const auto ranks = ctx.state.ranks(table);
      const int lw = p.group_size();
      const int from = ranks[0] / lw;
      int to = ctx.rng.below(hosts - 1);
      if (to >= from) ++to;
      TableAssignment& a = change->add(table, option);
      a.ranks.resize(ranks.size());
      for (size_t s = 0; s < ranks.size(); ++s) a.ranks[s] = to * lw + ranks[s] % lw;
      return true;
    }
    return false;
  }

 private:
  static constexpr int kAttempts = 16;
};

}  // namespace

std::unique_ptr<Move> make_change_host() { return std::make_unique<ChangeHost>(); }

}  // namespace shardlab::search
