// EmbeddingOffloadScaleupProposer (docs/cost-model.md §7.4), as far as a
// scenario can reach it: it proposes one starting plan once and then stops
// (golden README §3.1 item 11).
//
// The starting plan (docs/torchrec-versions.md):
// - 2024-02: each table's best-scored option.
// - 2026-08: each table's first fused_uvm_caching option in score order (else
//   its best option); a cached table becomes fused (load factor cleared) when
//   that needs less HBM, and a cached table without cache_params is
//   TorchRec's assertion failure, reported by prepare().
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

#include "proposer.h"

namespace shardlab::planner {

class EmbeddingOffloadScaleupProposer final : public Proposer {
 public:
  // `starts_from_caching_options`: TorchRecBehaviour::scaleup_starts_from_caching_options.
  EmbeddingOffloadScaleupProposer(bool use_depth, bool starts_from_caching_options);

  // 2026-08: picks the starting options, checks their cache parameters and
  // appends the fused variants of the tables it promotes.
  Status prepare(SearchSpace* space, const OptionEstimator& estimator) override;
  void load(const SearchSpace& space) override;
  // The starting plan until the first feedback, then nothing.
  std::optional<Proposal> propose() override;
  void feedback(bool partitionable, const PartitionedPlan* plan, std::optional<double> rating,
                const std::vector<Storage>& reserved) override;

 private:
  // Each fqn's starting option before any promotion.
  Proposal starting_options(const SearchSpace& space) const;

  bool use_depth_;
  bool starts_from_caching_options_;
  // From prepare(): the starting plan with promoted tables replaced.
  std::optional<Proposal> prepared_;
  std::optional<Proposal> proposal_;
  bool had_feedback_ = false;  // TorchRec: the budget search has been created
};

}  // namespace shardlab::planner
