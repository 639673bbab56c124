#include "embedding_offload_scaleup_proposer.h"

#include <utility>

#include "enumerator.h"
#include "proposer_common.h"

namespace shardlab::planner {

EmbeddingOffloadScaleupProposer::EmbeddingOffloadScaleupProposer(bool use_depth,
                                                                 bool starts_from_caching_options)
    : use_depth_(use_depth), starts_from_caching_options_(starts_from_caching_options) {}

Proposal EmbeddingOffloadScaleupProposer::starting_options(const SearchSpace& space) const {
  // Every table's options after the stable score sort. TorchRec deep-copies
  // the options; a Proposal refers to them by index, and nothing here
  // modifies them, so the indices are the copy.
  const std::vector<std::vector<int>> groups = options_by_fqn_sorted(space, use_depth_);
  Proposal start(groups.size());
  for (size_t f = 0; f < groups.size(); ++f) {
    start[f] = groups[f].front();
    if (!starts_from_caching_options_) continue;
    // 2026-08: the first cached option, else the best.
    for (int o : groups[f]) {
      if (space.options[o].compute_kernel == ComputeKernel::kFusedUvmCaching) {
        start[f] = o;
        break;
      }
    }
  }
  return start;
}

Status EmbeddingOffloadScaleupProposer::prepare(SearchSpace* space,
                                                const OptionEstimator& estimator) {
  prepared_.reset();
  if (!starts_from_caching_options_ || space->fqns.empty()) return Status::ok();
  Proposal start = starting_options(*space);
  // TorchRec's promote_high_prefetch_overheaad_table_to_hbm: price every
  // cached table as fused (load factor cleared) and keep whichever needs less
  // HBM. It asserts cache_params first, table by table in fqn order.
  for (size_t f = 0; f < start.size(); ++f) {
    const ShardingOption& cached = space->options[start[f]];
    if (cached.compute_kernel != ComputeKernel::kFusedUvmCaching) continue;
    if (!cached.cache_params) {
      return Status::planner(
          PlannerErrorType::kOther,
          "EmbeddingOffloadScaleupProposer: table " + cached.name +
              " starts from a fused_uvm_caching option without cache parameters, which TorchRec "
              "2026-08 refuses (an AssertionError in the proposer's load); give the table a "
              "constraint "
              "with cache_params, or compute_kernels without fused_uvm_caching");
    }
  }
  for (size_t f = 0; f < start.size(); ++f) {
    const ShardingOption& cached = space->options[start[f]];
    if (cached.compute_kernel != ComputeKernel::kFusedUvmCaching) continue;
    ShardingOption fused = cached;
    fused.compute_kernel = ComputeKernel::kFused;
    fused.cache_params->load_factor.reset();
    // Without a load factor of its own; a fused kernel reads none.
    fused.cache_load_factor.reset();
    if (Status st = estimator.estimate(&fused); !st) return st;
    if (!(fused.total_storage.hbm < cached.total_storage.hbm)) continue;
    // An enumerated option with the same content is the same option to
    // TorchRec's proposal cache.
    int index = -1;
    for (int o : space->options_by_fqn[f]) {
      const ShardingOption& e = space->options[o];
      if (e.sharding_type == fused.sharding_type && e.compute_kernel == fused.compute_kernel &&
          e.cache_params == fused.cache_params) {
        index = o;
        break;
      }
    }
    if (index < 0) {
      index = static_cast<int>(space->options.size());
      space->options.push_back(std::move(fused));
      space->fqn_of_option.push_back(static_cast<int>(f));
      ++space->num_derived;
    }
    start[f] = index;
  }
  prepared_ = std::move(start);
  return Status::ok();
}

void EmbeddingOffloadScaleupProposer::load(const SearchSpace& space) {
  had_feedback_ = false;
  if (space.fqns.empty()) {
    // An empty list, which TorchRec's planner loop treats as "no proposal".
    proposal_.reset();
    return;
  }
  proposal_ = prepared_ ? *prepared_ : starting_options(space);
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
