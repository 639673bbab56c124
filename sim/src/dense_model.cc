#include "shardlab/sim/dense_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shardlab::sim {
namespace {

using planner::DenseSpec;
using planner::GpuSpec;
using planner::InteractionKind;
using planner::Precision;

constexpr double kMasterBytes = 4.0;  // fp32 master weights

double d(int64_t v) { return static_cast<double>(v); }

// The interaction's concatenation of B vectors of width W: one copy forward,
// its split backward.
DenseLayer concat_layer(int64_t b, int64_t w, double s) {
  DenseLayer l;
  l.name = "interaction";
  l.fwd_bytes = 2.0 * d(b) * d(w) * s;
  l.fwd_kernels = 1;
  l.bwd_bytes = 2.0 * d(b) * d(w) * s;
  l.bwd_kernels = 1;
  return l;
}

// A linear layer K -> N with its activation, at batch B, element size s.
// `input_grad`: the layer's input needs a gradient (dgrad GEMM). `fused`:
// bias and activation (and their gradients) run in the GEMMs' epilogues.
DenseLayer linear(std::string name, int64_t b, int64_t k, int64_t n, double s, bool input_grad,
                  bool autocast, bool fused) {
  DenseLayer l;
  l.name = std::move(name);
  l.weight_params = k * n;
  l.params = k * n + n;
  l.fwd_gemms = {Gemm{.m = b, .n = n, .k = k}};
  if (input_grad) l.bwd_gemms.push_back(Gemm{.m = b, .n = k, .k = n});
  l.bwd_gemms.push_back(Gemm{.m = n, .n = k, .k = b});
  l.fwd_kernels = 1;
  l.bwd_kernels = static_cast<int>(l.bwd_gemms.size());
  if (!fused) {
    l.fwd_bytes = 2.0 * d(b) * d(n) * s;                    // activation: read, write
    l.bwd_bytes = 3.0 * d(b) * d(n) * s + d(b) * d(n) * s;  // activation backward, bias gradient
    l.fwd_kernels += 1;
    l.bwd_kernels += 2;
  }
  if (autocast) {
    // The fp32 master weight is cast to the compute precision every forward.
    l.fwd_bytes += d(l.weight_params) * (kMasterBytes + s);
    l.fwd_kernels += 1;
  }
  return l;
}

Status invalid(const std::string& field, const std::string& what) {
  return Status::invalid_argument("workload.dense." + field + ": " + what);
}

}  // namespace

double DenseLayer::fwd_flops() const {
  double f = 0.0;
  for (const Gemm& g : fwd_gemms) f += g.flops();
  return f;
}

double DenseLayer::bwd_flops() const {
  double f = 0.0;
  for (const Gemm& g : bwd_gemms) f += g.flops();
  return f;
}

std::vector<int64_t> feature_dims(const planner::Scenario& scenario) {
  std::vector<int64_t> dims;
  for (const planner::TableSpec& t : scenario.tables) {
    for (size_t f = 0; f < t.feature_names.size(); ++f) dims.push_back(t.embedding_dim);
  }
  return dims;
}

namespace {

// What every layer's formulas share: batch, element size, autocast, fused epilogues.
struct LayerContext {
  int64_t batch = 0;
  double element = 0.0;
  bool autocast = false;
  bool fused = false;
};

// `prefix`[i] for each width of `widths`, from `width`; the first layer's
// input needs a gradient unless `first_is_input`. Returns the last width.
Result<int64_t> add_mlp(const std::string& prefix, const std::vector<int64_t>& widths,
                        int64_t width, bool first_is_input, const char* no_input,
                        const LayerContext& c, DenseArchitecture* a) {
  for (size_t i = 0; i < widths.size(); ++i) {
    if (width == 0) return invalid(prefix, no_input);
    a->layers.push_back(linear(prefix + "[" + std::to_string(i) + "]", c.batch, width, widths[i],
                               c.element, i > 0 || !first_is_input, c.autocast, c.fused));
    width = widths[i];
  }
  return width;
}

// The interaction's inputs: the bottom MLP's output and every pooled
// embedding; their count and summed width, at most 2^24 (an MLP width, so
// every GEMM's products stay exact).
Status set_interaction_input(int64_t dense_out, const std::vector<int64_t>& feature_dims,
                             DenseArchitecture* a) {
  a->interaction_vectors = static_cast<int64_t>(feature_dims.size()) + (dense_out > 0 ? 1 : 0);
  constexpr int64_t kMaxInteractionWidth = int64_t{1} << 24;
  a->interaction_width = dense_out;  // <= 2^24, an MLP width
  for (const int64_t dim : feature_dims) {
    // Checked before the sum grows past 2^25: no overflow.
    if (dim <= kMaxInteractionWidth) a->interaction_width += dim;
    if (dim > kMaxInteractionWidth || a->interaction_width > kMaxInteractionWidth) {
      return invalid("interaction",
                     "its input (the pooled embeddings of every feature and the bottom MLP's "
                     "output) is wider than " +
                         std::to_string(kMaxInteractionWidth) + " values");
    }
  }
  return Status::ok();
}

// A dot interaction over n vectors of one width: T·Tᵀ, its upper triangle
// gathered and concatenated with the dense vector.
Result<DenseLayer> dot_layer(const DenseSpec& spec, int64_t dense_out,
                             const std::vector<int64_t>& feature_dims, int64_t n,
                             const LayerContext& c, int64_t* output) {
  const int64_t dim = dense_out > 0 ? dense_out : (feature_dims.empty() ? 0 : feature_dims.front());
  for (size_t f = 0; f < feature_dims.size(); ++f) {
    if (feature_dims[f] != dim) {
      return invalid("interaction.kind",
                     "a dot interaction needs every pooled embedding as wide as the bottom "
                     "MLP's output (" +
                         std::to_string(dim) + "), but feature " + std::to_string(f) + " is " +
                         std::to_string(feature_dims[f]) + " wide");
    }
  }
  const int64_t b = c.batch;
  const double s = c.element;
  const int64_t pairs = n * (n - 1) / 2 + (spec.interaction.self_interaction ? n : 0);
  DenseLayer l;
  l.name = "interaction";
  l.fwd_gemms = {Gemm{.m = n, .n = n, .k = dim, .batch = b}};
  // Gather the upper triangle, then concatenate it with the dense vector.
  l.fwd_bytes = d(b) * s * (d(n) * d(n) + d(pairs) + 2.0 * d(dense_out + pairs));
  l.fwd_kernels = 3;
  // d(T·Tᵀ) needs dZ·T and dZᵀ·T; the triangle's gradient is scattered first.
  l.bwd_gemms = {Gemm{.m = n, .n = dim, .k = n, .batch = b},
                 Gemm{.m = n, .n = dim, .k = n, .batch = b}};
  l.bwd_bytes = d(b) * s * (2.0 * d(dense_out + pairs) + d(pairs) + d(n) * d(n));
  l.bwd_kernels = 4;
  *output = dense_out + pairs;
  return l;
}

// DCN-v2's layer i on width w: x_{l+1} = x0 ⊙ (W x_l + b) + x_l, W full or
// of low rank.
DenseLayer dcn_layer(const DenseSpec& spec, int i, int64_t w, const LayerContext& c) {
  const int64_t b = c.batch;
  const double s = c.element;
  DenseLayer l;
  l.name = "dcn[" + std::to_string(i) + "]";
  if (spec.interaction.low_rank) {
    const int64_t r = *spec.interaction.low_rank;
    l.weight_params = 2 * w * r;
    l.fwd_gemms = {Gemm{.m = b, .n = r, .k = w}, Gemm{.m = b, .n = w, .k = r}};
    l.bwd_gemms = {Gemm{.m = b, .n = r, .k = w}, Gemm{.m = b, .n = w, .k = r},   // dgrad
                   Gemm{.m = w, .n = r, .k = b}, Gemm{.m = r, .n = w, .k = b}};  // wgrad
  } else {
    l.weight_params = w * w;
    l.fwd_gemms = {Gemm{.m = b, .n = w, .k = w}};
    l.bwd_gemms = {Gemm{.m = b, .n = w, .k = w}, Gemm{.m = w, .n = w, .k = b}};
  }
  l.params = l.weight_params + w;
  // x0 ⊙ y + x_l: read three, write one (not fused into a GEMM: it reads x0
  // and x_l besides the GEMM's output).
  l.fwd_bytes = 4.0 * d(b) * d(w) * s;
  l.fwd_kernels = static_cast<int>(l.fwd_gemms.size()) + 1;
  // dy = dx ⊙ x0, dx0 += dx ⊙ y, dx_l = dx + Wᵀ dy, bias gradient.
  l.bwd_bytes = 8.0 * d(b) * d(w) * s;
  l.bwd_kernels = static_cast<int>(l.bwd_gemms.size()) + 3;
  if (c.autocast) {
    l.fwd_bytes += d(l.weight_params) * (kMasterBytes + s);
    l.fwd_kernels += 1;
  }
  return l;
}

// The interaction's layers; sets interaction_output.
Status add_interaction(const DenseSpec& spec, int64_t dense_out,
                       const std::vector<int64_t>& feature_dims, const LayerContext& c,
                       DenseArchitecture* a) {
  const int64_t w = a->interaction_width;
  switch (spec.interaction.kind) {
    case InteractionKind::kDot: {
      Result<DenseLayer> dot = dot_layer(spec, dense_out, feature_dims, a->interaction_vectors, c,
                                         &a->interaction_output);
      if (!dot) return dot.status();
      a->layers.push_back(std::move(dot).value());
      break;
    }
    case InteractionKind::kDcn:
      // x0 = concat(dense, embeddings), then the layers.
      a->layers.push_back(concat_layer(c.batch, w, c.element));
      for (int i = 0; i < spec.interaction.layers; ++i)
        a->layers.push_back(dcn_layer(spec, i, w, c));
      a->interaction_output = w;
      break;
    case InteractionKind::kCat:
      a->layers.push_back(concat_layer(c.batch, w, c.element));
      a->interaction_output = w;
      break;
    case InteractionKind::kNone:
      a->interaction_output = w;
      break;
  }
  return Status::ok();
}

}  // namespace

Result<DenseArchitecture> dense_architecture(const DenseSpec& spec,
                                             const std::vector<int64_t>& feature_dims,
                                             int64_t batch) {
  DenseArchitecture a;
  const double s = planner::precision_bytes(spec.precision);
  const LayerContext c{
      .batch = batch, .element = s, .autocast = s < kMasterBytes, .fused = spec.fused_epilogues};
  // Bottom MLP: dense features -> bottom_mlp; its input needs no gradient.
  Result<int64_t> dense_out = add_mlp("bottom_mlp", spec.bottom_mlp, spec.dense_features, true,
                                      "a bottom MLP needs dense_features >= 1", c, &a);
  if (!dense_out) return dense_out.status();  // 0: no dense vector
  a.bottom_layers = static_cast<int>(a.layers.size());
  SHARDLAB_RETURN_IF_ERROR(set_interaction_input(*dense_out, feature_dims, &a));
  SHARDLAB_RETURN_IF_ERROR(add_interaction(spec, *dense_out, feature_dims, c, &a));
  Result<int64_t> top =
      add_mlp("top_mlp", spec.top_mlp, a.interaction_output, false,
              "the top MLP has no input: no dense features and no embeddings", c, &a);
  if (!top) return top.status();
  for (const DenseLayer& l : a.layers) a.params += l.params;
  return a;
}

int64_t dense_param_bytes(const DenseArchitecture& arch) {
  return arch.params * static_cast<int64_t>(kMasterBytes);
}

double gemm_flop_rate(const GpuSpec& gpu, Precision precision, const Gemm& g) {
  const planner::GemmModel& m = gpu.gemm;
  const int p = static_cast<int>(precision);
  const double sms = std::max(1, m.sm_count);
  const double tiles = std::ceil(d(g.m) / m.tile_m) * std::ceil(d(g.n) / m.tile_n) * d(g.batch);
  // Too few tiles to fill the SMs: split K over idle SMs, down to min_split_k.
  double split = 1.0;
  if (tiles < sms) {
    split = std::max(
        1.0, std::min(std::floor(sms / tiles), std::floor(d(g.k) / std::max(1.0, m.min_split_k))));
  }
  const double blocks = tiles * split;
  const double waves = std::ceil(blocks / sms);
  const double wave_efficiency = blocks / (waves * sms);
  const double k_slice = d(g.k) / split;
  const double k_efficiency = k_slice / (k_slice + m.k_half);
  return gpu.peak_flops[p] * m.max_efficiency[p] * wave_efficiency * k_efficiency;
}

double gemm_time_ms(const GpuSpec& gpu, double hbm_bw, Precision precision, const Gemm& g) {
  const double s = planner::precision_bytes(precision);
  const double compute = g.flops() / gemm_flop_rate(gpu, precision, g);
  const double bytes = (d(g.m) * d(g.k) + d(g.k) * d(g.n) + d(g.m) * d(g.n)) * s * d(g.batch);
  const double memory = bytes / (hbm_bw * gpu.hbm_efficiency);
  return std::max(compute, memory) + gpu.gemm.kernel_ms;
}

double stream_time_ms(const GpuSpec& gpu, double hbm_bw, double bytes) {
  return bytes / (hbm_bw * gpu.hbm_efficiency);
}

double dense_optimizer_bytes_per_param(planner::OptimizerKind optimizer) {
  // Read parameter and gradient, write the parameter; each state tensor is
  // read and written too. All fp32.
  switch (optimizer) {
    case planner::OptimizerKind::kNone:
    case planner::OptimizerKind::kSgd:
      return 3 * kMasterBytes;
    case planner::OptimizerKind::kAdagrad:
    case planner::OptimizerKind::kRowwiseAdagrad:
    case planner::OptimizerKind::kOther:
      return 5 * kMasterBytes;
    case planner::OptimizerKind::kAdam:
      return 7 * kMasterBytes;
  }
  return 3 * kMasterBytes;
}

DenseTimes dense_times(const DenseArchitecture& arch, const DenseSpec& spec, const GpuSpec& gpu,
                       double hbm_bw, int64_t first_bucket_bytes, int64_t bucket_bytes) {
  DenseTimes t;
  const double gap = spec.kernel_overhead_us / 1000.0;
  for (const DenseLayer& l : arch.layers) {
    double fwd = stream_time_ms(gpu, hbm_bw, l.fwd_bytes) + l.fwd_kernels * gap;
    for (const Gemm& g : l.fwd_gemms) fwd += gemm_time_ms(gpu, hbm_bw, spec.precision, g);
    double bwd = stream_time_ms(gpu, hbm_bw, l.bwd_bytes) + l.bwd_kernels * gap;
    for (const Gemm& g : l.bwd_gemms) bwd += gemm_time_ms(gpu, hbm_bw, spec.precision, g);
    t.layer_fwd_ms.push_back(fwd);
    t.layer_bwd_ms.push_back(bwd);
    t.fwd_ms += fwd;
    t.bwd_ms += bwd;
  }
  // The optimizer step over all dense parameters (one fused multi-tensor kernel).
  if (arch.params > 0) {
    t.optimizer_ms =
        stream_time_ms(gpu, hbm_bw,
                       d(arch.params) * dense_optimizer_bytes_per_param(spec.optimizer)) +
        gap;
  }

  t.buckets =
      gradient_buckets(arch, t.layer_bwd_ms, spec.gradient_bytes, first_bucket_bytes, bucket_bytes);
  t.embedding_grad_fraction = embedding_grad_fraction(arch, t.layer_bwd_ms);
  return t;
}

double embedding_grad_fraction(const DenseArchitecture& arch,
                               const std::vector<double>& layer_bwd) {
  const double total = std::accumulate(layer_bwd.begin(), layer_bwd.end(), 0.0);
  const double above =
      std::accumulate(layer_bwd.begin() + arch.bottom_layers, layer_bwd.end(), 0.0);
  return total > 0.0 ? above / total : 1.0;
}

std::vector<GradientBucket> gradient_buckets(const DenseArchitecture& arch,
                                             const std::vector<double>& layer_bwd,
                                             int gradient_bytes, int64_t first_bucket_bytes,
                                             int64_t bucket_bytes) {
  std::vector<GradientBucket> buckets;
  const double total = std::accumulate(layer_bwd.begin(), layer_bwd.end(), 0.0);
  // Walk the layers backwards (backward order); a layer's gradients are
  // ready when its backward ends.
  double elapsed = 0.0;
  int64_t cap = first_bucket_bytes;
  GradientBucket open;
  auto close = [&] {
    if (open.params == 0) return;
    buckets.push_back(open);
    open = GradientBucket{};
    cap = bucket_bytes;
  };
  for (size_t i = arch.layers.size(); i-- > 0;) {
    const DenseLayer& l = arch.layers[i];
    elapsed += layer_bwd[i];
    if (l.params == 0) continue;
    const double ready = total > 0.0 ? std::min(1.0, elapsed / total) : 1.0;
    // Bias first, then weight: each tensor joins the open bucket, which
    // closes once it reaches its cap.
    for (const int64_t tensor : {l.params - l.weight_params, l.weight_params}) {
      if (tensor == 0) continue;
      open.params += tensor;
      open.bytes += d(tensor) * gradient_bytes;
      open.ready_fraction = ready;
      open.after_embeddings = open.after_embeddings || static_cast<int>(i) < arch.bottom_layers;
      if (open.bytes >= d(cap)) close();
    }
  }
  close();
  return buckets;
}

}  // namespace shardlab::sim
