// Moves: the ways a plan search changes a plan. Each proposes one change of
// the current plan; the search checks that it fits every rank's storage,
// applies it, and keeps or undoes it by its acceptance rule.
//
// A move only proposes placements the planner's placement rules allow
// (planner/placement.h) for options of the table's own search space, so
// every plan the search visits honours the scenario's constraints (the
// search space holds only the sharding types and kernels they allow).
// A new move is one implementation of this interface.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "shardlab/search/estimator.h"
#include "shardlab/search/plan_state.h"
#include "shardlab/search/problem.h"
#include "shardlab/search/rng.h"

namespace shardlab::search {

struct MoveContext {
  const Problem& problem;
  const PlanState& state;
  // Holds `state`. A move may add and remove trial contributions to compare
  // placements, and leaves it holding `state` again.
  Estimator& estimator;
  Rng& rng;
};

class Move {
 public:
  virtual ~Move() = default;
  // "move_shard", "swap_shards", "change_option", "change_host".
  virtual std::string_view name() const = 0;
  // Writes a change of ctx.state to *change (cleared first). Returns false
  // when the move has nothing to propose (e.g. no table it can change).
  virtual bool propose(MoveContext& ctx, Change* change) = 0;
};

// One shard of a table-wise, column-wise or table-column-wise table to
// another rank it may use, often off the busiest rank.
std::unique_ptr<Move> make_move_shard();
// Two such shards on different ranks trade ranks.
std::unique_ptr<Move> make_swap_shards();
// A table takes another of its options (sharding type, compute kernel), its
// shards placed one at a time where the estimate rises least.
std::unique_ptr<Move> make_change_option();
// A table-row-wise or table-column-wise table to another host.
std::unique_ptr<Move> make_change_host();
// A share of the tables that can take a sharding type all take it at once.
std::unique_ptr<Move> make_convert_tables();

struct WeightedMove {
  std::unique_ptr<Move> move;
  double weight = 1.0;  // relative frequency
};

// The five moves above with the search's default weights.
std::vector<WeightedMove> default_moves();

}  // namespace shardlab::search
