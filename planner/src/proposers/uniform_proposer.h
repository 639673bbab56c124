// UniformProposer (docs/cost-model.md §7.2): one proposal per sharding type that
// every table offers, each table taking its best-scored option of that type.
#pragma once

#include <optional>
#include <vector>

#include "proposer.h"

namespace shardlab::planner {

class UniformProposer final : public StaticProposer {
 public:
  explicit UniformProposer(bool use_depth);

  void load(const SearchSpace& space) override;
  std::optional<Proposal> propose() override;

 private:
  void advance() override;

  bool use_depth_;
  std::vector<Proposal> proposals_;  // in order of the types' first appearance
  size_t next_ = 0;
};

}  // namespace shardlab::planner
