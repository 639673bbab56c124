// Per-proposal bookkeeping of the planner loop (docs/cost-model.md §7.5, §9.1),
// updated by difference. Private to the planner library.
//
// Proposers usually change one table between consecutive proposals, so the
// de-duplication key and the proposal's storage sum are kept for the
// previous proposal and patched for the tables that changed, instead of
// being recomputed over every table.
#pragma once

#include <cstdint>
#include <vector>

#include "saturating.h"
#include "shardlab/planner/sharding_option.h"

namespace shardlab::planner {

// Proposal de-duplication key. An option index identifies its content within
// the search space (fqn, type and kernel are unique per option) and its fqn,
// so the set of option indices is a canonical form of TorchRec's sorted
// fingerprint list. The key is the sum, in two independent 64-bit lanes, of
// a pseudo-random value per option: a function of the set alone (sums
// commute), patchable in O(1) per changed table, with a collision
// probability around 2^-128 per pair of distinct proposals.
struct ProposalKey {
  uint64_t a = 0;
  uint64_t b = 0;
  bool operator==(const ProposalKey&) const = default;
};

struct ProposalKeyHash {
  size_t operator()(const ProposalKey& k) const {
    return static_cast<size_t>(k.a ^ (k.b * 0x9E3779B97F4A7C15ULL));
  }
};

class ProposalTracker {
 public:
  explicit ProposalTracker(const SearchSpace& space);

  // Makes `proposal` the current proposal.
  void advance(const Proposal& proposal);

  const ProposalKey& key() const { return key_; }
  // Σ of the options' total storage: integer sums, so equal to TorchRec's sum
  // over every shard in any order; INT64_MAX where it would pass int64.
  Storage storage() const { return storage_.saturated(); }
  // Σ of the options' shard counts.
  int64_t num_shards() const { return num_shards_; }

 private:
  void add(int option, int sign);

  std::vector<uint64_t> lane_a_;     // by option index
  std::vector<uint64_t> lane_b_;     // by option index
  std::vector<Storage> storage_of_;  // option total storage, compact copy
  std::vector<int> shards_of_;       // option shard count
  Proposal current_;
  ProposalKey key_;
  internal::WideStorage storage_;  // exact: patched by difference
  int64_t num_shards_ = 0;
};

}  // namespace shardlab::planner
