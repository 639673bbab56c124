// Helpers shared by the proposers (docs/cost-model.md §7). Private to the
// planner library.
#pragma once

#include <vector>

#include "shardlab/planner/sharding_option.h"

namespace shardlab::planner {

// Stable-sorts `options` (indices into `space.options`) ascending by
// option_score(., use_depth). Every proposer ranks a table's options this
// way; stability matters because exact score ties are common (TW and CW with
// one shard, RW and TWRW on one host) and TorchRec keeps enumeration order
// among them.
void sort_by_score(const SearchSpace& space, bool use_depth, std::vector<int>* options);

// space.options_by_fqn with each fqn's options sorted by sort_by_score.
std::vector<std::vector<int>> options_by_fqn_sorted(const SearchSpace& space, bool use_depth);

}  // namespace shardlab::planner
