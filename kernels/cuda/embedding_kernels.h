// Host entry points of the embedding-bag kernels (forward_kernels.cu,
// backward_kernels.cu, input_kernels.cu). Plain C++: callers need not be
// compiled by nvcc. Every function enqueues work on `stream` and returns
// without waiting; a Status reports a launch error or a shape the kernels do
// not take. Numerics: embedding_bag.h (bit-compatible with the CPU reference).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "shardlab/kernels/replay_inputs.h"
#include "shardlab/kernels/workload.h"
#include "shardlab/planner/status.h"

namespace shardlab::kernels::cuda {

// A [rows x dim] table on the device: fp32 (float) or fp16 (IEEE binary16)
// elements, row-major, rows contiguous. momentum: row-wise Adagrad state, one
// float per row (null for SGD).
struct DeviceTable {
  void* data = nullptr;
  int64_t rows = 0;
  int64_t dim = 0;
  Precision precision = Precision::kFp32;
  float* momentum = nullptr;
};

// One lookup call on the device. Pooled: bags + 1 int64 offsets (exclusive
// prefix sum of the bag lengths) over num_ids int64 ids; sequence lookups
// (PoolingMode::kNone) read the ids only. weights: num_ids floats or null.
struct DeviceBatch {
  const int64_t* offsets = nullptr;
  const int64_t* ids = nullptr;
  const float* weights = nullptr;
  int64_t bags = 0;
  int64_t num_ids = 0;
};

// ---- Inputs (input_kernels.cu): the draws of replay_inputs.h, on the device.

// lengths[b] for b < bags, then offsets = exclusive prefix sum over bags + 1
// entries (offsets[bags] = total ids). `scan_temp` of `scan_temp_bytes` comes
// from offsets_scan_temp_bytes(bags + 1).
size_t offsets_scan_temp_bytes(int64_t items);
Status draw_offsets(const InputDraw& draw, uint64_t shard_key, int64_t bags, double pooling_factor,
                    int64_t* lengths, int64_t* offsets, void* scan_temp, size_t scan_temp_bytes,
                    cudaStream_t stream);
Status draw_ids(const InputDraw& draw, uint64_t shard_key, int64_t num_ids, int64_t rows_used,
                int64_t* ids, cudaStream_t stream);
Status draw_weights(uint64_t seed, uint64_t shard_key, int64_t num_ids, float* weights,
                    cudaStream_t stream);
// out_rows x dim output gradient.
Status draw_gradients(uint64_t seed, uint64_t shard_key, int64_t out_rows, int64_t dim, float* grad,
                      cudaStream_t stream);
// Every element from draw_initial_weight (fp16 tables: rounded, exactly).
Status fill_initial_table(uint64_t seed, uint64_t table_key, const DeviceTable& table,
                          cudaStream_t stream);
// positions[i] = i for i < count (the sort's values).
Status fill_positions(int32_t* positions, int64_t count, cudaStream_t stream);

// ---- Forward (forward_kernels.cu).

// out: output_rows x dim fp32 (bags, or num_ids for sequence lookups).
// Mean pooling divides by the bag length; empty bags give zeros.
Status embedding_forward(const DeviceTable& table, const DeviceBatch& batch, PoolingMode mode,
                         float* out, cudaStream_t stream);

// ---- Backward with the fused optimizer (backward_kernels.cu).

// Scratch of one backward call, sized for up to `capacity` ids.
struct BackwardScratch {
  int32_t* positions = nullptr;  // 0..capacity-1 (fill_positions), the sort's values
  int32_t* bag_of = nullptr;     // bag of each id position (pooled lookups)
  int64_t* sorted_ids = nullptr;
  int32_t* sorted_positions = nullptr;
  int64_t* run_rows = nullptr;    // distinct rows, ascending
  int32_t* run_starts = nullptr;  // index of each distinct row's first entry in sorted_ids
  int32_t* num_runs = nullptr;    // one int: distinct rows
  void* temp = nullptr;           // CUB temporary storage
  size_t temp_bytes = 0;
};
// CUB temporary storage for a backward over up to `capacity` ids.
size_t backward_temp_bytes(int64_t capacity);

struct DeviceOptimizer {
  OptimizerKind kind = OptimizerKind::kSgd;
  float learning_rate = 0.01f;
};

// grad_out: output_rows x dim fp32. Sorts (id, position) pairs by id (stable
// radix sort: positions ascend within an id), finds the distinct rows, then
// one thread group per distinct row sums its gradient in ascending position
// order and applies the optimizer: deterministic, and bit-identical to the
// CPU reference. *scratch.num_runs holds the distinct row count afterwards.
// REQUIRES: batch.num_ids <= the scratch capacity, < 2^31.
Status embedding_backward(const DeviceTable& table, const DeviceBatch& batch, PoolingMode mode,
                          const float* grad_out, const DeviceOptimizer& optimizer,
                          const BackwardScratch& scratch, cudaStream_t stream);

}  // namespace shardlab::kernels::cuda
