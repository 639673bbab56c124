#include "embedding_offload_scaleup_proposer.h"

#include <utility>

#include "proposer_common.h"

namespace shardlab::planner {

EmbeddingOffloadScaleupProposer::EmbeddingOffloadScaleupProposer(bool use_depth)
    : use_depth_(use_depth) {}

void EmbeddingOffloadScaleupProposer::load(const SearchSpace& space) {
  // The starting plan: every table's first option after the stable score
  // sort. TorchRec deep-copies the options; a Proposal refers to them by
  // index, and nothing here modifies them, so the indices are the copy.
  const std::vector<std::vector<int>> groups = options_by_fqn_sorted(space, use_depth_);
  had_feedback_ = false;
  if (groups.empty()) {
    // An empty list, which TorchRec's planner loop treats as "no proposal".
    proposal_.reset();
    return;
  }
  Proposal start(groups.size());
  for (size_t f = 0; f < groups.size(); ++f) start[f] = groups[f].front();
  proposal_ = std::move(start);
}

std::optional<Proposal> EmbeddingOffloadScaleupProposer::propose() { return proposal_; }

void EmbeddingOffloadScaleupProposer::feedback(bool partitionable, const PartitionedPlan* /*plan*/,
                                               std::optional<double> /*rating*/,
                                               const std::vector<Storage>& /*reserved*/) {
  // First feedback: an unpartitionable starting plan ends the proposer before
  // any budget is computed.
  if (!had_feedback_) {
    had_feedback_ = true;
    if (!partitionable) {
      proposal_.reset();
      return;
    }
    // TorchRec now sizes the HBM budget (Σ reserved hbm − the plan's hbm)
    // and starts the Luus-Jaakola search on [0, budget].
  }
  // TorchRec asks the search for the next budget and builds the next plan by
  // growing the qualifying caching tables' load factors. With no cache stats
  // no table qualifies, so that next plan is none whatever the budget: stop.
  proposal_.reset();
}

}  // namespace shardlab::planner
