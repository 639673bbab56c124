// The op inventory of a training step (docs/host-model.md "The op inventory"):
// which ops each host step runs, named as PyTorch's profiler names them, so a
// host profile prices them and a trace can be read against them.
#include "shardlab/sim/host_model.h"

#include <string>

namespace shardlab::sim {
namespace {

using planner::InteractionKind;
using planner::OptimizerKind;

// Step names, as docs/host-model.md lists them.
constexpr std::string_view kStart = "iteration start: zero_grad, next batch to the GPU";
constexpr std::string_view kWaitInput = "forward: wait for the input dist (lengths .tolist())";
constexpr std::string_view kLookup = "forward: embedding lookup";
constexpr std::string_view kOutput = "forward: output dist";
constexpr std::string_view kDenseFwd = "forward: dense model and loss";
constexpr std::string_view kLengthsPerKey =
    "sparse_data_dist: the next batch's lengths per key (.cpu().tolist())";
constexpr std::string_view kSparseDataDist = "sparse_data_dist: input dist of the next batch";
constexpr std::string_view kDenseBwd = "backward: loss, dense model, DDP buckets";
constexpr std::string_view kBwdOutput = "backward: embedding gradients' all-to-all";
constexpr std::string_view kBwdLookup = "backward: fused embedding backward and update";
constexpr std::string_view kOptimizer = "optimizer step";
constexpr std::string_view kGraph = "CUDA graph launch";

int linear_layers(const planner::DenseSpec& d) {
  return static_cast<int>(d.bottom_mlp.size() + d.top_mlp.size());
}

// Ops per parameter tensor of the dense optimizer's for-loop step (PyTorch
// 1.11's _single_tensor_sgd / _single_tensor_adagrad: add_; addcmul_, sqrt,
// add_, addcdiv_; Adam's six).
int optimizer_ops_per_param(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::kAdagrad:
    case OptimizerKind::kRowwiseAdagrad:
      return 4;
    case OptimizerKind::kAdam:
      return 6;
    default:
      return 1;
  }
}

void add(std::vector<HostOpUse>& out, std::string_view op, int count, int launches = 1) {
  if (count > 0) out.push_back({op, count, launches});
}

// The dense model's forward: per linear layer aten::linear (one GEMM with its
// bias) and aten::relu (not after the top MLP's last layer); the interaction
// as TorchRec's DLRM writes it (cat the dense vector to the embeddings, bmm,
// index the upper triangle, cat; DCN: a linear per cross layer); the loss
// (BCE with logits) and torch.sum of it.
void dense_forward(const planner::DenseSpec& d, std::vector<HostOpUse>& out) {
  const int linears = linear_layers(d);
  add(out, "aten::linear", linears);
  add(out, "aten::relu", linears - (d.top_mlp.empty() ? 0 : 1));
  switch (d.interaction.kind) {
    case InteractionKind::kDot:
      add(out, "aten::cat", 2);
      add(out, "aten::bmm", 1);
      add(out, "aten::index", 1);
      break;
    case InteractionKind::kDcn:
      add(out, "aten::cat", 1);
      add(out, "aten::linear", d.interaction.layers * (d.interaction.low_rank ? 2 : 1));
      add(out, "aten::mul", d.interaction.layers, 1);
      add(out, "aten::add", d.interaction.layers, 1);
      break;
    case InteractionKind::kCat:
      add(out, "aten::cat", 1);
      break;
    case InteractionKind::kNone:
      break;
  }
  add(out, "aten::binary_cross_entropy_with_logits", 1, 2);
  add(out, "aten::sum", 1);
}

// Autograd's nodes for the same (the engine's thread, in reverse): the loss,
// per linear layer AddmmBackward0 (dgrad, wgrad and the bias' sum; no dgrad
// for the first bottom layer), ReluBackward0, and AccumulateGrad for its
// weight and bias; the interaction's backward.
void dense_backward(const planner::DenseSpec& d, std::vector<HostOpUse>& out) {
  const int linears = linear_layers(d);
  add(out, "SumBackward0", 1);
  add(out, "BinaryCrossEntropyWithLogitsBackward0", 1, 2);
  if (linears > 0) {
    add(out, "AddmmBackward0", linears - 1, 3);
    add(out, "AddmmBackward0", 1, 2);
  }
  add(out, "ReluBackward0", linears - (d.top_mlp.empty() ? 0 : 1));
  add(out, "AccumulateGrad", 2 * linears);
  switch (d.interaction.kind) {
    case InteractionKind::kDot:
      add(out, "IndexBackward0", 1, 2);
      add(out, "BmmBackward0", 1, 2);
      add(out, "TransposeBackward0", 1, 0);
      break;
    case InteractionKind::kDcn: {
      const int gemms = d.interaction.layers * (d.interaction.low_rank ? 2 : 1);
      add(out, "AddmmBackward0", gemms, 3);
      add(out, "MulBackward0", d.interaction.layers, 2);
      add(out, "AccumulateGrad", 2 * gemms);
      break;
    }
    default:
      break;
  }
}

int param_tensors(const planner::Scenario& s) {
  if (!s.workload.dense) return 0;
  const planner::DenseSpec& d = *s.workload.dense;
  int layers = linear_layers(d);
  if (d.interaction.kind == InteractionKind::kDcn)
    layers += d.interaction.layers * (d.interaction.low_rank ? 2 : 1);
  return 2 * layers;
}

const RankWork& work(const IterationTraffic& t, int rank) {
  return t.ranks[static_cast<size_t>(rank)];
}

int collectives(const IterationTraffic& t, int rank, Phase phase) {
  return work(t, rank).collectives[static_cast<size_t>(phase)];
}

}  // namespace

HostMode host_mode(const planner::Scenario& scenario) {
  return scenario.workload.uses_cuda_graphs() ? HostMode::kCudaGraphs : HostMode::kEager;
}

std::string_view to_string(HostMode m) {
  return m == HostMode::kCudaGraphs ? "cuda_graphs" : "eager";
}

std::vector<HostStepShape> host_program_shape(HostMode mode, bool training) {
  using P = Phase;
  if (mode == HostMode::kCudaGraphs) {
    HostStepShape graph{.name = kGraph, .phase = P::kIterationOverhead};
    for (P p : {P::kPrefetch, P::kFwdCompute, P::kOutputDist, P::kDenseFwd}) {
      graph.issues.push_back({p, 0});
    }
    graph.issues.push_back({P::kInputDist, 1});
    if (training) {
      for (P p : {P::kDenseBwd, P::kDdpAllreduce, P::kBwdOutputDist, P::kBwdCompute,
                  P::kDpAllreduce, P::kDenseOptimizer}) {
        graph.issues.push_back({p, 0});
      }
    }
    return {graph};
  }
  std::vector<HostStepShape> steps = {
      {.name = kStart, .phase = P::kIterationOverhead},
      {.name = kWaitInput, .phase = P::kHostSync, .reads = {{P::kInputDist, 0}}},
      {.name = kLookup,
       .phase = P::kFwdCompute,
       .issues = {{P::kPrefetch, 0}, {P::kFwdCompute, 0}}},
      {.name = kOutput, .phase = P::kOutputDist, .issues = {{P::kOutputDist, 0}}},
      {.name = kDenseFwd, .phase = P::kDenseFwd, .issues = {{P::kDenseFwd, 0}}},
      // The data-dist stream waits for an event recorded as forward(i) began.
      {.name = kLengthsPerKey,
       .phase = P::kHostSync,
       .reads = {{P::kBwdCompute, -1}, {P::kDenseOptimizer, -1}}},
      {.name = kSparseDataDist, .phase = P::kInputDist, .issues = {{P::kInputDist, 1}}},
  };
  if (!training) return steps;
  steps.push_back({.name = kDenseBwd,
                   .phase = P::kDenseBwd,
                   .issues = {{P::kDenseBwd, 0}, {P::kDdpAllreduce, 0}}});
  steps.push_back(
      {.name = kBwdOutput, .phase = P::kBwdOutputDist, .issues = {{P::kBwdOutputDist, 0}}});
  steps.push_back({.name = kBwdLookup,
                   .phase = P::kBwdCompute,
                   .issues = {{P::kBwdCompute, 0}, {P::kDpAllreduce, 0}}});
  steps.push_back(
      {.name = kOptimizer, .phase = P::kDenseOptimizer, .issues = {{P::kDenseOptimizer, 0}}});
  return steps;
}

std::vector<HostOpUse> host_ops(const planner::Scenario& scenario, const IterationTraffic& traffic,
                                const HostStepShape& step, int rank) {
  std::vector<HostOpUse> out;
  const std::optional<planner::DenseSpec>& dense = scenario.workload.dense;
  const RankWork& w = work(traffic, rank);
  const int types = traffic.input_dist_types;
  const int params = param_tensors(scenario);
  if (step.name == kGraph) {
    add(out, "cudaGraphLaunch", 1);
  } else if (step.name == kStart) {
    // Optimizer.zero_grad (PyTorch 1.11: zero_() per gradient), and the next
    // batch's Batch.to(): dense features, the KJT's values and lengths, labels.
    add(out, "Optimizer.zero_grad", 1, 0);
    add(out, "aten::zero_", params);
    add(out, "aten::to", 4);
  } else if (step.name == kWaitInput) {
    // Per sharding type, KJTAllToAllLengthsAwaitable's wait reads the lengths
    // (.cpu().tolist()), then issues the indices all-to-all and permutes.
    add(out, "aten::item", types, 1);
    add(out, "All2All_Req", types);
    add(out, "fbgemm::permute_2D_sparse_data", types);
  } else if (step.name == kLookup) {
    add(out, "LookupFunction", w.embedding_groups, 2);
  } else if (step.name == kOutput) {
    add(out, "All2All_Req", collectives(traffic, rank, Phase::kOutputDist));
  } else if (step.name == kDenseFwd) {
    if (dense) dense_forward(*dense, out);
  } else if (step.name == kLengthsPerKey) {
    // KeyedJaggedTensor.split's length_per_key: a sum over the lengths, read.
    add(out, "aten::sum", 1);
    add(out, "aten::item", 1);
  } else if (step.name == kSparseDataDist) {
    // Per sharding type: the KJT permuted (bucketized) by destination, its
    // lengths all-to-all issued.
    add(out, "fbgemm::permute_2D_sparse_data", types);
    add(out, "All2All_Req", types);
  } else if (step.name == kDenseBwd) {
    if (dense) dense_backward(*dense, out);
    add(out, "All2All_Req", collectives(traffic, rank, Phase::kDdpAllreduce));
  } else if (step.name == kBwdOutput) {
    add(out, "All2All_Req", collectives(traffic, rank, Phase::kBwdOutputDist));
  } else if (step.name == kBwdLookup) {
    add(out, "LookupFunctionBackward", w.embedding_groups, 1);
    add(out, "All2All_Req", collectives(traffic, rank, Phase::kDpAllreduce));
  } else if (step.name == kOptimizer) {
    if (dense) {
      add(out, "Optimizer.step", 1, 0);
      add(out, "aten::add_", params * optimizer_ops_per_param(dense->optimizer));
    }
  }
  return out;
}

Result<HostStepCost> host_cost(const planner::HostProfile& profile,
                               const std::vector<HostOpUse>& ops, double given_ms) {
  HostStepCost cost{.host_ms = given_ms};
  for (const HostOpUse& use : ops) {
    if (use.op == "cudaGraphLaunch") {
      cost.host_ms += use.count * profile.graph_launch_ms;
      cost.launches += use.count;
      continue;
    }
    const std::optional<double> ms = profile.op_ms(use.op, use.launches, use.count);
    if (!ms) {
      return Status::invalid_argument("host profile " + profile.name + ": no cost for the op " +
                                      std::string(use.op) +
                                      ", which the step's op inventory runs (docs/host-model.md)");
    }
    cost.host_ms += *ms;
    cost.launches += use.count * use.launches;
  }
  return cost;
}

}  // namespace shardlab::sim
