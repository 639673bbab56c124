#include "shardlab/planner/proposal_log.h"

#include <algorithm>
#include <string>

#include "proposal_logger.h"
#include "saturating.h"
#include "shardlab/planner/planner.h"

namespace shardlab::planner {

int64_t ProposalRecord::total_hbm_overflow() const {
  int64_t sum = 0;
  for (const Storage& s : overflow) sum = internal::saturating_add(sum, s.hbm);
  return sum;
}

int64_t ProposalRecord::total_ddr_overflow() const {
  int64_t sum = 0;
  for (const Storage& s : overflow) sum = internal::saturating_add(sum, s.ddr);
  return sum;
}

std::vector<Storage> storage_overflow(const std::vector<Storage>& used, const std::vector<Storage>& capacity) {
  std::vector<Storage> over(used.size());
  for (size_t r = 0; r < used.size(); ++r) {
    const Storage cap = r < capacity.size() ? capacity[r] : Storage{};
    over[r].hbm = std::max<int64_t>(0, used[r].hbm - cap.hbm);
    over[r].ddr = std::max<int64_t>(0, used[r].ddr - cap.ddr);
  }
  return over;
}

std::vector<Storage> shard_storage_per_rank(const SearchSpace& space, const PartitionedPlan& plan, int world_size) {
  std::vector<Storage> used(static_cast<size_t>(std::max(0, world_size)));
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& opt = space.options[static_cast<size_t>(plan.proposal[i])];
    for (int s = 0; s < opt.num_shards(); ++s) {
      const int rank = plan.ranks[static_cast<size_t>(plan.first_shard[i] + s)];
      if (rank >= 0 && rank < world_size) used[static_cast<size_t>(rank)] += opt.shards[static_cast<size_t>(s)].storage;
    }
  }
  return used;
}

Result<ProposalPlacement> place_proposal(const Scenario& scenario, const PlannerResult& result,
                                         const Proposal& proposal) {
  if (!result.search_space || !result.reserved) {
    return Status::invalid_scenario("no search space to place a proposal in: planning stopped before enumeration");
  }
  const SearchSpace& space = *result.search_space;
  if (proposal.size() != space.fqns.size()) {
    return Status::invalid_scenario("proposal has " + std::to_string(proposal.size()) + " options, expected one per " +
                                    "table (" + std::to_string(space.fqns.size()) + ")");
  }
  for (size_t f = 0; f < proposal.size(); ++f) {
    const int o = proposal[f];
    if (o < 0 || o >= static_cast<int>(space.options.size()) ||
        space.fqn_of_option[static_cast<size_t>(o)] != static_cast<int>(f)) {
      return Status::invalid_scenario("proposal entry " + std::to_string(f) + " (option " + std::to_string(o) +
                                      ") is not an option of " + space.fqns[f]);
    }
  }
  Topology reserved_topology = result.topology;
  const std::vector<Storage>& reserved = result.reserved->devices;
  for (size_t r = 0; r < reserved_topology.devices.size() && r < reserved.size(); ++r) {
    reserved_topology.devices[r].storage = reserved[r];
  }
  std::unique_ptr<Partitioner> partitioner = make_partitioner(scenario.planner.partitioner);
  ProposalPlacement out;
  if (partitioner->partition(space, proposal, reserved_topology, &out.plan).is_ok()) {
    out.fits = true;
  } else {
    std::unique_ptr<Partitioner> relaxed = make_partitioner(scenario.planner.partitioner);
    if (Status st = place_relaxed(*relaxed, space, proposal, unlimited_topology(reserved_topology), reserved,
                                  &out.plan, &out.overflow);
        !st.is_ok()) {
      return st;
    }
  }
  rate_plan(space, out.plan, result.topology.world_size, &out.device_perf_total, &out.torchrec_rating);
  return out;
}

}  // namespace shardlab::planner
