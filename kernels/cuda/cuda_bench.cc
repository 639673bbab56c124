// bench-kernels on the GPU (backend.h): the forward and the backward with the
// fused optimizer over a sweep of rows x dims x pooling factors, beside a
// device-to-device copy measured in the same run.
//
// Each timed call gets fresh inputs (iteration i draws with shard_key(0, 0, i)),
// drawn untimed before it, so the rows it reads are not the previous call's
// and stay out of L2 as far as the table's size allows. Bytes per bytes.h:
// forward_bytes, and backward_bytes with the distinct rows the backward found;
// both averaged over the timed calls and divided by the median time.
//
// Under mpirun every process benchmarks its own GPU and returns its own result.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "backend_common.h"
#include "cuda_check.h"
#include "cuda_context.h"
#include "device_buffer.h"
#include "device_shard.h"
#include "shardlab/kernels/bytes.h"

namespace shardlab::kernels::cuda {
namespace {

// The copy: large enough to stream from memory, not from L2 (50 MB on H100).
constexpr int64_t kCopyBytes = int64_t{1} << 30;

Result<double> copy_bandwidth(int warmup, int iterations, cudaStream_t stream) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const int64_t bytes =
      std::min<int64_t>(kCopyBytes, static_cast<int64_t>(free_bytes / 4)) & ~int64_t{255};
  if (bytes <= 0) return Status::internal("no device memory left for the copy benchmark");
  DeviceBuffer<char> src;
  DeviceBuffer<char> dst;
  SHARDLAB_RETURN_IF_ERROR(src.reserve(bytes));
  SHARDLAB_RETURN_IF_ERROR(dst.reserve(bytes));
  CUDA_CHECK(cudaMemsetAsync(src.data(), 1, static_cast<size_t>(bytes), stream));
  EventPair events;
  SHARDLAB_RETURN_IF_ERROR(events.create());
  std::vector<double> samples;
  for (int i = 0; i < warmup + iterations; ++i) {
    SHARDLAB_RETURN_IF_ERROR(events.record_start(stream));
    CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), static_cast<size_t>(bytes),
                               cudaMemcpyDeviceToDevice, stream));
    SHARDLAB_RETURN_IF_ERROR(events.record_stop(stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (i < warmup) continue;
    auto ms = events.elapsed_ms();
    if (!ms) return ms.status();
    samples.push_back(*ms);
  }
  const TimingSummary t = summarize(samples);
  return copy_bytes(static_cast<double>(bytes)) / (t.median_ms * 1e-3);
}

}  // namespace

Result<KernelBenchResult> cuda_bench_kernels(const CudaContext& ctx, const KernelBenchOptions& o,
                                             const ProgressFn& progress) {
  if (Status st = check_bench_options(o); !st) return st;
  DeviceGuard guard(ctx.devices.front());
  if (!guard.ok())
    return Status::internal("cannot select GPU " + std::to_string(ctx.devices.front()));
  Stream stream;
  SHARDLAB_RETURN_IF_ERROR(stream.create());

  KernelBenchResult result;
  result.backend = "cuda";
  result.device_name = ctx.device_name;
  auto copy = copy_bandwidth(o.warmup, std::max(o.iterations, 10), stream.get());
  if (!copy) return copy.status().with_context("device-to-device copy");
  result.copy_bytes_per_s = *copy;

  const InputDraw draw{.seed = o.seed};
  const DeviceOptimizer optimizer{.kind = o.optimizer, .learning_rate = 0.01f};
  const int total = static_cast<int>(o.rows.size() * o.dims.size() * o.pooling_factors.size());
  int done = 0;
  for (int64_t rows : o.rows) {
    for (int64_t dim : o.dims) {
      for (double pooling : o.pooling_factors) {
        const std::string what = std::to_string(rows) + " rows x " + std::to_string(dim) + " " +
                                 std::string(to_string(o.precision)) + ", pooling " +
                                 std::to_string(pooling);
        if (progress) progress(done, total, what);
        const ShardShape shape{.rows = rows,
                               .dim = dim,
                               .precision = o.precision,
                               .pooling = PoolingMode::kSum,
                               .weighted = false,
                               .bags = o.bags,
                               .pooling_factor = pooling};
        auto shard = DeviceShard::create(shape, o.optimizer);
        if (!shard) return shard.status().with_context(what);
        SHARDLAB_RETURN_IF_ERROR((*shard)->fill_table(o.seed, table_key(0, 0), stream.get()));
        EventPair fwd_events;
        EventPair bwd_events;
        SHARDLAB_RETURN_IF_ERROR(fwd_events.create());
        SHARDLAB_RETURN_IF_ERROR(bwd_events.create());
        BenchSamples samples;
        for (int it = 0; it < o.warmup + o.iterations; ++it) {
          SHARDLAB_RETURN_IF_ERROR((*shard)->draw_inputs(
              draw, shard_key(0, 0, static_cast<uint64_t>(it)), true, stream.get()));
          SHARDLAB_RETURN_IF_ERROR(fwd_events.record_start(stream.get()));
          SHARDLAB_RETURN_IF_ERROR((*shard)->forward(stream.get()));
          SHARDLAB_RETURN_IF_ERROR(fwd_events.record_stop(stream.get()));
          SHARDLAB_RETURN_IF_ERROR(bwd_events.record_start(stream.get()));
          SHARDLAB_RETURN_IF_ERROR((*shard)->backward(optimizer, stream.get()));
          SHARDLAB_RETURN_IF_ERROR(bwd_events.record_stop(stream.get()));
          CUDA_CHECK(cudaStreamSynchronize(stream.get()));
          if (it < o.warmup) continue;
          auto f = fwd_events.elapsed_ms();
          if (!f) return f.status();
          auto b = bwd_events.elapsed_ms();
          if (!b) return b.status();
          samples.fwd_ms.push_back(*f);
          samples.bwd_ms.push_back(*b);
          samples.fwd_bytes += forward_bytes((*shard)->lookup_shape());
          samples.bwd_bytes +=
              backward_bytes((*shard)->lookup_shape(), (*shard)->unique_rows(), o.optimizer);
        }
        result.rows.push_back(bench_row(o, rows, dim, pooling, samples));
        ++done;
      }
    }
  }
  if (progress) progress(done, total, "done");
  return result;
}

}  // namespace shardlab::kernels::cuda
