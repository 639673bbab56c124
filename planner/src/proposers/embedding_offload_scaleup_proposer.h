// EmbeddingOffloadScaleupProposer (planner-model.md §7.4), as far as a
// scenario can reach it: it proposes each table's best-scored option once and
// then stops (golden README §3.1 item 11).
//
// Why the scale-up itself is absent: TorchRec only grows a fused_uvm_caching
// table's cache when its CacheParams carry `stats` (cacheability and expected
// lookups must make cacheability * expected_lookups * load_factor > 0). The
// scenario format cannot express stats, so no option ever qualifies, the
// Luus-Jaakola budget search never yields a plan to try, and implementing it
// (float32 emulation, torch's seeded RNG) would be dead code. It is
// deliberately not faked here.
#pragma once

#include <optional>
#include <vector>

#include "shardlab/planner/proposer.h"

namespace shardlab::planner {

class EmbeddingOffloadScaleupProposer final : public Proposer {
 public:
  explicit EmbeddingOffloadScaleupProposer(bool use_depth);

  void load(const SearchSpace& space) override;
  // The starting plan until the first feedback, then nothing.
  std::optional<Proposal> propose() override;
  void feedback(bool partitionable, const PartitionedPlan* plan, std::optional<double> rating,
                const std::vector<Storage>& reserved) override;

 private:
  bool use_depth_;
  std::optional<Proposal> proposal_;
  bool had_feedback_ = false;  // TorchRec: the budget search has been created
};

}  // namespace shardlab::planner
