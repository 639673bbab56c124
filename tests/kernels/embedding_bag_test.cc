// The CPU reference kernels against loops written here: forward (sum, mean,
// weighted, fp16, empty bags, sequence), gradients against finite differences
// of L = sum(out · g) in double, and the optimizers against their formulas.

#include "shardlab/kernels/embedding_bag.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace shardlab::kernels {
namespace {

// A batch from bag lengths, with ids and weights drawn from the replay streams.
BagBatch make_batch(const std::vector<int64_t>& lengths, int64_t rows, bool weighted,
                    uint64_t key) {
  BagBatch b;
  b.offsets.push_back(0);
  for (int64_t len : lengths) b.offsets.push_back(b.offsets.back() + len);
  const InputDraw draw{.seed = 3};
  for (int64_t j = 0; j < b.offsets.back(); ++j) b.ids.push_back(draw_shard_id(draw, key, j, rows));
  if (weighted) {
    for (int64_t j = 0; j < b.offsets.back(); ++j)
      b.weights.push_back(draw_shard_weight(3, key, j));
  }
  return b;
}

EmbeddingTable make_table(int64_t rows, int64_t dim, Precision p, uint64_t key = 11) {
  EmbeddingTable t(rows, dim, p);
  t.fill_initial(5, key);
  return t;
}

int64_t bag_of(const BagBatch& b, int64_t j) {
  int64_t bag = 0;
  while (b.offsets[static_cast<size_t>(bag) + 1] <= j) ++bag;
  return bag;
}

// The forward as the header defines it, written as plainly as possible.
std::vector<float> naive_forward(const EmbeddingTable& t, const BagBatch& b, PoolingMode mode) {
  const int64_t dim = t.dim();
  std::vector<float> out;
  if (mode == PoolingMode::kNone) {
    for (int64_t j = 0; j < b.num_ids(); ++j) {
      for (int64_t d = 0; d < dim; ++d) out.push_back(t.get(b.ids[j], d));
    }
    return out;
  }
  for (int64_t bag = 0; bag < b.bags(); ++bag) {
    const int64_t first = b.offsets[bag], last = b.offsets[bag + 1];
    for (int64_t d = 0; d < dim; ++d) {
      float acc = 0.0f;
      for (int64_t j = first; j < last; ++j) {
        const float w = b.weights.empty() ? 1.0f : b.weights[j];
        const float prod = w * t.get(b.ids[j], d);
        acc = acc + prod;
      }
      if (mode == PoolingMode::kMean && last > first) acc = acc / static_cast<float>(last - first);
      out.push_back(acc);
    }
  }
  return out;
}

// The same in double, for a tolerance check that does not share fp32 rounding.
std::vector<double> forward_double(const std::vector<std::vector<double>>& e, const BagBatch& b,
                                   PoolingMode mode, int64_t dim) {
  std::vector<double> out;
  if (mode == PoolingMode::kNone) {
    for (int64_t j = 0; j < b.num_ids(); ++j) {
      for (int64_t d = 0; d < dim; ++d) out.push_back(e[b.ids[j]][d]);
    }
    return out;
  }
  for (int64_t bag = 0; bag < b.bags(); ++bag) {
    const int64_t first = b.offsets[bag], last = b.offsets[bag + 1];
    for (int64_t d = 0; d < dim; ++d) {
      double acc = 0.0;
      for (int64_t j = first; j < last; ++j)
        acc += (b.weights.empty() ? 1.0 : b.weights[j]) * e[b.ids[j]][d];
      if (mode == PoolingMode::kMean && last > first) acc /= static_cast<double>(last - first);
      out.push_back(acc);
    }
  }
  return out;
}

std::vector<std::vector<double>> as_double(const EmbeddingTable& t) {
  std::vector<std::vector<double>> e(t.rows(), std::vector<double>(t.dim()));
  for (int64_t r = 0; r < t.rows(); ++r) {
    for (int64_t d = 0; d < t.dim(); ++d) e[r][d] = t.get(r, d);
  }
  return e;
}

std::vector<float> run_forward(const EmbeddingTable& t, const BagBatch& b, PoolingMode mode) {
  std::vector<float> out(static_cast<size_t>(output_rows(b, mode) * t.dim()), -1.0f);
  embedding_bag_forward(t, b, mode, out);
  return out;
}

struct ForwardCase {
  PoolingMode mode;
  bool weighted;
  Precision precision;
  int64_t dim;
};

class ForwardTest : public ::testing::TestWithParam<ForwardCase> {};

TEST_P(ForwardTest, MatchesTheNaiveLoopExactlyAndDoubleWithinTolerance) {
  const ForwardCase c = GetParam();
  const EmbeddingTable t = make_table(97, c.dim, c.precision);
  // Empty bags at the start, the middle and the end; one long bag.
  const BagBatch b = make_batch({0, 3, 1, 0, 40, 7, 2, 0}, t.rows(), c.weighted, 42);
  const std::vector<float> got = run_forward(t, b, c.mode);
  const std::vector<float> want = naive_forward(t, b, c.mode);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "element " << i;
  const std::vector<double> exact = forward_double(as_double(t), b, c.mode, c.dim);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], exact[i], 1e-6 * (1.0 + std::abs(exact[i]))) << i;
  if (c.mode != PoolingMode::kNone) {
    for (int64_t bag : {0, 3, 7}) {
      for (int64_t d = 0; d < c.dim; ++d)
        EXPECT_EQ(got[static_cast<size_t>(bag * c.dim + d)], 0.0f);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ForwardTest,
    ::testing::Values(ForwardCase{PoolingMode::kSum, false, Precision::kFp32, 16},
                      ForwardCase{PoolingMode::kMean, false, Precision::kFp32, 16},
                      ForwardCase{PoolingMode::kSum, true, Precision::kFp32, 7},
                      ForwardCase{PoolingMode::kMean, true, Precision::kFp32, 33},
                      ForwardCase{PoolingMode::kSum, false, Precision::kFp16, 16},
                      ForwardCase{PoolingMode::kMean, true, Precision::kFp16, 5},
                      ForwardCase{PoolingMode::kNone, false, Precision::kFp32, 9},
                      ForwardCase{PoolingMode::kNone, false, Precision::kFp16, 4}));

TEST(EmbeddingTableTest, Fp16TablesHoldTheInitialWeightsExactly) {
  const EmbeddingTable h = make_table(50, 12, Precision::kFp16, 9);
  const EmbeddingTable f = make_table(50, 12, Precision::kFp32, 9);
  for (int64_t r = 0; r < 50; ++r) {
    for (int64_t d = 0; d < 12; ++d) {
      ASSERT_EQ(h.get(r, d), f.get(r, d));
      ASSERT_LE(std::abs(f.get(r, d)), 1.0f / 16);
    }
  }
}

// L(E) = Σ out·g in double, for finite differences.
double loss(const std::vector<std::vector<double>>& e, const BagBatch& b, PoolingMode mode,
            int64_t dim, const std::vector<float>& g) {
  const std::vector<double> out = forward_double(e, b, mode, dim);
  double l = 0.0;
  for (size_t i = 0; i < out.size(); ++i) l += out[i] * g[i];
  return l;
}

struct GradCase {
  PoolingMode mode;
  bool weighted;
};

class GradientTest : public ::testing::TestWithParam<GradCase> {};

// SGD with lr = 1 moves each row by minus its gradient, so the update must
// equal minus the numerical gradient of L, for rows looked up and not.
TEST_P(GradientTest, SgdUpdateIsMinusTheFiniteDifferenceGradient) {
  const GradCase c = GetParam();
  constexpr int64_t kRows = 10, kDim = 5;
  EmbeddingTable t = make_table(kRows, kDim, Precision::kFp32);
  const BagBatch b = make_batch({3, 0, 5, 1, 6, 2}, kRows, c.weighted, 77);
  std::vector<float> g;
  draw_gradient(1, 99, output_rows(b, c.mode), kDim, g);
  const auto before = as_double(t);

  RowGradients scratch;
  const int64_t unique = embedding_bag_backward(
      t, b, c.mode, g, OptimizerConfig{.kind = OptimizerKind::kSgd, .learning_rate = 1.0f},
      scratch);
  std::vector<bool> used(kRows, false);
  for (int64_t id : b.ids) used[id] = true;
  EXPECT_EQ(unique, std::count(used.begin(), used.end(), true));

  constexpr double kH = 1e-3;
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t d = 0; d < kDim; ++d) {
      auto plus = before, minus = before;
      plus[r][d] += kH;
      minus[r][d] -= kH;
      const double numerical =
          (loss(plus, b, c.mode, kDim, g) - loss(minus, b, c.mode, kDim, g)) / (2 * kH);
      const double implied = before[r][d] - t.get(r, d);  // lr = 1
      EXPECT_NEAR(implied, numerical, 1e-7) << "row " << r << " col " << d;
      if (!used[r]) {
        EXPECT_EQ(t.get(r, d), before[r][d]);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, GradientTest,
                         ::testing::Values(GradCase{PoolingMode::kSum, false},
                                           GradCase{PoolingMode::kMean, false},
                                           GradCase{PoolingMode::kSum, true},
                                           GradCase{PoolingMode::kMean, true},
                                           GradCase{PoolingMode::kNone, false}));

// The row gradients written as the header defines them: ascending rows, each
// a left-to-right fp32 sum over its occurrences in position order.
RowGradients naive_row_gradients(const BagBatch& b, PoolingMode mode, int64_t dim,
                                 const std::vector<float>& g) {
  RowGradients out;
  std::vector<int64_t> rows(b.ids.begin(), b.ids.end());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  for (int64_t r : rows) {
    out.rows.push_back(r);
    for (int64_t d = 0; d < dim; ++d) {
      float acc = 0.0f;
      for (int64_t j = 0; j < b.num_ids(); ++j) {
        if (b.ids[j] != r) continue;
        if (mode == PoolingMode::kNone) {
          acc = acc + g[j * dim + d];
          continue;
        }
        const int64_t bag = bag_of(b, j);
        float go = g[bag * dim + d];
        if (mode == PoolingMode::kMean)
          go = go / static_cast<float>(b.offsets[bag + 1] - b.offsets[bag]);
        const float w = b.weights.empty() ? 1.0f : b.weights[j];
        const float prod = w * go;
        acc = acc + prod;
      }
      out.grads.push_back(acc);
    }
  }
  return out;
}

TEST(RowGradientsTest, RepeatedIdsSumInPositionOrder) {
  // Few rows, many ids: every row repeats, as under a Zipf distribution.
  for (PoolingMode mode : {PoolingMode::kSum, PoolingMode::kMean, PoolingMode::kNone}) {
    const BagBatch b = make_batch({9, 1, 0, 17, 4, 30}, 6, mode != PoolingMode::kNone, 5);
    std::vector<float> g;
    draw_gradient(2, 8, output_rows(b, mode), 11, g);
    RowGradients got;
    embedding_bag_row_gradients(b, mode, 11, g, got);
    const RowGradients want = naive_row_gradients(b, mode, 11, g);
    EXPECT_EQ(got.rows, want.rows);
    ASSERT_EQ(got.grads.size(), want.grads.size());
    for (size_t i = 0; i < got.grads.size(); ++i) ASSERT_EQ(got.grads[i], want.grads[i]) << i;
  }
}

TEST(OptimizerTest, RowwiseAdagradFollowsItsFormulaOverTwoSteps) {
  constexpr int64_t kRows = 40, kDim = 21;
  for (Precision p : {Precision::kFp32, Precision::kFp16}) {
    EmbeddingTable t = make_table(kRows, kDim, p);
    EmbeddingTable expect =
        make_table(kRows, kDim, p);  // updated by the formula, one value at a time
    std::vector<float> m(kRows, 0.0f);
    const OptimizerConfig opt{.kind = OptimizerKind::kRowwiseAdagrad, .learning_rate = 0.05f};
    RowGradients scratch;
    for (int step = 0; step < 2; ++step) {
      const BagBatch b = make_batch({4, 6, 0, 9}, kRows, true, 100 + step);
      std::vector<float> g;
      draw_gradient(4, 200 + step, b.bags(), kDim, g);
      embedding_bag_backward(t, b, PoolingMode::kSum, g, opt, scratch);
      const RowGradients rg = naive_row_gradients(b, PoolingMode::kSum, kDim, g);
      for (size_t i = 0; i < rg.rows.size(); ++i) {
        const int64_t r = rg.rows[i];
        const float* gr = rg.grads.data() + i * kDim;
        float sum = 0.0f;
        for (int64_t d = 0; d < kDim; ++d) {
          const float sq = gr[d] * gr[d];
          sum = sum + sq;
        }
        m[r] = m[r] + sum / static_cast<float>(kDim);
        const float denom = std::sqrt(m[r]) + 1e-8f;
        for (int64_t d = 0; d < kDim; ++d) {
          const float step_size = (0.05f * gr[d]) / denom;
          expect.set(r, d, expect.get(r, d) - step_size);
        }
      }
    }
    for (int64_t r = 0; r < kRows; ++r) {
      EXPECT_EQ(t.momentum()[r], m[r]) << "row " << r;
      for (int64_t d = 0; d < kDim; ++d)
        ASSERT_EQ(t.get(r, d), expect.get(r, d)) << to_string(p) << " " << r;
    }
  }
}

TEST(OptimizerTest, Fp16SgdRoundsTheFp32UpdateToNearestEven) {
  // 83 columns: whole vectors of 8 and a tail, across the 64-column chunks.
  constexpr int64_t kDim = 83;
  EmbeddingTable t = make_table(20, kDim, Precision::kFp16);
  const EmbeddingTable before = make_table(20, kDim, Precision::kFp16);
  const BagBatch b = make_batch({5, 5, 5}, 20, false, 3);
  std::vector<float> g;
  draw_gradient(9, 9, b.bags(), kDim, g);
  RowGradients scratch;
  embedding_bag_backward(t, b, PoolingMode::kSum, g, OptimizerConfig{.learning_rate = 0.3f},
                         scratch);
  const RowGradients rg = naive_row_gradients(b, PoolingMode::kSum, kDim, g);
  int changed = 0;
  for (size_t i = 0; i < rg.rows.size(); ++i) {
    for (int64_t d = 0; d < kDim; ++d) {
      const float prod = 0.3f * rg.grads[i * kDim + d];
      const float want = half_bits_to_float(float_to_half_bits(before.get(rg.rows[i], d) - prod));
      ASSERT_EQ(t.get(rg.rows[i], d), want) << "row " << rg.rows[i] << " col " << d;
      changed += want != before.get(rg.rows[i], d);
    }
  }
  EXPECT_GT(changed, 0);
}

}  // namespace
}  // namespace shardlab::kernels
