// The replay's inputs drawn on the device with replay_inputs.h, the same pure
// functions of (seed, key, position) the CPU reference calls, so both see the
// same bag lengths, ids, weights, gradients and initial tables without a copy.
// This file is compiled with --fmad=false: the double arithmetic of the draws
// (Zipf inversion, Poisson, scaling) rounds as it does on the host.

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>

#include "cuda_check.h"
#include "embedding_kernels.h"

namespace shardlab::kernels::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads;
  // Grid-stride loops below: cap the grid, every block loops.
  return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

__global__ void lengths_kernel(InputDraw draw, uint64_t shard, int64_t bags, double pooling_factor,
                               int64_t* lengths) {
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b <= bags;
       b += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    lengths[b] = b < bags ? draw_shard_bag_length(draw, shard, b, pooling_factor) : 0;
  }
}

__global__ void ids_kernel(InputDraw draw, uint64_t shard, int64_t n, int64_t rows_used,
                           int64_t* ids) {
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    ids[j] = draw_shard_id(draw, shard, j, rows_used);
  }
}

__global__ void weights_kernel(uint64_t seed, uint64_t shard, int64_t n, float* weights) {
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    weights[j] = draw_shard_weight(seed, shard, j);
  }
}

__global__ void gradients_kernel(uint64_t seed, uint64_t shard, int64_t out_rows, int64_t dim,
                                 float* grad) {
  const int64_t n = out_rows * dim;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    grad[i] = draw_shard_gradient(seed, shard, i / dim, i % dim, dim);
  }
}

template <typename T>
__global__ void table_kernel(uint64_t seed, uint64_t table_key, int64_t rows, int64_t dim,
                             T* table) {
  const int64_t n = rows * dim;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float value = draw_initial_weight(seed, table_key, i / dim, i % dim, dim);
    if constexpr (sizeof(T) == 2) {
      table[i] = __float2half_rn(value);
    } else {
      table[i] = value;
    }
  }
}

__global__ void positions_kernel(int32_t* positions, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    positions[i] = static_cast<int32_t>(i);
  }
}

}  // namespace

size_t offsets_scan_temp_bytes(int64_t items) {
  size_t bytes = 0;
  (void)cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const int64_t*>(nullptr),
                                      static_cast<int64_t*>(nullptr),
                                      static_cast<int64_t>(items > 0 ? items : 1));
  return bytes;
}

Status draw_offsets(const InputDraw& draw, uint64_t shard_key, int64_t bags, double pooling_factor,
                    int64_t* lengths, int64_t* offsets, void* scan_temp, size_t scan_temp_bytes,
                    cudaStream_t stream) {
  lengths_kernel<<<blocks_for(bags + 1), kThreads, 0, stream>>>(draw, shard_key, bags,
                                                                pooling_factor, lengths);
  CUDA_CHECK_LAUNCH();
  size_t bytes = scan_temp_bytes;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp, bytes, static_cast<const int64_t*>(lengths),
                                           offsets, static_cast<int64_t>(bags + 1), stream));
  return Status::ok();
}

Status draw_ids(const InputDraw& draw, uint64_t shard_key, int64_t num_ids, int64_t rows_used,
                int64_t* ids, cudaStream_t stream) {
  if (num_ids == 0) return Status::ok();
  ids_kernel<<<blocks_for(num_ids), kThreads, 0, stream>>>(draw, shard_key, num_ids, rows_used,
                                                           ids);
  CUDA_CHECK_LAUNCH();
  return Status::ok();
}

Status draw_weights(uint64_t seed, uint64_t shard_key, int64_t num_ids, float* weights,
                    cudaStream_t stream) {
  if (num_ids == 0) return Status::ok();
  weights_kernel<<<blocks_for(num_ids), kThreads, 0, stream>>>(seed, shard_key, num_ids, weights);
  CUDA_CHECK_LAUNCH();
  return Status::ok();
}

Status draw_gradients(uint64_t seed, uint64_t shard_key, int64_t out_rows, int64_t dim, float* grad,
                      cudaStream_t stream) {
  if (out_rows * dim == 0) return Status::ok();
  gradients_kernel<<<blocks_for(out_rows * dim), kThreads, 0, stream>>>(seed, shard_key, out_rows,
                                                                        dim, grad);
  CUDA_CHECK_LAUNCH();
  return Status::ok();
}

Status fill_initial_table(uint64_t seed, uint64_t table_key, const DeviceTable& table,
                          cudaStream_t stream) {
  const int64_t n = table.rows * table.dim;
  if (n == 0) return Status::ok();
  if (table.precision == Precision::kFp32) {
    table_kernel<float><<<blocks_for(n), kThreads, 0, stream>>>(
        seed, table_key, table.rows, table.dim, static_cast<float*>(table.data));
  } else {
    table_kernel<__half><<<blocks_for(n), kThreads, 0, stream>>>(
        seed, table_key, table.rows, table.dim, static_cast<__half*>(table.data));
  }
  CUDA_CHECK_LAUNCH();
  if (table.momentum != nullptr) {
    CUDA_CHECK(cudaMemsetAsync(table.momentum, 0, static_cast<size_t>(table.rows) * sizeof(float),
                               stream));
  }
  return Status::ok();
}

Status fill_positions(int32_t* positions, int64_t count, cudaStream_t stream) {
  if (count == 0) return Status::ok();
  positions_kernel<<<blocks_for(count), kThreads, 0, stream>>>(positions, count);
  CUDA_CHECK_LAUNCH();
  return Status::ok();
}

}  // namespace shardlab::kernels::cuda
