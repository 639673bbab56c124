// Embedding-bag forward: one group of lanes per output row (a bag, or an id
// for sequence lookups), rows read with 16-byte vector loads (lane_layout.cuh).
//
// Numerics (embedding_bag.h): each bag sums w_j · E[id_j][d] from 0.0f in id
// order with __fmul_rn / __fadd_rn (never contracted into an FMA), then mean
// pooling divides once with __fdiv_rn: bit-identical to the CPU reference.
//
// Memory parallelism: a lane issues the loads of kUnroll ids (kUnroll · NV
// vectors, up to 128 bytes) before it adds any of them, in order, so each warp
// keeps several rows in flight (as raw 16-byte vectors: fp16 widens to fp32
// only when added); the adds stay in id order.

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <string>

#include "cuda_check.h"
#include "embedding_kernels.h"
#include "lane_layout.cuh"

namespace shardlab::kernels::cuda {
namespace {

constexpr int kThreads = 256;

struct ForwardArgs {
  const void* table;
  int64_t dim;
  const int64_t* ids;
  const int64_t* offsets;  // null: sequence lookups, output row j is id j
  const float* weights;    // null: unweighted
  int64_t out_rows;
  bool mean;
  int group;  // lanes per row, a power of two <= 32
  float* out;
};

template <typename T, int V, int NV>
__global__ void __launch_bounds__(kThreads) forward_kernel(const ForwardArgs a) {
  constexpr int kUnroll = NV >= 8 ? 1 : 8 / NV;
  const int g = a.group;
  const int lane = static_cast<int>(threadIdx.x) & (g - 1);
  const int64_t row_out = (static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x) / g;
  if (row_out >= a.out_rows) return;  // no shuffles below: groups are independent
  int64_t begin = row_out;
  int64_t end = row_out + 1;
  if (a.offsets != nullptr) {
    begin = a.offsets[row_out];
    end = a.offsets[row_out + 1];
  }
  const T* table = static_cast<const T*>(a.table);
  const int64_t dim = a.dim;
  const int64_t pass = static_cast<int64_t>(g) * V * NV;
  float* out_row = a.out + row_out * dim;

  for (int64_t col0 = 0; col0 < dim; col0 += pass) {
    float acc[NV][V];
#pragma unroll
    for (int v = 0; v < NV; ++v) {
#pragma unroll
      for (int e = 0; e < V; ++e) acc[v][e] = 0.0f;
    }
    for (int64_t p = begin; p < end; p += kUnroll) {
      typename RowIo<T, V>::Raw rows[kUnroll][NV];
      float w[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        w[u] = 1.0f;
        if (p + u < end) {
          const int64_t id = __ldg(a.ids + p + u);
          if (a.weights != nullptr) w[u] = __ldg(a.weights + p + u);
          const T* src = table + id * dim;
#pragma unroll
          for (int v = 0; v < NV; ++v) {
            const int64_t col = col0 + (static_cast<int64_t>(v) * g + lane) * V;
            rows[u][v] = col < dim ? RowIo<T, V>::load_ro(src + col) : RowIo<T, V>::zero();
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (p + u < end) {
#pragma unroll
          for (int v = 0; v < NV; ++v) {
            float x[V];
            RowIo<T, V>::widen(rows[u][v], x);
#pragma unroll
            for (int e = 0; e < V; ++e) acc[v][e] = __fadd_rn(acc[v][e], __fmul_rn(w[u], x[e]));
          }
        }
      }
    }
    if (a.mean && end > begin) {
      const float len = static_cast<float>(end - begin);
#pragma unroll
      for (int v = 0; v < NV; ++v) {
#pragma unroll
        for (int e = 0; e < V; ++e) acc[v][e] = __fdiv_rn(acc[v][e], len);
      }
    }
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      const int64_t col = col0 + (static_cast<int64_t>(v) * g + lane) * V;
      if (col < dim) FloatIo<V>::store(out_row + col, acc[v]);
    }
  }
}

template <typename T, int V, int NV>
Status launch(const ForwardArgs& a, cudaStream_t stream) {
  const int64_t threads = a.out_rows * a.group;
  const int64_t blocks = (threads + kThreads - 1) / kThreads;
  if (blocks > 0x7FFFFFFF)
    return Status::internal("embedding forward: too many output rows (" +
                            std::to_string(a.out_rows) + ")");
  forward_kernel<T, V, NV><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a);
  CUDA_CHECK_LAUNCH();
  return Status::ok();
}

template <typename T, int V>
Status launch_per_lane(int per_lane, const ForwardArgs& a, cudaStream_t stream) {
  switch (per_lane) {
    case 1:
      return launch<T, V, 1>(a, stream);
    case 2:
      return launch<T, V, 2>(a, stream);
    case 4:
      return launch<T, V, 4>(a, stream);
    default:
      return launch<T, V, 8>(a, stream);
  }
}

}  // namespace

Status embedding_forward(const DeviceTable& table, const DeviceBatch& batch, PoolingMode mode,
                         float* out, cudaStream_t stream) {
  if (table.dim <= 0) return Status::internal("embedding forward: dim must be positive");
  const bool sequence = mode == PoolingMode::kNone;
  ForwardArgs a{};
  a.table = table.data;
  a.dim = table.dim;
  a.ids = batch.ids;
  a.offsets = sequence ? nullptr : batch.offsets;
  a.weights = sequence ? nullptr : batch.weights;  // sequence lookups ignore weights
  a.out_rows = sequence ? batch.num_ids : batch.bags;
  a.mean = mode == PoolingMode::kMean;
  a.out = out;
  if (a.out_rows == 0) return Status::ok();
  const LaneLayout layout = choose_layout(table.dim, table.precision);
  a.group = layout.group;
  if (table.precision == Precision::kFp32) {
    return layout.vec == 4 ? launch_per_lane<float, 4>(layout.per_lane, a, stream)
                           : launch_per_lane<float, 1>(layout.per_lane, a, stream);
  }
  return layout.vec == 8 ? launch_per_lane<__half, 8>(layout.per_lane, a, stream)
                         : launch_per_lane<__half, 1>(layout.per_lane, a, stream);
}

}  // namespace shardlab::kernels::cuda
