// The CPU reference kernels of embedding_bag.h. This file is compiled with
// -ffp-contract=off (kernels/CMakeLists.txt): every product and sum rounds on
// its own, so the results are the ones the header's semantics define and the
// CUDA backend reproduces with __fmul_rn / __fadd_rn.
//
// Loops over the columns d are innermost so the compiler may vectorise them:
// each column is an independent chain, so vectorising does not reorder any sum.

#include "shardlab/kernels/embedding_bag.h"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <new>
#include <thread>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SHARDLAB_X86_F16C 1
#endif

namespace shardlab::kernels {
namespace {

// fp32 -> fp16 of n values. F16C's conversion with round-to-nearest-even
// gives the same bits as float_to_half_bits for every non-NaN float (NaNs do
// not occur: inputs are finite and small), several times faster than the
// scalar code, which remains the fallback and the definition.
#if defined(SHARDLAB_X86_F16C)
__attribute__((target("avx,f16c"))) void store_halves_f16c(const float* in, Half* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h =
        _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = Half::from_float(in[i]);
}

// fp16 -> fp32 of n values (exact either way).
__attribute__((target("avx,f16c"))) void load_halves_f16c(const Half* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  }
  for (; i < n; ++i) out[i] = in[i].to_float();
}
#endif

bool have_f16c() {
#if defined(SHARDLAB_X86_F16C)
  static const bool f16c = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return f16c;
#else
  return false;
#endif
}

void load_halves(const Half* in, float* out, int64_t n) {
#if defined(SHARDLAB_X86_F16C)
  if (have_f16c()) {
    load_halves_f16c(in, out, n);
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = in[i].to_float();
}

void store_halves(const float* in, Half* out, int64_t n) {
#if defined(SHARDLAB_X86_F16C)
  if (have_f16c()) {
    store_halves_f16c(in, out, n);
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = Half::from_float(in[i]);
}

// Rows this many ids ahead are prefetched: random rows are latency-bound, and
// one row's arithmetic is too short to hide a DRAM miss behind it.
constexpr size_t kPrefetchDistance = 8;

void prefetch_bytes(const void* p, int64_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(c + off);
}

void prefetch_row(const EmbeddingTable& table, int64_t r) {
  const int64_t dim = table.dim();
  if (table.precision() == Precision::kFp32) {
    prefetch_bytes(table.fp32_data().data() + r * dim, dim * 4);
  } else {
    prefetch_bytes(table.fp16_data().data() + r * dim, dim * 2);
  }
}

// Row `r` of the table as fp32 into `row` (dim values).
void load_row(const EmbeddingTable& table, int64_t r, float* row) {
  const int64_t dim = table.dim();
  if (table.precision() == Precision::kFp32) {
    const float* src = table.fp32_data().data() + r * dim;
    std::copy(src, src + dim, row);
    return;
  }
  load_halves(table.fp16_data().data() + r * dim, row, dim);
}

// out[d] = out[d] + w · E[r][d] over the row, in fp32.
void accumulate_row(const EmbeddingTable& table, int64_t r, float w, float* out) {
  const int64_t dim = table.dim();
  if (table.precision() == Precision::kFp32) {
    const float* e = table.fp32_data().data() + r * dim;
    for (int64_t d = 0; d < dim; ++d) out[d] = out[d] + w * e[d];
    return;
  }
  const Half* e = table.fp16_data().data() + r * dim;
  constexpr int64_t kChunk = 64;
  float buf[kChunk];
  for (int64_t d0 = 0; d0 < dim; d0 += kChunk) {
    const int64_t n = std::min(kChunk, dim - d0);
    load_halves(e + d0, buf, n);
    for (int64_t k = 0; k < n; ++k) out[d0 + k] = out[d0 + k] + w * buf[k];
  }
}

// Calls fn(row, grad) for each distinct row of the batch, rows ascending, with
// grad its dim gradient values (embedding_bag.h's semantics). `grad` is only
// valid during the call. prefetch(row) is called a few occurrences before
// fn(row, ...) may be, so the caller can bring the row it will update closer.
template <typename Fn, typename Prefetch>
void for_each_row_gradient(const BagBatch& batch, PoolingMode mode, int64_t dim,
                           std::span<const float> grad_out, RowGradients& scratch,
                           std::vector<float>& grad, Fn&& fn, Prefetch&& prefetch) {
  std::vector<std::pair<int64_t, int64_t>>& order = scratch.order;
  const int64_t n = batch.num_ids();
  order.resize(static_cast<size_t>(n));
  // Sorting (id, position) pairs orders by id and, within an id, by position:
  // the stable order the semantics ask for (CUDA: a stable radix sort by id).
  for (int64_t j = 0; j < n; ++j)
    order[static_cast<size_t>(j)] = {batch.ids[static_cast<size_t>(j)], j};
  std::sort(order.begin(), order.end());
  std::vector<int64_t>& bag_of = scratch.bag_of;
  if (mode != PoolingMode::kNone) {
    bag_of.resize(static_cast<size_t>(n));
    for (int64_t b = 0; b < batch.bags(); ++b) {
      std::fill(bag_of.begin() + batch.offsets[static_cast<size_t>(b)],
                bag_of.begin() + batch.offsets[static_cast<size_t>(b) + 1], b);
    }
  }
  const bool weighted = !batch.weights.empty() && mode != PoolingMode::kNone;
  grad.assign(static_cast<size_t>(dim), 0.0f);
  float* g = grad.data();
  size_t i = 0;
  while (i < order.size()) {
    const int64_t row = order[i].first;
    std::fill(g, g + dim, 0.0f);
    for (; i < order.size() && order[i].first == row; ++i) {
      if (i + kPrefetchDistance < order.size()) {
        const auto& [ahead_row, ahead_j] = order[i + kPrefetchDistance];
        const int64_t ahead_out =
            mode == PoolingMode::kNone ? ahead_j : bag_of[static_cast<size_t>(ahead_j)];
        prefetch_bytes(grad_out.data() + ahead_out * dim, dim * 4);
        prefetch(ahead_row);
      }
      const int64_t j = order[i].second;
      if (mode == PoolingMode::kNone) {
        const float* go = grad_out.data() + j * dim;
        for (int64_t d = 0; d < dim; ++d) g[d] = g[d] + go[d];
        continue;
      }
      const int64_t b = bag_of[static_cast<size_t>(j)];
      const float w = weighted ? batch.weights[static_cast<size_t>(j)] : 1.0f;
      const float* go = grad_out.data() + b * dim;
      if (mode == PoolingMode::kMean) {
        const float len = static_cast<float>(batch.offsets[static_cast<size_t>(b) + 1] -
                                             batch.offsets[static_cast<size_t>(b)]);
        for (int64_t d = 0; d < dim; ++d) g[d] = g[d] + w * (go[d] / len);
      } else {
        for (int64_t d = 0; d < dim; ++d) g[d] = g[d] + w * go[d];
      }
    }
    fn(row, std::span<const float>(g, static_cast<size_t>(dim)));
  }
}

// E[row][d] = round_to_half(fn(float(E[row][d]), d)) over the row, through
// an fp32 buffer so the rounding runs on whole vectors.
template <typename Fn>
void update_half_row(EmbeddingTable& table, int64_t row, Fn&& fn) {
  const int64_t dim = table.dim();
  Half* e = table.fp16_data().data() + row * dim;
  constexpr int64_t kChunk = 64;
  float buf[kChunk];
  for (int64_t d0 = 0; d0 < dim; d0 += kChunk) {
    const int64_t n = std::min(kChunk, dim - d0);
    load_halves(e + d0, buf, n);
    for (int64_t k = 0; k < n; ++k) buf[k] = fn(buf[k], d0 + k);
    store_halves(buf, e + d0, n);
  }
}

}  // namespace

void* allocate_table_memory(size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20;
  if (bytes < kHugePage) {
    void* p = std::calloc(bytes == 0 ? 1 : bytes, 1);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  // Advice only: without transparent huge pages the memory is used as it is.
  madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

void free_table_memory(void* p, size_t) { std::free(p); }

void round_to_halves(std::span<const float> in, std::span<Half> out) {
  assert(out.size() >= in.size());
  store_halves(in.data(), out.data(), static_cast<int64_t>(in.size()));
}

EmbeddingTable::EmbeddingTable(int64_t rows, int64_t dim, Precision precision)
    : rows_(rows), dim_(dim), precision_(precision) {
  assert(rows >= 0 && dim > 0);
  if (precision == Precision::kFp32) {
    fp32_.assign(static_cast<size_t>(rows * dim), 0.0f);
  } else {
    fp16_.assign(static_cast<size_t>(rows * dim), Half{});
  }
}

void EmbeddingTable::fill_initial(uint64_t seed, uint64_t table) {
  momentum_.clear();
  auto fill = [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      for (int64_t d = 0; d < dim_; ++d) set(r, d, draw_initial_weight(seed, table, r, d, dim_));
    }
  };
  // Each value depends on its position only, so threads split rows freely.
  constexpr int64_t kElementsPerThread = int64_t{1} << 22;
  const int64_t elements = rows_ * dim_;
  const int64_t threads = std::clamp<int64_t>(
      elements / kElementsPerThread, 1, std::max<int64_t>(1, std::thread::hardware_concurrency()));
  if (threads == 1) {
    fill(0, rows_);
    return;
  }
  std::vector<std::jthread> workers;
  for (int64_t t = 0; t < threads; ++t) {
    workers.emplace_back(fill, rows_ * t / threads, rows_ * (t + 1) / threads);
  }
}

void draw_batch(const InputDraw& draw, uint64_t shard, int64_t bags, double pooling_factor,
                int64_t rows_used, bool weighted, BagBatch& batch) {
  batch.offsets.resize(static_cast<size_t>(bags) + 1);
  batch.offsets[0] = 0;
  for (int64_t b = 0; b < bags; ++b) {
    batch.offsets[static_cast<size_t>(b) + 1] =
        batch.offsets[static_cast<size_t>(b)] +
        draw_shard_bag_length(draw, shard, b, pooling_factor);
  }
  const int64_t n = batch.offsets.back();
  batch.ids.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    batch.ids[static_cast<size_t>(j)] = draw_shard_id(draw, shard, j, rows_used);
  batch.weights.clear();
  if (weighted) {
    batch.weights.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j)
      batch.weights[static_cast<size_t>(j)] = draw_shard_weight(draw.seed, shard, j);
  }
}

void draw_gradient(uint64_t seed, uint64_t shard, int64_t out_rows, int64_t dim,
                   std::vector<float>& grad) {
  grad.resize(static_cast<size_t>(out_rows * dim));
  for (int64_t b = 0; b < out_rows; ++b) {
    for (int64_t d = 0; d < dim; ++d)
      grad[static_cast<size_t>(b * dim + d)] = draw_shard_gradient(seed, shard, b, d, dim);
  }
}

int64_t output_rows(const BagBatch& batch, PoolingMode mode) {
  return mode == PoolingMode::kNone ? batch.num_ids() : batch.bags();
}

void embedding_bag_forward(const EmbeddingTable& table, const BagBatch& batch, PoolingMode mode,
                           std::span<float> out) {
  const int64_t dim = table.dim();
  assert(static_cast<int64_t>(out.size()) == output_rows(batch, mode) * dim);
  if (mode == PoolingMode::kNone) {
    const size_t n = batch.ids.size();
    for (size_t j = 0; j < n; ++j) {
      if (j + kPrefetchDistance < n) prefetch_row(table, batch.ids[j + kPrefetchDistance]);
      load_row(table, batch.ids[j], out.data() + static_cast<int64_t>(j) * dim);
    }
    return;
  }
  const bool weighted = !batch.weights.empty();
  for (int64_t b = 0; b < batch.bags(); ++b) {
    float* o = out.data() + b * dim;
    std::fill(o, o + dim, 0.0f);
    const int64_t first = batch.offsets[static_cast<size_t>(b)];
    const int64_t last = batch.offsets[static_cast<size_t>(b) + 1];
    for (int64_t j = first; j < last; ++j) {
      const auto ahead = static_cast<size_t>(j) + kPrefetchDistance;
      if (ahead < batch.ids.size()) prefetch_row(table, batch.ids[ahead]);
      accumulate_row(table, batch.ids[static_cast<size_t>(j)],
                     weighted ? batch.weights[static_cast<size_t>(j)] : 1.0f, o);
    }
    if (mode == PoolingMode::kMean && last > first) {
      const float len = static_cast<float>(last - first);
      for (int64_t d = 0; d < dim; ++d) o[d] = o[d] / len;
    }
  }
}

void embedding_bag_row_gradients(const BagBatch& batch, PoolingMode mode, int64_t dim,
                                 std::span<const float> grad_out, RowGradients& result) {
  assert(static_cast<int64_t>(grad_out.size()) == output_rows(batch, mode) * dim);
  result.rows.clear();
  result.grads.clear();
  std::vector<float> grad;
  for_each_row_gradient(
      batch, mode, dim, grad_out, result, grad,
      [&](int64_t row, std::span<const float> g) {
        result.rows.push_back(row);
        result.grads.insert(result.grads.end(), g.begin(), g.end());
      },
      [](int64_t) {});
}

void apply_row_update(EmbeddingTable& table, int64_t row, std::span<const float> grad,
                      const OptimizerConfig& optimizer) {
  const int64_t dim = table.dim();
  const float lr = optimizer.learning_rate;
  if (optimizer.kind == OptimizerKind::kRowwiseAdagrad) {
    std::vector<float>& m = table.momentum();
    if (static_cast<int64_t>(m.size()) != table.rows())
      m.assign(static_cast<size_t>(table.rows()), 0.0f);
    float sum = 0.0f;
    for (int64_t d = 0; d < dim; ++d)
      sum = sum + grad[static_cast<size_t>(d)] * grad[static_cast<size_t>(d)];
    float& state = m[static_cast<size_t>(row)];
    state = state + sum / static_cast<float>(dim);
    const float denom = std::sqrt(state) + kAdagradEpsilon;
    if (table.precision() == Precision::kFp32) {
      float* e = table.fp32_data().data() + row * dim;
      for (int64_t d = 0; d < dim; ++d) e[d] = e[d] - (lr * grad[static_cast<size_t>(d)]) / denom;
    } else {
      update_half_row(table, row, [&](float e, int64_t d) {
        return e - (lr * grad[static_cast<size_t>(d)]) / denom;
      });
    }
    return;
  }
  if (table.precision() == Precision::kFp32) {
    float* e = table.fp32_data().data() + row * dim;
    for (int64_t d = 0; d < dim; ++d) e[d] = e[d] - lr * grad[static_cast<size_t>(d)];
  } else {
    update_half_row(table, row,
                    [&](float e, int64_t d) { return e - lr * grad[static_cast<size_t>(d)]; });
  }
}

int64_t embedding_bag_backward(EmbeddingTable& table, const BagBatch& batch, PoolingMode mode,
                               std::span<const float> grad_out, const OptimizerConfig& optimizer,
                               RowGradients& scratch) {
  assert(static_cast<int64_t>(grad_out.size()) == output_rows(batch, mode) * table.dim());
  if (optimizer.kind == OptimizerKind::kRowwiseAdagrad &&
      static_cast<int64_t>(table.momentum().size()) != table.rows()) {
    table.momentum().assign(static_cast<size_t>(table.rows()), 0.0f);
  }
  int64_t unique = 0;
  std::vector<float>& grad = scratch.grads;  // one row's gradient at a time
  for_each_row_gradient(
      batch, mode, table.dim(), grad_out, scratch, grad,
      [&](int64_t row, std::span<const float> g) {
        apply_row_update(table, row, g, optimizer);
        ++unique;
      },
      [&](int64_t row) { prefetch_row(table, row); });
  return unique;
}

}  // namespace shardlab::kernels
