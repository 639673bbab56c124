// Speed of the CPU reference kernels (kernels/embedding_bag.h): forward with
// sum pooling and backward with the fused SGD / row-wise Adagrad update on a
// few shapes, one thread. Counters: bytes/s by bytes.h's count, ids/s.
// `shardlab bench-kernels` measures the same with a copy beside it; this
// harness is for tracking the kernels' own speed across changes.
//
//   build/benchmarks/kernels_bench --benchmark_filter=forward
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "shardlab/kernels/bytes.h"
#include "shardlab/kernels/embedding_bag.h"

namespace {

using namespace shardlab::kernels;

constexpr int64_t kRows = 1 << 18;
constexpr int64_t kBags = 2048;

struct Setup {
  EmbeddingTable table;
  BagBatch batch;
  std::vector<float> out, grad;
};

// args: dim, pooling factor, fp16 (0/1).
Setup make(const benchmark::State& state) {
  const int64_t dim = state.range(0);
  const auto pooling = static_cast<double>(state.range(1));
  const Precision p = state.range(2) != 0 ? Precision::kFp16 : Precision::kFp32;
  Setup s{EmbeddingTable(kRows, dim, p), {}, {}, {}};
  s.table.fill_initial(1, table_key(0, 0));
  draw_batch(InputDraw{.seed = 1}, shard_key(0, 0, 0), kBags, pooling, kRows, false, s.batch);
  s.out.resize(static_cast<size_t>(kBags * dim));
  draw_gradient(1, shard_key(0, 0, 0), kBags, dim, s.grad);
  return s;
}

LookupShape shape_of(const Setup& s) {
  return LookupShape{.ids = s.batch.num_ids(),
                     .bags = kBags,
                     .dim = s.table.dim(),
                     .precision = s.table.precision()};
}

void forward(benchmark::State& state) {
  Setup s = make(state);
  for (auto _ : state) {
    embedding_bag_forward(s.table, s.batch, PoolingMode::kSum, s.out);
    benchmark::DoNotOptimize(s.out.data());
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_s"] =
      benchmark::Counter(forward_bytes(shape_of(s)) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["ids_per_s"] = benchmark::Counter(
      static_cast<double>(s.batch.num_ids()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void backward(benchmark::State& state, OptimizerKind kind) {
  Setup s = make(state);
  RowGradients scratch;
  int64_t unique = 0;
  const OptimizerConfig opt{.kind = kind, .learning_rate = 0.01f};
  for (auto _ : state) {
    unique = embedding_bag_backward(s.table, s.batch, PoolingMode::kSum, s.grad, opt, scratch);
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_s"] = benchmark::Counter(
      backward_bytes(shape_of(s), unique, kind) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["unique_rows"] = static_cast<double>(unique);
}

void backward_sgd(benchmark::State& state) { backward(state, OptimizerKind::kSgd); }
void backward_adagrad(benchmark::State& state) { backward(state, OptimizerKind::kRowwiseAdagrad); }

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"dim", "pooling", "fp16"});
  for (int64_t dim : {32, 128, 512}) {
    for (int64_t pooling : {1, 8, 32}) b->Args({dim, pooling, 0});
  }
  b->Args({128, 8, 1});
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(forward)->Apply(shapes);
BENCHMARK(backward_sgd)->Apply(shapes);
BENCHMARK(backward_adagrad)
    ->Args({128, 8, 0})
    ->Args({128, 8, 1})
    ->ArgNames({"dim", "pooling", "fp16"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
