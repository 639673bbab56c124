// Pieces the moves share: picking a shard to move, the ranks a shard may go
// to, and placing tables where the estimate rises least.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "shardlab/planner/types.h"
#include "shardlab/search/move.h"

namespace shardlab::search::detail {

// A movable shard (separable option): with probability `focus` one on the
// estimator's busiest rank (when it holds any), else any. nullopt when the
// plan has none.
std::optional<ShardRef> pick_movable_shard(MoveContext& ctx, double focus);

// The ranks a shard of separable option `option` may take, given the host
// its table's shards are on now (table-column-wise stays in its host):
// [first, first + count).
struct RankRange {
  int first = 0;
  int count = 0;
};
RankRange shard_ranks(const Problem& problem, int option, int current_rank);

// Storage per rank as a change under construction leaves it: the state's,
// plus the shards added, minus the shards taken away (only the ranks touched
// are tracked).
//
// The changes are kept per rank: a short list while few ranks changed (a
// move touches one or a few), a table of every rank once many did (a
// row-wise or data-parallel option touches them all), so left() stays O(1)
// amortised at thousands of ranks instead of scanning thousands of changes.
class Room {
 public:
  explicit Room(const MoveContext& ctx) : ctx_(ctx) {}
  planner::Storage left(int rank) const;  // capacity minus use
  bool fits(int rank, const planner::Storage& need) const;
  // Adds (sign +1) or takes away (-1) option `option` on `ranks`.
  void change(int option, const int* ranks, int sign);
  void change(int rank, const planner::Storage& s, int sign);

 private:
  // Ranks changed before the list becomes a table.
  static constexpr size_t kListedRanks = 32;
  planner::Storage delta(int rank) const;

  const MoveContext& ctx_;
  std::vector<std::pair<int, planner::Storage>> listed_;
  std::vector<planner::Storage> by_rank_;  // every rank's change, once past the list
};

// Ranks for every shard of `option` as the new assignment of table `table`,
// whose old assignment the caller has taken out of ctx.estimator and `room`:
//  - uniform options: their fixed ranks;
//  - table-row-wise: the host (of those with room) with the lowest estimate;
//  - separable: shard by shard, among `tries` random allowed ranks with room
//    (and the rank of the same shard in `hint`, when it has one per shard),
//    the one with the lowest estimate; table-column-wise in one host,
//    chosen at random among those with room for the whole table.
// Returns false when some shard finds no room; else *estimate is the
// estimate with the table placed so. ctx.estimator is left as found.
bool place_table(MoveContext& ctx, const Room& room, int table, int option, int tries,
                 const std::vector<int>& hint, std::vector<int>* ranks, double* estimate);

// Appends to *change new assignments that give `fraction` (0 < f <= 1) of
// the tables whose option now has sharding type `from` and that have an
// option of type `to` (at least one table), drawn at random, an option of
// `to`: the one with their current compute kernel when there is one, else
// the first in enumeration order; placed largest first with place_table,
// each seeing the ones placed before. Tables that find no room keep their
// option. Returns the number of tables changed. ctx.estimator is left as
// found.
int convert_tables(MoveContext& ctx, planner::ShardingType from, planner::ShardingType to,
                   double fraction, int tries, Change* change);

}  // namespace shardlab::search::detail
