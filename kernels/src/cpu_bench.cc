// The CPU backend's bench_kernels (cpu_backend.h): each shape's forward and
// backward on one thread, beside a one-thread memcpy, so the percentages
// compare a kernel with what one core can stream.

#include <chrono>
#include <cstring>
#include <new>
#include <sstream>
#include <string>

#include "backend_common.h"
#include "cpu_backend.h"
#include "cpu_replay.h"
#include "shardlab/kernels/bytes.h"
#include "shardlab/kernels/embedding_bag.h"

namespace shardlab::kernels::detail {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Bytes per second of `bytes` moved in `ms`; 0 when the clock saw no time.
double per_second(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) : 0.0; }

// Large enough to leave every cache level on current server CPUs.
constexpr int64_t kCopyBytes = int64_t{256} << 20;

double copy_bandwidth(int warmup, int iterations) {
  std::vector<char> src(static_cast<size_t>(kCopyBytes), 1),
      dst(static_cast<size_t>(kCopyBytes), 0);
  std::vector<double> ms;
  for (int it = 0; it < warmup + iterations; ++it) {
    src[static_cast<size_t>(it) % src.size()] =
        static_cast<char>(it);  // the copy is not hoisted or elided
    const auto start = Clock::now();
    std::memcpy(dst.data(), src.data(), src.size());
    const double t = ms_since(start);
    if (it >= warmup) ms.push_back(t);
  }
  volatile char sink = dst[static_cast<size_t>(iterations) % dst.size()];
  (void)sink;
  return per_second(copy_bytes(static_cast<double>(kCopyBytes)), summarize(ms).median_ms);
}

}  // namespace

Result<KernelBenchResult> cpu_bench_kernels(const KernelBenchOptions& options,
                                            const ProgressFn& progress) {
  if (Status st = check_bench_options(options); !st) return st;
  // Memory first: a table too large for this machine is refused before any
  // measurement, as the replay refuses its tables. One table (with its row-wise
  // Adagrad state) lives at a time, beside the copy's two buffers.
  const double state = options.optimizer == OptimizerKind::kRowwiseAdagrad ? 4.0 : 0.0;
  for (int64_t rows : options.rows) {
    for (int64_t dim : options.dims) {
      const double need =
          static_cast<double>(rows) *
              (static_cast<double>(dim) * element_bytes(options.precision) + state) +
          2.0 * static_cast<double>(kCopyBytes);
      const std::string table = "kernel benchmark: a table of " + std::to_string(rows) +
                                " rows x " + std::to_string(dim) + " dims (" +
                                std::string(to_string(options.precision)) + ")";
      if (Status st = check_fits_in_memory(need, table, "benchmark fewer rows or smaller dims");
          !st) {
        return st;
      }
    }
  }
  KernelBenchResult result;
  result.backend = "cpu";
  result.device_name = cpu_device_name();
  const int total =
      static_cast<int>(options.rows.size() * options.dims.size() * options.pooling_factors.size()) +
      1;
  int done = 0;
  try {
    if (progress) progress(done, total, "copy bandwidth");
    result.copy_bytes_per_s = copy_bandwidth(options.warmup, options.iterations);
    ++done;
    const InputDraw draw{.seed = options.seed};
    const OptimizerConfig opt{.kind = options.optimizer, .learning_rate = 0.01f};
    for (int64_t rows : options.rows) {
      for (int64_t dim : options.dims) {
        // One table per (rows, dim), reused over the pooling factors: filling
        // 10^6 x 512 values costs more than the measurements. Its values drift
        // with the updates, which changes no timing.
        EmbeddingTable table(rows, dim, options.precision);
        table.fill_initial(options.seed, table_key(0, 0));
        for (double pooling : options.pooling_factors) {
          if (progress) {
            std::ostringstream what;
            what << "rows " << rows << " dim " << dim << " pooling " << pooling;
            progress(done, total, what.str());
          }
          BagBatch batch;
          std::vector<float> out, grad;
          RowGradients scratch;
          BenchSamples samples;
          for (int it = 0; it < options.warmup + options.iterations; ++it) {
            // Fresh inputs per call, drawn untimed (as the CUDA backend does):
            // the rows read are not the previous call's.
            const uint64_t key = shard_key(0, 0, static_cast<uint64_t>(it));
            draw_batch(draw, key, options.bags, pooling, rows, false, batch);
            out.resize(static_cast<size_t>(batch.bags() * dim));
            draw_gradient(options.seed, key, batch.bags(), dim, grad);
            auto start = Clock::now();
            embedding_bag_forward(table, batch, PoolingMode::kSum, out);
            const double f = ms_since(start);
            start = Clock::now();
            const int64_t unique =
                embedding_bag_backward(table, batch, PoolingMode::kSum, grad, opt, scratch);
            const double b = ms_since(start);
            if (it < options.warmup) continue;
            samples.fwd_ms.push_back(f);
            samples.bwd_ms.push_back(b);
            const LookupShape s{.ids = batch.num_ids(),
                                .bags = batch.bags(),
                                .dim = dim,
                                .precision = options.precision};
            samples.fwd_bytes += forward_bytes(s);
            samples.bwd_bytes += backward_bytes(s, unique, options.optimizer);
          }
          result.rows.push_back(bench_row(options, rows, dim, pooling, samples));
          ++done;
        }
      }
    }
  } catch (const std::bad_alloc&) {
    return Status::internal(
        "kernel benchmark: out of memory; benchmark fewer or smaller shapes (rows, dims)");
  }
  if (progress) progress(done, total, "done");
  return result;
}

}  // namespace shardlab::kernels::detail
