// The CUDA embedding-bag kernels against the CPU reference (embedding_bag.h):
// inputs drawn on the device equal the host's draws, forward outputs agree
// within the fp32 / fp16 tolerance, and tables (and row-wise Adagrad state)
// after backward + optimizer are bit-identical, over fp32 and fp16 tables,
// dims from 4 to 1024 (vector and scalar paths, several column passes), sum /
// mean / weighted / sequence lookups, empty bags, and uniform or Zipf ids
// (repeated rows). The CPU side is written out here from embedding_bag.h's
// functions, independently of device_shard.cc's run_shard_on_cpu.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_test_util.h"
#include "device_buffer.h"
#include "device_shard.h"
#include "shardlab/kernels/embedding_bag.h"
#include "shardlab/kernels/replay_inputs.h"

namespace shardlab::kernels::cuda {
namespace {

using cuda_test::count_outside;

enum class Lookup { kSum, kMean, kWeightedSum, kWeightedMean, kSequence };

std::string lookup_name(Lookup l) {
  switch (l) {
    case Lookup::kSum:
      return "Sum";
    case Lookup::kMean:
      return "Mean";
    case Lookup::kWeightedSum:
      return "WeightedSum";
    case Lookup::kWeightedMean:
      return "WeightedMean";
    case Lookup::kSequence:
      return "Sequence";
  }
  return "?";
}

ShardShape make_shape(Precision precision, int64_t dim, Lookup lookup, int64_t rows, int64_t bags,
                      double pooling) {
  ShardShape s;
  s.rows = rows;
  s.dim = dim;
  s.precision = precision;
  s.pooling = lookup == Lookup::kSequence                                  ? PoolingMode::kNone
              : lookup == Lookup::kMean || lookup == Lookup::kWeightedMean ? PoolingMode::kMean
                                                                           : PoolingMode::kSum;
  s.weighted = lookup == Lookup::kWeightedSum || lookup == Lookup::kWeightedMean;
  s.bags = bags;
  s.pooling_factor = pooling;
  return s;
}

float tolerance(Precision p) { return p == Precision::kFp16 ? 1e-3f : 1e-6f; }

// One forward on the device, with its inputs copied back.
struct DeviceForward {
  BagBatch batch;
  std::vector<float> out;
};

DeviceForward device_forward(const ShardShape& shape, const InputDraw& draw, uint64_t table,
                             uint64_t key) {
  DeviceForward r;
  auto shard = DeviceShard::create(shape, OptimizerKind::kSgd);
  EXPECT_TRUE(shard) << shard.status().message();
  if (!shard) return r;
  Stream stream;
  EXPECT_TRUE(stream.create().is_ok());
  Status st = (*shard)->fill_table(draw.seed, table, stream.get());
  if (st) st = (*shard)->draw_inputs(draw, key, false, stream.get());
  if (st) st = (*shard)->poison_output(stream.get());
  if (st) st = (*shard)->forward(stream.get());
  if (st) st = (*shard)->copy_batch(r.batch, stream.get());
  if (st) st = (*shard)->copy_forward(r.out, stream.get());
  EXPECT_TRUE(st) << st.message();
  return r;
}

void expect_same_batch(const BagBatch& device, const BagBatch& host) {
  EXPECT_EQ(device.offsets, host.offsets);
  EXPECT_EQ(device.ids, host.ids);
  EXPECT_EQ(device.weights, host.weights);
}

// ---- Forward.

class CudaForwardTest : public ::testing::TestWithParam<std::tuple<Precision, int64_t, Lookup>> {};

TEST_P(CudaForwardTest, MatchesTheCpuReference) {
  SHARDLAB_REQUIRE_GPU();
  const auto [precision, dim, lookup] = GetParam();
  const ShardShape shape = make_shape(precision, dim, lookup, 1000, 96, 5.5);
  const InputDraw draw{.seed = 11, .poisson = true};
  const uint64_t table = table_key(3, 1);
  const uint64_t key = shard_key(3, 1, 2);
  const DeviceForward device = device_forward(shape, draw, table, key);

  EmbeddingTable host_table(shape.rows, shape.dim, shape.precision);
  host_table.fill_initial(draw.seed, table);
  BagBatch batch;
  draw_batch(draw, key, shape.bags, shape.pooling_factor, shape.rows, shape.weighted, batch);
  std::vector<float> expected(static_cast<size_t>(output_rows(batch, shape.pooling) * dim));
  embedding_bag_forward(host_table, batch, shape.pooling, expected);

  expect_same_batch(device.batch, batch);
  ASSERT_EQ(device.out.size(), expected.size());
  EXPECT_EQ(count_outside(device.out, expected, tolerance(precision)), 0);
  int64_t nonzero = 0;
  for (float v : expected) nonzero += v != 0.0f;
  EXPECT_GT(nonzero,
            static_cast<int64_t>(expected.size()) / 2);  // a check of real values, not zeros
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CudaForwardTest,
    ::testing::Combine(::testing::Values(Precision::kFp32, Precision::kFp16),
                       ::testing::Values<int64_t>(4, 7, 32, 128, 1024),
                       ::testing::Values(Lookup::kSum, Lookup::kMean, Lookup::kWeightedSum,
                                         Lookup::kWeightedMean, Lookup::kSequence)),
    [](const auto& info) {
      return std::string(to_string(std::get<0>(info.param))) + "_dim" +
             std::to_string(std::get<1>(info.param)) + "_" + lookup_name(std::get<2>(info.param));
    });

TEST(CudaForwardEdgeTest, EmptyBagsGiveZerosForSumAndMean) {
  SHARDLAB_REQUIRE_GPU();
  for (Lookup lookup : {Lookup::kSum, Lookup::kMean, Lookup::kWeightedMean}) {
    // Fixed pooling 0.4: lengths floor((b+1)·0.4) - floor(b·0.4), most of them 0.
    const ShardShape shape = make_shape(Precision::kFp32, 64, lookup, 500, 200, 0.4);
    const InputDraw draw{.seed = 5};
    const DeviceForward device = device_forward(shape, draw, table_key(0, 0), shard_key(0, 0, 0));
    ASSERT_EQ(device.batch.offsets.size(), 201u);
    int empty = 0;
    for (int64_t b = 0; b < shape.bags; ++b) {
      if (device.batch.offsets[static_cast<size_t>(b) + 1] !=
          device.batch.offsets[static_cast<size_t>(b)])
        continue;
      ++empty;
      for (int64_t d = 0; d < shape.dim; ++d)
        EXPECT_EQ(device.out[static_cast<size_t>(b * shape.dim + d)], 0.0f);
    }
    EXPECT_GT(empty, 100) << lookup_name(lookup);
  }
}

TEST(CudaForwardEdgeTest, ABatchWithoutIdsWritesZeroRows) {
  SHARDLAB_REQUIRE_GPU();
  const ShardShape shape = make_shape(Precision::kFp16, 16, Lookup::kSum, 10, 8, 0.0);
  const DeviceForward device =
      device_forward(shape, InputDraw{}, table_key(0, 0), shard_key(0, 0, 0));
  EXPECT_TRUE(device.batch.ids.empty());
  ASSERT_EQ(device.out.size(), 8u * 16u);
  for (float v : device.out) EXPECT_EQ(v, 0.0f);
}

// ---- Inputs.

TEST(CudaInputsTest, DeviceDrawsEqualTheHostsForEveryDistribution) {
  SHARDLAB_REQUIRE_GPU();
  for (bool zipf : {false, true}) {
    for (bool poisson : {false, true}) {
      for (double pooling : {0.7, 3.0, 80.0}) {
        const InputDraw draw{.seed = 3, .zipf = zipf, .alpha = 1.2, .poisson = poisson};
        const ShardShape shape =
            make_shape(Precision::kFp32, 8, Lookup::kWeightedSum, 100000, 300, pooling);
        auto shard = DeviceShard::create(shape, OptimizerKind::kSgd);
        ASSERT_TRUE(shard) << shard.status().message();
        Stream stream;
        ASSERT_TRUE(stream.create().is_ok());
        const uint64_t key = shard_key(1, 4, 9);
        ASSERT_TRUE((*shard)->draw_inputs(draw, key, true, stream.get()).is_ok());
        BagBatch device;
        ASSERT_TRUE((*shard)->copy_batch(device, stream.get()).is_ok());
        BagBatch host;
        draw_batch(draw, key, shape.bags, shape.pooling_factor, shape.rows, true, host);
        SCOPED_TRACE("zipf " + std::to_string(zipf) + " poisson " + std::to_string(poisson) +
                     " pooling " + std::to_string(pooling));
        expect_same_batch(device, host);
        EXPECT_EQ((*shard)->num_ids(), host.num_ids());
      }
    }
  }
}

// ---- Backward with the fused optimizer.

class CudaBackwardTest
    : public ::testing::TestWithParam<std::tuple<Precision, int64_t, Lookup, OptimizerKind, bool>> {
};

TEST_P(CudaBackwardTest, UpdatedTablesEqualTheCpuReferenceBitForBit) {
  SHARDLAB_REQUIRE_GPU();
  const auto [precision, dim, lookup, optimizer_kind, zipf] = GetParam();
  // Few rows and Zipf ids: many repeated rows, so gradients of one row are summed in order.
  const ShardShape shape = make_shape(precision, dim, lookup, zipf ? 300 : 2000, 128, 6.0);
  const InputDraw draw{.seed = 21, .zipf = zipf, .alpha = 1.1, .poisson = true};
  const OptimizerConfig optimizer{.kind = optimizer_kind, .learning_rate = 0.05f};
  constexpr int kRank = 1, kShard = 2, kIterations = 2;

  auto device = run_shard_on_device(shape, draw, optimizer, kRank, kShard, kIterations);
  ASSERT_TRUE(device) << device.status().message();

  EmbeddingTable table(shape.rows, shape.dim, shape.precision);
  table.fill_initial(draw.seed, table_key(kRank, kShard));
  const EmbeddingTable initial = table;
  BagBatch batch;
  std::vector<float> out, grad;
  RowGradients scratch;
  int64_t unique = 0;
  for (int it = 0; it < kIterations; ++it) {
    const uint64_t key = shard_key(kRank, kShard, static_cast<uint64_t>(it));
    draw_batch(draw, key, shape.bags, shape.pooling_factor, shape.rows, shape.weighted, batch);
    const int64_t rows_out = output_rows(batch, shape.pooling);
    out.assign(static_cast<size_t>(rows_out * dim), 0.0f);
    embedding_bag_forward(table, batch, shape.pooling, out);
    draw_gradient(draw.seed, key, rows_out, dim, grad);
    unique = embedding_bag_backward(table, batch, shape.pooling, grad, optimizer, scratch);
  }

  expect_same_batch(device->batch, batch);
  ASSERT_EQ(device->forward.size(), out.size());
  EXPECT_EQ(count_outside(device->forward, out, tolerance(precision)), 0);
  EXPECT_EQ(device->unique_rows, unique);
  if (zipf) {
    EXPECT_LT(unique, batch.num_ids());  // repeated rows were exercised
  }

  const size_t bytes = static_cast<size_t>(table.storage_bytes());
  const void* expected_bits = precision == Precision::kFp32
                                  ? static_cast<const void*>(table.fp32_data().data())
                                  : static_cast<const void*>(table.fp16_data().data());
  const void* actual_bits = precision == Precision::kFp32
                                ? static_cast<const void*>(device->table.fp32_data().data())
                                : static_cast<const void*>(device->table.fp16_data().data());
  EXPECT_EQ(std::memcmp(actual_bits, expected_bits, bytes), 0) << "updated tables differ";
  if (optimizer_kind == OptimizerKind::kRowwiseAdagrad) {
    ASSERT_EQ(device->table.momentum().size(), table.momentum().size());
    EXPECT_EQ(std::memcmp(device->table.momentum().data(), table.momentum().data(),
                          table.momentum().size() * sizeof(float)),
              0)
        << "Adagrad state differs";
  }
  // The update did something: rows looked up moved away from their initial values.
  int64_t moved = 0;
  for (int64_t r = 0; r < shape.rows; ++r) {
    for (int64_t d = 0; d < dim; ++d) moved += device->table.get(r, d) != initial.get(r, d);
  }
  EXPECT_GT(moved, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CudaBackwardTest,
    ::testing::Combine(::testing::Values(Precision::kFp32, Precision::kFp16),
                       ::testing::Values<int64_t>(4, 7, 32, 128, 1024),
                       ::testing::Values(Lookup::kSum, Lookup::kMean, Lookup::kWeightedSum,
                                         Lookup::kSequence),
                       ::testing::Values(OptimizerKind::kSgd, OptimizerKind::kRowwiseAdagrad),
                       ::testing::Bool()),
    [](const auto& info) {
      return std::string(to_string(std::get<0>(info.param))) + "_dim" +
             std::to_string(std::get<1>(info.param)) + "_" + lookup_name(std::get<2>(info.param)) +
             "_" + (std::get<3>(info.param) == OptimizerKind::kSgd ? "Sgd" : "Adagrad") +
             (std::get<4>(info.param) ? "_Zipf" : "_Uniform");
    });

TEST(CudaBackwardDeterminismTest, TwoRunsGiveIdenticalTables) {
  SHARDLAB_REQUIRE_GPU();
  // Heavily repeated rows (a hot row collects hundreds of gradients): the
  // order of its sum must not depend on scheduling.
  const ShardShape shape = make_shape(Precision::kFp32, 256, Lookup::kWeightedSum, 64, 4096, 16.0);
  const InputDraw draw{.seed = 2, .zipf = true, .alpha = 1.5};
  const OptimizerConfig optimizer{.kind = OptimizerKind::kRowwiseAdagrad, .learning_rate = 0.1f};
  auto a = run_shard_on_device(shape, draw, optimizer, 0, 0, 3);
  auto b = run_shard_on_device(shape, draw, optimizer, 0, 0, 3);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(std::memcmp(a->table.fp32_data().data(), b->table.fp32_data().data(),
                        static_cast<size_t>(a->table.storage_bytes())),
            0);
  const ShardDifferences d = compare_runs(*a, run_shard_on_cpu(shape, draw, optimizer, 0, 0, 3));
  EXPECT_EQ(d.total(), 0) << "inputs " << d.inputs << " forward " << d.forward << " table "
                          << d.table << " state " << d.state;
}

// Host-only: the comparison behind ReplayOptions::verify counts each kind of difference.
TEST(CompareRunsTest, CountsEachKindOfDifference) {
  const ShardShape shape = make_shape(Precision::kFp32, 16, Lookup::kWeightedMean, 50, 20, 3.0);
  const OptimizerConfig optimizer{.kind = OptimizerKind::kRowwiseAdagrad, .learning_rate = 0.1f};
  const ShardRun reference = run_shard_on_cpu(shape, InputDraw{.seed = 4}, optimizer, 0, 1, 2);
  ShardRun copy = reference;
  EXPECT_EQ(compare_runs(copy, reference).total(), 0);
  ASSERT_FALSE(copy.batch.ids.empty());
  copy.batch.ids[0] += 1;
  copy.forward[3] = reference.forward[3] * (1.0f + 1e-7f);  // within the fp32 tolerance
  copy.forward[5] = reference.forward[5] + 0.5f;            // outside it
  copy.table.fp32_data()[7] = std::nextafter(reference.table.fp32_data()[7], 1.0f);
  copy.table.momentum()[2] += 1.0f;
  const ShardDifferences d = compare_runs(copy, reference);
  EXPECT_EQ(d.inputs, 1);
  EXPECT_EQ(d.forward, 1);
  EXPECT_EQ(d.table, 1);
  EXPECT_EQ(d.state, 1);
}

}  // namespace
}  // namespace shardlab::kernels::cuda
