#include "planning_memory.h"

#include <algorithm>
#include <limits>

#include "saturating.h"
#include "shard_layout.h"
#include "shardlab/planner/proposal_log.h"

namespace shardlab::planner::internal {
namespace {

// Per-item costs, in bytes. An option: its struct, its name and fqn, and
// what the proposers, the partitioner and the proposal tracker keep per
// option (sort keys, hot copies, lanes). A run of shards: its entry in the
// option's shard list (shard_list.h) and in the partitioner's runs of equal
// storage. A shard of a plan: the rank slots of the plans being built, kept
// and returned. An input: one entry in each of an option's three per-input
// lists.
constexpr int64_t kOptionBytes = static_cast<int64_t>(sizeof(ShardingOption)) + 512;
constexpr int64_t kShardRunBytes = static_cast<int64_t>(sizeof(ShardList::Run)) + 32;
constexpr int64_t kPlanShardBytes = 16;
constexpr int64_t kInputBytes = 3 * static_cast<int64_t>(sizeof(double));
// A proposal's entry in the planner's outcome cache (a hash node).
constexpr int64_t kCachedProposalBytes = 96;
// JSON written per shard: a plan entry (offset, size, rank, placement, perf
// and storage objects; indented for the output, compact again for the run
// store), and an options-list entry (about 400 bytes of indented text, held
// in one string that grows by doubling: up to twice that while it moves).
constexpr int64_t kPlanJsonShardBytes = 800;
constexpr int64_t kOptionsJsonShardBytes = 900;
// Proposals the embedding-offload scale-up search makes, at most.
constexpr int64_t kScaleupProposals = 256;

// Proposals the proposer list can make on a search space of `size` with
// `fqns` tables, at most (each is partitioned once and cached).
int64_t proposal_bound(const Scenario& s, const EnumerationSize& size, int64_t fqns) {
  int64_t bound = 0;
  for (const ProposerSpec& p : s.planner.proposers) {
    switch (p.kind) {
      case ProposerKind::kGreedy:
        bound = saturating_add(bound, size.options + 1);
        break;
      // One proposal per (sharding type, kernel) pair at most.
      case ProposerKind::kUniform:
        bound = saturating_add(bound, 6 * 7);
        break;
      case ProposerKind::kEmbeddingOffloadScaleup:
        bound = saturating_add(bound, kScaleupProposals);
        break;
      // One proposal per HBM bin at most, and the first.
      case ProposerKind::kDynamicProgramming:
        bound =
            saturating_add(bound, saturating_add(p.hbm_bins_per_device * s.topology.world_size, 1));
        break;
      case ProposerKind::kGridSearch: {
        // Runs only when the product of the options per table is at most
        // max_proposals; a table has at most options / fqns on average, so
        // bound the product by max_proposals itself.
        if (fqns > 0) bound = saturating_add(bound, std::max<int64_t>(0, p.max_proposals));
        break;
      }
    }
  }
  return bound;
}

}  // namespace

int64_t PlanningMemory::total() const {
  return saturating_add(saturating_add(search_space_bytes, proposal_bytes), output_bytes);
}

std::string PlanningMemory::describe() const {
  std::string text = std::to_string(size.options) + " sharding options with " +
                     std::to_string(size.shards) + " shards";
  if (proposals > 0) text += ", up to " + std::to_string(proposals) + " proposals";
  return text;
}

PlanningMemory estimate_planning_memory(const Scenario& scenario, const Topology& topology,
                                        const std::vector<ModuleInfo>& modules,
                                        const PlannerOptions& options) {
  PlanningMemory m;
  m.size = enumeration_size(scenario, topology, modules);
  int64_t fqns = 0;
  for (const ModuleInfo& module : modules) fqns += static_cast<int64_t>(module.tables.size());
  m.proposals = options.enumerate_only ? 0 : proposal_bound(scenario, m.size, fqns);
  // Enumerating only (an options listing, or rating a given plan, whose
  // ranks come with the plan file), no plan is built here.
  const int64_t plan_shards = options.enumerate_only ? 0 : m.size.plan_shards;
  m.search_space_bytes =
      saturating_add(saturating_add(saturating_mul(m.size.options, kOptionBytes),
                                    saturating_mul(m.size.shard_runs, kShardRunBytes)),
                     saturating_add(saturating_mul(plan_shards, kPlanShardBytes),
                                    saturating_mul(m.size.inputs, kInputBytes)));
  m.proposal_bytes = saturating_mul(m.proposals, kCachedProposalBytes);
  if (!options.enumerate_only) {
    // The dynamic-programming proposer's back-pointers (8 bytes per table
    // and bin) and its proposals (4 bytes per table, one per bin at most).
    for (const ProposerSpec& p : scenario.planner.proposers) {
      if (p.kind != ProposerKind::kDynamicProgramming) continue;
      const int64_t bins = p.hbm_bins_per_device * scenario.topology.world_size;
      m.proposal_bytes =
          saturating_add(m.proposal_bytes, saturating_mul(saturating_mul(bins, fqns), 12));
    }
  }
  if (options.proposal_log != nullptr) {
    // Each logged proposal keeps its record and, at worst, a difference
    // (table, option) from the record before for every table.
    const int64_t record = static_cast<int64_t>(sizeof(ProposalRecord) + sizeof(uint32_t)) +
                           saturating_mul(fqns, int64_t{8});
    m.proposal_bytes = saturating_add(m.proposal_bytes, saturating_mul(m.proposals, record));
  }
  m.output_bytes =
      options.lists_options ? saturating_mul(m.size.shards, kOptionsJsonShardBytes) : 0;
  return m;
}

int64_t plan_json_bytes(int64_t shards) { return saturating_mul(shards, kPlanJsonShardBytes); }

}  // namespace shardlab::planner::internal
