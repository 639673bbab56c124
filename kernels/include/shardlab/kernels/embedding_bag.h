// The CPU reference embedding-bag kernels: forward (sum, mean or sequence
// lookups, optional per-sample weights, fp32 or fp16 tables) and backward with
// a fused optimizer update (SGD or row-wise Adagrad). They define the replay's
// numerics; the CUDA backend reproduces them bit for bit.
//
// Exact semantics (all arithmetic in fp32, each product and sum rounded on its
// own: this file is compiled with -ffp-contract=off, CUDA uses __fmul_rn /
// __fadd_rn / __fsub_rn / __fdiv_rn / __fsqrt_rn):
//   Forward, pooled: out[b][d] = sum over j in bag b, in order, of w_j · E[id_j][d],
//     accumulated from 0.0f left to right (acc = acc + w_j·e); w_j = 1 when
//     unweighted. Mean: out[b][d] = acc / (float)len(b) when len(b) > 0; an empty
//     bag gives zeros. Output fp32 [bags x dim].
//   Forward, sequence (kNone): out[j][d] = E[id_j][d], fp32 [ids x dim]; weights unused.
//   Row gradient: grad_r[d] = sum over the positions j with id_j == r, in
//     ascending j, of w_j · gs[bag(j)][d], from 0.0f left to right, where
//     gs = g for sum, gs = g[b][d] / (float)len(b) for mean (divided first, then
//     times w_j). Sequence: the contribution of j is g[j][d] (no weight).
//   SGD:  E[r][d] = E[r][d] - lr·grad_r[d].
//   Row-wise Adagrad (state m[r], fp32, starts at 0):
//     s = sum over d, left to right from 0.0f, of grad_r[d]·grad_r[d];
//     m[r] = m[r] + s / (float)dim;
//     E[r][d] = E[r][d] - (lr·grad_r[d]) / (sqrtf(m[r]) + 1e-8f).
//   fp16 tables: E is loaded to fp32, updated as above, rounded to nearest even.
//   Rows not looked up are untouched (their Adagrad state too).
//
// Thread safety: the functions touch only their arguments; distinct tables
// may be used from distinct threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "shardlab/kernels/half.h"
#include "shardlab/kernels/replay_inputs.h"
#include "shardlab/kernels/workload.h"

namespace shardlab::kernels {

inline constexpr float kAdagradEpsilon = 1e-8f;

// Memory for table storage: 2 MiB aligned and advised for transparent huge
// pages, so random row reads of a large table do not miss the TLB on every
// row. Defined in embedding_bag.cc.
void* allocate_table_memory(size_t bytes);
void free_table_memory(void* p, size_t bytes);

template <typename T>
struct TableAllocator {
  using value_type = T;
  TableAllocator() = default;
  template <typename U>
  TableAllocator(const TableAllocator<U>&) {}  // NOLINT: allocator rebinding
  T* allocate(size_t n) { return static_cast<T*>(allocate_table_memory(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { free_table_memory(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const TableAllocator<U>&) const {
    return true;
  }
};

// A [rows x dim] table in fp32 or fp16, row-major, with its row-wise Adagrad
// state (allocated on first use).
class EmbeddingTable {
 public:
  EmbeddingTable() = default;
  EmbeddingTable(int64_t rows, int64_t dim, Precision precision);

  int64_t rows() const { return rows_; }
  int64_t dim() const { return dim_; }
  Precision precision() const { return precision_; }

  float get(int64_t r, int64_t d) const {
    const int64_t i = r * dim_ + d;
    return precision_ == Precision::kFp32 ? fp32_[i] : fp16_[i].to_float();
  }
  // fp16 tables round to nearest even.
  void set(int64_t r, int64_t d, float v) {
    const int64_t i = r * dim_ + d;
    if (precision_ == Precision::kFp32) {
      fp32_[i] = v;
    } else {
      fp16_[i] = Half::from_float(v);
    }
  }

  // Fills every element with draw_initial_weight(seed, table, r, d, dim) and
  // clears the optimizer state. Multithreaded over rows when the table is large.
  void fill_initial(uint64_t seed, uint64_t table);

  std::span<float> fp32_data() { return fp32_; }
  std::span<const float> fp32_data() const { return fp32_; }
  std::span<Half> fp16_data() { return fp16_; }
  std::span<const Half> fp16_data() const { return fp16_; }
  // Row-wise Adagrad state, one fp32 per row (empty until first used).
  std::vector<float>& momentum() { return momentum_; }
  const std::vector<float>& momentum() const { return momentum_; }
  int64_t storage_bytes() const { return rows_ * dim_ * element_bytes(precision_); }

 private:
  int64_t rows_ = 0;
  int64_t dim_ = 0;
  Precision precision_ = Precision::kFp32;
  std::vector<float, TableAllocator<float>> fp32_;
  std::vector<Half, TableAllocator<Half>> fp16_;
  std::vector<float> momentum_;
};

// out[i] = Half::from_float(in[i]) for each i, vectorised where the CPU can
// (x86 F16C); bit-identical to the scalar conversion for every non-NaN float.
// REQUIRES: out.size() >= in.size().
void round_to_halves(std::span<const float> in, std::span<Half> out);

// One lookup call's inputs. REQUIRES: offsets.size() == bags + 1, offsets[0] == 0,
// offsets non-decreasing, offsets.back() == ids.size(), every id in [0, rows),
// weights empty or ids.size() long.
struct BagBatch {
  std::vector<int64_t> offsets;
  std::vector<int64_t> ids;
  std::vector<float> weights;

  int64_t bags() const { return offsets.empty() ? 0 : static_cast<int64_t>(offsets.size()) - 1; }
  int64_t num_ids() const { return static_cast<int64_t>(ids.size()); }
};

// Draws a shard's batch for one iteration (replay_inputs.h): `bags` bag lengths
// around `pooling_factor`, ids over [0, rows_used), weights when `weighted`.
// Reuses `batch`'s storage.
void draw_batch(const InputDraw& draw, uint64_t shard, int64_t bags, double pooling_factor,
                int64_t rows_used, bool weighted, BagBatch& batch);
// The output gradient of that batch: out_rows x dim values (out_rows = bags, or
// ids for sequence lookups).
void draw_gradient(uint64_t seed, uint64_t shard, int64_t out_rows, int64_t dim,
                   std::vector<float>& grad);

// Rows of the forward output: bags, or ids for sequence lookups.
int64_t output_rows(const BagBatch& batch, PoolingMode mode);

// REQUIRES: out.size() == output_rows(batch, mode) * table.dim().
void embedding_bag_forward(const EmbeddingTable& table, const BagBatch& batch, PoolingMode mode,
                           std::span<float> out);

// Distinct rows of a batch with their gradients (the semantics above), rows
// ascending; grads is rows.size() x dim. Scratch buffers are reused across calls.
struct RowGradients {
  std::vector<int64_t> rows;
  std::vector<float> grads;
  // Scratch: (id, position) pairs sorted by id, then position; the bag of each position.
  std::vector<std::pair<int64_t, int64_t>> order;
  std::vector<int64_t> bag_of;
};

// REQUIRES: grad_out.size() == output_rows(batch, mode) * dim.
void embedding_bag_row_gradients(const BagBatch& batch, PoolingMode mode, int64_t dim,
                                 std::span<const float> grad_out, RowGradients& result);

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kSgd;
  float learning_rate = 0.01f;
};

// Backward with the fused optimizer: computes each distinct row's gradient
// (one row at a time, in scratch.grads) and applies the update to that row.
// Returns the distinct rows updated; scratch.rows is left empty.
int64_t embedding_bag_backward(EmbeddingTable& table, const BagBatch& batch, PoolingMode mode,
                               std::span<const float> grad_out, const OptimizerConfig& optimizer,
                               RowGradients& scratch);

// Applies one optimizer step to one row with its gradient (dim values), as the
// semantics above say. Exposed for tests and for the backward above.
void apply_row_update(EmbeddingTable& table, int64_t row, std::span<const float> grad,
                      const OptimizerConfig& optimizer);

}  // namespace shardlab::kernels
