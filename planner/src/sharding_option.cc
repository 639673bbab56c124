#include "shardlab/planner/sharding_option.h"

#include <algorithm>

namespace shardlab::planner {

void init_partitioned_plan(const SearchSpace& space, const Proposal& proposal,
                           PartitionedPlan* plan) {
  layout_partitioned_plan(space, proposal, plan);
  std::fill(plan->ranks.begin(), plan->ranks.end(), -1);
}

void layout_partitioned_plan(const SearchSpace& space, const Proposal& proposal,
                             PartitionedPlan* plan) {
  plan->proposal = proposal;
  plan->first_shard.resize(proposal.size() + 1);
  int total = 0;
  for (size_t i = 0; i < proposal.size(); ++i) {
    plan->first_shard[i] = total;
    total += space.options[proposal[i]].num_shards();
  }
  plan->first_shard[proposal.size()] = total;
  plan->ranks.resize(static_cast<size_t>(total));
}

}  // namespace shardlab::planner
