// convert_tables: a share of the tables of one sharding type all take
// another at once. One table at a time rarely pays for a sharding type's own
// collectives (their latencies, their synchronisation); a group can, so this
// move crosses from one mix of sharding types to another.
#include "move_helpers.h"

namespace shardlab::search {
namespace {

class ConvertTables final : public Move {
 public:
  std::string_view name() const override { return "convert_tables"; }

  bool propose(MoveContext& ctx, Change* change) override {
    change->clear();
    // From the sharding type of a random table to another type.
    const planner::ShardingType from =
        ctx.problem.option(ctx.state.option(ctx.rng.below(ctx.problem.num_tables()))).sharding_type;
    int to = ctx.rng.below(ctx.problem.sharding_types() - 1);
    if (to >= static_cast<int>(from)) ++to;
    // A share of 1/32 .. 1 of the candidates, log-uniformly.
    const double fraction = 1.0 / static_cast<double>(1 << ctx.rng.below(6));
    return detail::convert_tables(ctx, from, static_cast<planner::ShardingType>(to), fraction,
                                  kTries, change) > 0;
  }

 private:
  static constexpr int kTries = 1;
};

}  // namespace

std::unique_ptr<Move> make_convert_tables() { return std::make_unique<ConvertTables>(); }

}  // namespace shardlab::search
