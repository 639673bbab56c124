// Embedding-bag backward with the optimizer update fused in, sort-based and
// deterministic:
//   1. bag_of[j]: the bag of each id position (pooled lookups);
//   2. a stable radix sort of (id, position) pairs by id (CUB): within one id
//      the positions stay ascending;
//   3. the distinct ids and where each one's run starts (CUB UniqueByKey);
//   4. one group of lanes per distinct row (lane_layout.cuh): sums the row's
//      gradient over its positions in ascending order, then updates the row.
// Each row is owned by one group and summed in a fixed order, so the result
// does not depend on scheduling and equals the CPU reference bit for bit
// (embedding_bag.h: __fmul_rn / __fadd_rn / __fdiv_rn / __fsqrt_rn, no FMA).
//
// Row-wise Adagrad needs sum_d grad[d]^2 in column order before any column is
// updated: the group parks its gradient row in shared memory, lane 0 sums the
// squares left to right and broadcasts the step's denominator.

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <string>

#include "cuda_check.h"
#include "embedding_kernels.h"
#include "lane_layout.cuh"
#include "shardlab/kernels/embedding_bag.h"

namespace shardlab::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr size_t kSharedLimit = 48 * 1024;  // default dynamic shared memory per block

__global__ void bag_of_kernel(const int64_t* offsets, int64_t bags, int32_t* bag_of) {
  const int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= bags) return;
  const int64_t end = offsets[b + 1];
  for (int64_t j = offsets[b]; j < end; ++j) bag_of[j] = static_cast<int32_t>(b);
}

struct UpdateArgs {
  void* table;
  float* momentum;  // adagrad only
  int64_t dim;
  int64_t num_ids;
  const int64_t* run_rows;
  const int32_t* run_starts;
  const int32_t* num_runs;
  const int32_t* sorted_positions;
  const int32_t* bag_of;   // null: sequence lookups (the output row of position j is j)
  const int64_t* offsets;  // mean pooling: bag lengths
  const float* weights;    // null: unweighted (or sequence)
  const float* grad_out;
  bool mean;
  bool adagrad;
  float lr;
  int group;
};

template <typename T, int V, int NV>
__global__ void __launch_bounds__(kThreads) update_kernel(const UpdateArgs a) {
  extern __shared__ __align__(16) float parked[];  // adagrad: one dim-long gradient row per group
  // Occurrences whose gradient loads are in flight together: fewer than the
  // forward's, as each needs a position, a bag and a gradient vector.
  constexpr int kUnroll = NV >= 4 ? 1 : 4 / NV;
  const int g = a.group;
  const int lane = static_cast<int>(threadIdx.x) & (g - 1);
  const int group_in_block = static_cast<int>(threadIdx.x) / g;
  const int groups_per_block = static_cast<int>(blockDim.x) / g;
  const unsigned warp_lane = threadIdx.x & 31u;
  const unsigned mask =
      g == 32 ? 0xFFFFFFFFu : (((1u << g) - 1u) << (warp_lane & ~static_cast<unsigned>(g - 1)));
  const int64_t dim = a.dim;
  const int64_t pass = static_cast<int64_t>(g) * V * NV;
  T* table = static_cast<T*>(a.table);
  float* park = parked + static_cast<int64_t>(group_in_block) * dim;
  const int64_t runs = *a.num_runs;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * groups_per_block;

  for (int64_t run = static_cast<int64_t>(blockIdx.x) * groups_per_block + group_in_block;
       run < runs; run += stride) {
    const int64_t row = a.run_rows[run];
    const int64_t begin = a.run_starts[run];
    const int64_t end = run + 1 < runs ? a.run_starts[run + 1] : a.num_ids;
    T* dst = table + row * dim;

    for (int64_t col0 = 0; col0 < dim; col0 += pass) {
      float acc[NV][V];
      // SGD: the row's current values load while the gradient is summed.
      typename RowIo<T, V>::Raw current[NV];
#pragma unroll
      for (int v = 0; v < NV; ++v) {
#pragma unroll
        for (int e = 0; e < V; ++e) acc[v][e] = 0.0f;
        const int64_t col = col0 + (static_cast<int64_t>(v) * g + lane) * V;
        current[v] = !a.adagrad && col < dim ? RowIo<T, V>::load(dst + col) : RowIo<T, V>::zero();
      }
      for (int64_t p = begin; p < end; p += kUnroll) {
        float grads[kUnroll][NV][V];
        float w[kUnroll];
        float len[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          w[u] = 1.0f;
          len[u] = 1.0f;
          if (p + u < end) {
            const int64_t j = a.sorted_positions[p + u];
            int64_t out_row = j;
            if (a.bag_of != nullptr) {
              out_row = a.bag_of[j];
              if (a.weights != nullptr) w[u] = a.weights[j];
              if (a.mean) len[u] = static_cast<float>(a.offsets[out_row + 1] - a.offsets[out_row]);
            }
            const float* src = a.grad_out + out_row * dim;
#pragma unroll
            for (int v = 0; v < NV; ++v) {
              const int64_t col = col0 + (static_cast<int64_t>(v) * g + lane) * V;
              if (col < dim) {
                FloatIo<V>::load_ro(src + col, grads[u][v]);
              } else {
#pragma unroll
                for (int e = 0; e < V; ++e) grads[u][v][e] = 0.0f;
              }
            }
          }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          if (p + u < end) {
#pragma unroll
            for (int v = 0; v < NV; ++v) {
#pragma unroll
              for (int e = 0; e < V; ++e) {
                float x = grads[u][v][e];
                if (a.mean) x = __fdiv_rn(x, len[u]);
                acc[v][e] = __fadd_rn(acc[v][e], __fmul_rn(w[u], x));
              }
            }
          }
        }
      }
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        const int64_t col = col0 + (static_cast<int64_t>(v) * g + lane) * V;
        if (col >= dim) continue;
        if (a.adagrad) {
          FloatIo<V>::store(park + col, acc[v]);
        } else {
          float row_values[V];
          RowIo<T, V>::widen(current[v], row_values);
#pragma unroll
          for (int e = 0; e < V; ++e)
            row_values[e] = __fsub_rn(row_values[e], __fmul_rn(a.lr, acc[v][e]));
          RowIo<T, V>::store(dst + col, row_values);
        }
      }
    }
    if (!a.adagrad) continue;

    // Row-wise Adagrad: m += (sum_d g_d^2) / dim, summed left to right.
    __syncwarp(mask);
    float denom = 0.0f;
    if (lane == 0) {
      float sum = 0.0f;
      for (int64_t d = 0; d < dim; ++d) sum = __fadd_rn(sum, __fmul_rn(park[d], park[d]));
      const float m = __fadd_rn(a.momentum[row], __fdiv_rn(sum, static_cast<float>(dim)));
      a.momentum[row] = m;
      denom = __fadd_rn(__fsqrt_rn(m), kAdagradEpsilon);
    }
    denom = __shfl_sync(mask, denom, 0, g);
    // Each lane updates the columns it parked itself: no further barrier.
    for (int64_t col0 = 0; col0 < dim; col0 += pass) {
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        const int64_t col = col0 + (static_cast<int64_t>(v) * g + lane) * V;
        if (col >= dim) continue;
        float row_values[V];
        float grad[V];
        RowIo<T, V>::widen(RowIo<T, V>::load(dst + col), row_values);
        FloatIo<V>::load(park + col, grad);
#pragma unroll
        for (int e = 0; e < V; ++e) {
          row_values[e] = __fsub_rn(row_values[e], __fdiv_rn(__fmul_rn(a.lr, grad[e]), denom));
        }
        RowIo<T, V>::store(dst + col, row_values);
      }
    }
    // Lane 0 read every column of `park`; the next run overwrites it.
    __syncwarp(mask);
  }
}

int sm_count() {
  static const int count = [] {
    int device = 0;
    int sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
      return 132;
    }
    return sms;
  }();
  return count;
}

template <typename T, int V, int NV>
Status launch_update(const UpdateArgs& a, int64_t max_runs, cudaStream_t stream) {
  int groups_per_block = kThreads / a.group;
  size_t shared = 0;
  if (a.adagrad) {
    const size_t row_bytes = static_cast<size_t>(a.dim) * sizeof(float);
    if (row_bytes > kSharedLimit) {
      return Status::internal("row-wise Adagrad backward: dim " + std::to_string(a.dim) +
                              " exceeds " + std::to_string(kSharedLimit / sizeof(float)) +
                              " columns");
    }
    groups_per_block = std::max<int>(
        1, std::min<int>(groups_per_block, static_cast<int>(kSharedLimit / row_bytes)));
    shared = row_bytes * static_cast<size_t>(groups_per_block);
  }
  const int threads = groups_per_block * a.group;
  // A grid-stride loop over the distinct rows (their count stays on the
  // device): enough blocks to fill every SM, no more than there can be rows.
  const int64_t wanted = (max_runs + groups_per_block - 1) / groups_per_block;
  const int64_t resident = static_cast<int64_t>(sm_count()) * (2048 / threads);
  const int blocks = static_cast<int>(std::max<int64_t>(1, std::min(wanted, resident)));
  update_kernel<T, V, NV><<<blocks, threads, shared, stream>>>(a);
  CUDA_CHECK_LAUNCH();
  return Status::ok();
}

template <typename T, int V>
Status launch_per_lane(int per_lane, const UpdateArgs& a, int64_t max_runs, cudaStream_t stream) {
  switch (per_lane) {
    case 1:
      return launch_update<T, V, 1>(a, max_runs, stream);
    case 2:
      return launch_update<T, V, 2>(a, max_runs, stream);
    case 4:
      return launch_update<T, V, 4>(a, max_runs, stream);
    default:
      return launch_update<T, V, 8>(a, max_runs, stream);
  }
}

using Key = unsigned long long;  // ids are non-negative: sorting them as unsigned keeps their order

}  // namespace

size_t backward_temp_bytes(int64_t capacity) {
  size_t sort_bytes = 0;
  size_t unique_bytes = 0;
  const int n = static_cast<int>(std::max<int64_t>(capacity, 1));
  (void)cub::DeviceRadixSort::SortPairs(
      nullptr, sort_bytes, static_cast<const Key*>(nullptr), static_cast<Key*>(nullptr),
      static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), n);
  (void)cub::DeviceSelect::UniqueByKey(nullptr, unique_bytes, static_cast<const Key*>(nullptr),
                                       static_cast<const int32_t*>(nullptr),
                                       static_cast<Key*>(nullptr), static_cast<int32_t*>(nullptr),
                                       static_cast<int32_t*>(nullptr), n);
  return std::max(sort_bytes, unique_bytes);
}

Status embedding_backward(const DeviceTable& table, const DeviceBatch& batch, PoolingMode mode,
                          const float* grad_out, const DeviceOptimizer& optimizer,
                          const BackwardScratch& scratch, cudaStream_t stream) {
  if (batch.num_ids >= (int64_t{1} << 31)) {
    return Status::internal("embedding backward: " + std::to_string(batch.num_ids) +
                            " ids exceed 2^31 - 1");
  }
  const bool adagrad = optimizer.kind == OptimizerKind::kRowwiseAdagrad;
  if (adagrad && table.momentum == nullptr)
    return Status::internal("row-wise Adagrad backward without state");
  const int n = static_cast<int>(batch.num_ids);
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(scratch.num_runs, 0, sizeof(int32_t), stream));
    return Status::ok();
  }
  const bool sequence = mode == PoolingMode::kNone;
  if (!sequence && batch.bags > 0) {
    bag_of_kernel<<<static_cast<unsigned>((batch.bags + kThreads - 1) / kThreads), kThreads, 0,
                    stream>>>(batch.offsets, batch.bags, scratch.bag_of);
    CUDA_CHECK_LAUNCH();
  }
  // Only the bits a row index can use take part in the sort.
  int end_bit = 1;
  while (end_bit < 63 && (int64_t{1} << end_bit) < table.rows) ++end_bit;
  size_t temp_bytes = scratch.temp_bytes;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      scratch.temp, temp_bytes, reinterpret_cast<const Key*>(batch.ids),
      reinterpret_cast<Key*>(scratch.sorted_ids), scratch.positions, scratch.sorted_positions, n, 0,
      end_bit, stream));
  temp_bytes = scratch.temp_bytes;
  CUDA_CHECK(cub::DeviceSelect::UniqueByKey(
      scratch.temp, temp_bytes, reinterpret_cast<const Key*>(scratch.sorted_ids), scratch.positions,
      reinterpret_cast<Key*>(scratch.run_rows), scratch.run_starts, scratch.num_runs, n, stream));
  UpdateArgs a{};
  a.table = table.data;
  a.momentum = table.momentum;
  a.dim = table.dim;
  a.num_ids = batch.num_ids;
  a.run_rows = scratch.run_rows;
  a.run_starts = scratch.run_starts;
  a.num_runs = scratch.num_runs;
  a.sorted_positions = scratch.sorted_positions;
  a.bag_of = sequence ? nullptr : scratch.bag_of;
  a.offsets = batch.offsets;
  a.weights = sequence ? nullptr : batch.weights;
  a.grad_out = grad_out;
  a.mean = mode == PoolingMode::kMean;
  a.adagrad = adagrad;
  a.lr = optimizer.learning_rate;
  const LaneLayout layout = choose_layout(table.dim, table.precision);
  a.group = layout.group;
  const int64_t max_runs = std::min<int64_t>(batch.num_ids, table.rows);
  if (table.precision == Precision::kFp32) {
    return layout.vec == 4 ? launch_per_lane<float, 4>(layout.per_lane, a, max_runs, stream)
                           : launch_per_lane<float, 1>(layout.per_lane, a, max_runs, stream);
  }
  return layout.vec == 8 ? launch_per_lane<__half, 8>(layout.per_lane, a, max_runs, stream)
                         : launch_per_lane<__half, 1>(layout.per_lane, a, max_runs, stream);
}

}  // namespace shardlab::kernels::cuda
