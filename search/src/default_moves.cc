#include "shardlab/search/move.h"

namespace shardlab::search {

std::vector<WeightedMove> default_moves() {
  // Cheap shard moves most of the time; option changes, which re-place a
  // whole table, a quarter of the time; group conversions, which re-place
  // many, rarely.
  std::vector<WeightedMove> moves;
  moves.push_back({make_move_shard(), 0.35});
  moves.push_back({make_swap_shards(), 0.30});
  moves.push_back({make_change_option(), 0.25});
  moves.push_back({make_change_host(), 0.098});
  moves.push_back({make_convert_tables(), 0.002});
  return moves;
}

}  // namespace shardlab::search
