#include "proposal_tracker.h"

#include "proposal_diff.h"

namespace shardlab::planner {
namespace {

uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

ProposalTracker::ProposalTracker(const SearchSpace& space) {
  const size_t n = space.options.size();
  lane_a_.resize(n);
  lane_b_.resize(n);
  storage_of_.resize(n);
  shards_of_.resize(n);
  for (size_t o = 0; o < n; ++o) {
    lane_a_[o] = splitmix64(2 * o);
    lane_b_[o] = splitmix64(2 * o + 1);
    storage_of_[o] = space.options[o].total_storage;
    shards_of_[o] = space.options[o].num_shards();
  }
}

void ProposalTracker::add(int option, int sign) {
  const uint64_t s = static_cast<uint64_t>(static_cast<int64_t>(sign));  // wraps: -1 subtracts
  key_.a += s * lane_a_[option];
  key_.b += s * lane_b_[option];
  num_shards_ += sign * shards_of_[option];
  storage_.add(storage_of_[option], sign);
}

void ProposalTracker::advance(const Proposal& proposal) {
  if (proposal.size() != current_.size()) {
    key_ = {};
    storage_ = {};
    num_shards_ = 0;
    current_ = proposal;
    for (int o : current_) add(o, +1);
    return;
  }
  for_each_difference(current_.data(), proposal.data(), proposal.size(), [&](size_t f) {
    add(current_[f], -1);
    add(proposal[f], +1);
    current_[f] = proposal[f];
  });
}

}  // namespace shardlab::planner
