// GridSearchProposer (docs/cost-model.md §7.3): every combination of options,
// one per table, unless there are more than `max_proposals` of them.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "proposer.h"

namespace shardlab::planner {

class GridSearchProposer final : public StaticProposer {
 public:
  explicit GridSearchProposer(int64_t max_proposals);

  void load(const SearchSpace& space) override;
  std::optional<Proposal> propose() override;

 private:
  void advance() override;

  int64_t max_proposals_;
  std::vector<std::vector<int>> groups_;  // per fqn, options sorted by depth score
  std::vector<int> digits_;               // odometer: current position in each group
  bool active_ = false;
};

}  // namespace shardlab::planner
