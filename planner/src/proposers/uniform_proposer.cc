#include "uniform_proposer.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "proposer_common.h"

namespace shardlab::planner {

UniformProposer::UniformProposer(bool use_depth) : use_depth_(use_depth) {}

void UniformProposer::load(const SearchSpace& space) {
  proposals_.clear();
  next_ = 0;
  const size_t num_fqns = space.fqns.size();

  // TorchRec groups by sharding type in order of the type's first appearance
  // in the search space, and emits proposals in that order; the partitioner
  // and the "first strictly better rating wins" rule make that order visible.
  struct TypeGroup {
    ShardingType type;
    std::vector<std::vector<int>> options_by_fqn;  // indexed by fqn position
    size_t fqns_present = 0;
  };
  std::vector<TypeGroup> groups;
  for (size_t o = 0; o < space.num_enumerated(); ++o) {
    const ShardingType type = space.options[o].sharding_type;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [type](const TypeGroup& g) { return g.type == type; });
    if (it == groups.end()) {
      groups.push_back({.type = type, .options_by_fqn = std::vector<std::vector<int>>(num_fqns)});
      it = std::prev(groups.end());
    }
    auto& list = it->options_by_fqn[space.fqn_of_option[o]];
    if (list.empty()) ++it->fqns_present;
    list.push_back(static_cast<int>(o));
  }

  // Within a type TorchRec lists tables in their order of first appearance
  // among that type's options. The enumerator emits each table's options
  // contiguously, so that is the global fqn order the Proposal type uses.
  for (auto& group : groups) {
    if (group.fqns_present != num_fqns) continue;  // some table lacks this type
    Proposal proposal(num_fqns);
    for (size_t f = 0; f < num_fqns; ++f) {
      sort_by_score(space, use_depth_, &group.options_by_fqn[f]);
      proposal[f] = group.options_by_fqn[f].front();
    }
    proposals_.push_back(std::move(proposal));
  }
}

std::optional<Proposal> UniformProposer::propose() {
  if (next_ < proposals_.size()) return proposals_[next_];
  return std::nullopt;
}

void UniformProposer::advance() { ++next_; }

}  // namespace shardlab::planner
