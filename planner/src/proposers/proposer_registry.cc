// The proposer registry: maps a ProposerSpec to its implementation; the
// option score every proposer sorts by; what the proposers share.

#include <algorithm>
#include <memory>

#include "../saturating.h"
#include "dynamic_programming_proposer.h"
#include "embedding_offload_scaleup_proposer.h"
#include "greedy_proposer.h"
#include "grid_search_proposer.h"
#include "proposer.h"
#include "proposer_common.h"
#include "uniform_proposer.h"

namespace shardlab::planner {

std::unique_ptr<Proposer> make_proposer(const ProposerSpec& spec,
                                        const TorchRecBehaviour& behaviour) {
  switch (spec.kind) {
    case ProposerKind::kGreedy: {
      // TorchRec stores `threshold if threshold else None`: 0 means no
      // threshold [docs/cost-model.md O6].
      std::optional<int64_t> threshold = spec.threshold;
      if (threshold && *threshold == 0) threshold.reset();
      return std::make_unique<GreedyProposer>(spec.use_depth, threshold);
    }
    case ProposerKind::kUniform:
      return std::make_unique<UniformProposer>(spec.use_depth);
    case ProposerKind::kGridSearch:
      return std::make_unique<GridSearchProposer>(spec.max_proposals);
    case ProposerKind::kEmbeddingOffloadScaleup:
      return std::make_unique<EmbeddingOffloadScaleupProposer>(
          spec.use_depth, behaviour.scaleup_starts_from_caching_options);
    case ProposerKind::kDynamicProgramming:
      return std::make_unique<DynamicProgrammingProposer>(spec.hbm_bins_per_device);
  }
  return nullptr;
}

const std::vector<ProposerShared::StorageKey>& ProposerShared::storage_keys(
    const SearchSpace& space) {
  if (have_storage_keys_) return storage_keys_;
  storage_keys_.assign(space.options.size(), StorageKey{0, 0, 0, 0});
  for (size_t o = 0; o < space.options.size(); ++o) {
    // An option without shards (never enumerated; TorchRec's max() would
    // raise) keeps the all-zero key.
    StorageKey& key = storage_keys_[o];
    bool first = true;
    for (const ShardList::Run& r : space.options[o].shards.runs()) {
      const Storage& s = r.first.storage;
      key[0] = first ? s.hbm : std::max(key[0], s.hbm);
      key[1] = internal::saturating_add(key[1], internal::saturating_mul(s.hbm, r.count));
      key[2] = first ? s.ddr : std::max(key[2], s.ddr);
      key[3] = internal::saturating_add(key[3], internal::saturating_mul(s.ddr, r.count));
      first = false;
    }
  }
  have_storage_keys_ = true;
  return storage_keys_;
}

double option_score(const ShardingOption& option, bool use_depth) {
  // Every shard carries the same perf, so the per-shard total is computed
  // once. TorchRec takes max() over the shards (an empty option would raise
  // there; enumeration never produces one, 0 keeps us total) or a running
  // sum from 0 in shard order; the loop keeps that rounding sequence.
  const int n = option.num_shards();
  if (n == 0) return 0.0;
  const double shard_total = option.shard_perf.total();
  if (use_depth) return shard_total;
  double sum = 0.0;
  for (int j = 0; j < n; ++j) sum += shard_total;
  return sum;
}

void sort_by_score(const SearchSpace& space, bool use_depth, std::vector<int>* options) {
  // Scores are computed once per option (TorchRec's sort key is evaluated
  // once per element too), then a stable sort keeps enumeration order among
  // equal scores; see docs/cost-model.md §0.2.
  std::vector<std::pair<double, int>> keyed;
  keyed.reserve(options->size());
  for (int o : *options) keyed.emplace_back(option_score(space.options[o], use_depth), o);
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < keyed.size(); ++i) (*options)[i] = keyed[i].second;
}

std::vector<std::vector<int>> options_by_fqn_sorted(const SearchSpace& space, bool use_depth) {
  std::vector<std::vector<int>> groups = space.options_by_fqn;
  for (auto& group : groups) sort_by_score(space, use_depth, &group);
  return groups;
}

}  // namespace shardlab::planner
