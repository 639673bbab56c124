// The dense part of a DLRM-family model (workload.dense) as the simulator
// runs it: layers, their GEMMs and elementwise traffic, parameter counts,
// per-layer forward and backward times on a GPU (a roofline), the dense
// optimizer step, and the DDP gradient buckets with the moment each becomes
// ready during the backward. docs/simulation.md "The dense model" derives every formula.
//
// Per rank, with batch B (the scenario's batch_size) and element size s of
// the compute precision:
//   linear K -> N:  forward GEMM (B, N, K); activation read + write 2·B·N·s;
//                   backward dgrad GEMM (B, K, N) (not for the first bottom
//                   layer, whose input needs no gradient), wgrad GEMM
//                   (N, K, B), activation backward 3·B·N·s, bias gradient
//                   B·N·s; parameters K·N + N.
//   dot over n vectors of width D: batched GEMM (n, n, D) x B; backward two
//                   of them; output D + n(n-1)/2 pairs (+ n with self).
//   dcn layer on width W: full rank GEMM (B, W, W), W² + W parameters; low
//                   rank r: GEMMs (B, r, W) and (B, W, r), 2·W·r + W
//                   parameters; x0 ⊙ (...) + x_l read 3, write 1 of B·W·s.
//   cat:            the concatenation, read + write B·W·s (none: free).
// A GEMM (m, n, k) multiplies m x k by k x n, 2·m·n·k FLOPs.
//
// Nothing here allocates per event: the simulator asks once per simulation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shardlab/planner/hardware_spec.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"

namespace shardlab::sim {

struct Gemm {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int64_t batch = 1;  // independent products of this shape (a batched GEMM)

  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
           static_cast<double>(batch);
  }
};

struct DenseLayer {
  std::string name;           // "bottom_mlp[0]", "interaction", "dcn[2]", "top_mlp[4]"
  int64_t params = 0;         // weights + biases
  int64_t weight_params = 0;  // of which weights (cast to the compute precision under autocast)
  std::vector<Gemm> fwd_gemms;
  std::vector<Gemm> bwd_gemms;  // dgrad and wgrad
  double fwd_bytes = 0.0;       // elementwise HBM traffic, bytes
  double bwd_bytes = 0.0;
  int fwd_kernels = 0;  // launches, GEMMs included
  int bwd_kernels = 0;

  double fwd_flops() const;
  double bwd_flops() const;
};

struct DenseArchitecture {
  std::vector<DenseLayer> layers;   // forward order: bottom MLP, interaction, top MLP
  int bottom_layers = 0;            // the first layers, which are the bottom MLP
  int64_t interaction_vectors = 0;  // pooled embeddings + the bottom MLP's output
  int64_t interaction_width = 0;    // their summed widths
  int64_t interaction_output = 0;   // width the top MLP reads
  int64_t params = 0;
};

// The architecture at batch `batch`. `feature_dims` holds the width of every
// pooled embedding the interaction reads (one per feature of every table).
// Fails (kInvalidArgument, naming workload.dense...) when the widths do not
// fit: a dot interaction needs every vector as wide as the bottom MLP's output.
Result<DenseArchitecture> dense_architecture(const planner::DenseSpec& spec,
                                             const std::vector<int64_t>& feature_dims,
                                             int64_t batch);

// One feature width per feature of every table, in table order.
std::vector<int64_t> feature_dims(const planner::Scenario& scenario);

// Parameter bytes of the dense model: parameters · 4 (fp32 master weights).
int64_t dense_param_bytes(const DenseArchitecture& arch);

// Roofline time of one GEMM in `precision`, ms: max(FLOPs / achievable rate,
// operand bytes / achievable HBM bandwidth) + gpu.gemm.kernel_ms
// (docs/presets.md "The GEMM roofline"). `hbm_bw` in bytes/ms. The
// precision's peak must be > 0.
double gemm_time_ms(const planner::GpuSpec& gpu, double hbm_bw, planner::Precision precision,
                    const Gemm& gemm);
// The achievable FLOP rate of the GEMM, FLOP/ms, before the memory bound.
double gemm_flop_rate(const planner::GpuSpec& gpu, planner::Precision precision, const Gemm& gemm);
// Time of streaming kernels moving `bytes` in all, ms.
double stream_time_ms(const planner::GpuSpec& gpu, double hbm_bw, double bytes);

struct GradientBucket {
  double bytes = 0.0;  // gradient bytes all-reduced
  int64_t params = 0;
  // When the bucket is ready, as a fraction of the dense backward's time
  // (its last gradient is written then).
  double ready_fraction = 1.0;
  // It holds bottom MLP gradients, which autograd produces after handing the
  // embedding gradients on: DDP issues it after their all-to-all.
  bool after_embeddings = false;
};

struct DenseTimes {
  std::vector<double> layer_fwd_ms;  // per layer, forward order
  std::vector<double> layer_bwd_ms;
  double fwd_ms = 0.0;
  double bwd_ms = 0.0;
  double optimizer_ms = 0.0;            // the dense optimizer's step
  std::vector<GradientBucket> buckets;  // in all-reduce order
  // When the embedding gradients exist (the top MLP's and the interaction's
  // backward done), as a fraction of the dense backward's time.
  double embedding_grad_fraction = 1.0;
};

// Times of `arch` on `gpu` (topology.hbm_mem_bw in bytes/ms), each kernel
// plus spec.kernel_overhead_us, and DDP's buckets: parameters in reverse
// registration order (top MLP's last layer first, bias before weight), the
// first bucket capped at `first_bucket_bytes` and the others at
// `bucket_bytes`, as PyTorch's DDP assigns them.
DenseTimes dense_times(const DenseArchitecture& arch, const planner::DenseSpec& spec,
                       const planner::GpuSpec& gpu, double hbm_bw, int64_t first_bucket_bytes,
                       int64_t bucket_bytes);

// DDP's buckets when layer i's backward takes `layer_bwd[i]` (any unit; only
// the proportions matter) and gradients have `gradient_bytes` per parameter.
std::vector<GradientBucket> gradient_buckets(const DenseArchitecture& arch,
                                             const std::vector<double>& layer_bwd,
                                             int gradient_bytes, int64_t first_bucket_bytes,
                                             int64_t bucket_bytes);

// The fraction of the backward (by `layer_bwd`, as above) that runs before
// the bottom MLP's: when the embedding gradients exist.
double embedding_grad_fraction(const DenseArchitecture& arch, const std::vector<double>& layer_bwd);

// Bytes the optimizer step moves per dense parameter (fp32 parameter,
// gradient and state: SGD 12, Adagrad 20, Adam 28).
double dense_optimizer_bytes_per_param(planner::OptimizerKind optimizer);

}  // namespace shardlab::sim
