// One replayed shard on one GPU: its table (and row-wise Adagrad state), the
// current iteration's inputs, its forward output, and the backward's scratch.
// All work is enqueued on the stream the caller passes; buffers grow between
// iterations when a Poisson draw asks for more ids than any before.
//
// An iteration's inputs come in two steps because the id count of Poisson
// bags is known only after the lengths are drawn:
//   draw_offsets(stream); cudaStreamSynchronize(stream); draw_rest(stream);
//   forward(stream); backward(stream);
//
// Thread safety: none; the object belongs to the thread driving its GPU, and
// that GPU must be current for every call.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "device_buffer.h"
#include "embedding_kernels.h"
#include "shardlab/kernels/bytes.h"
#include "shardlab/kernels/embedding_bag.h"
#include "shardlab/kernels/replay_inputs.h"
#include "shardlab/kernels/workload.h"

namespace shardlab::kernels::cuda {

// What a shard's lookups look like (ShardWork's kernel-relevant fields).
struct ShardShape {
  int64_t rows = 1;  // rows allocated (ShardWork::rows_used)
  int64_t dim = 1;
  Precision precision = Precision::kFp32;
  PoolingMode pooling = PoolingMode::kSum;
  bool weighted = false;
  int64_t bags = 0;
  double pooling_factor = 0.0;
};
ShardShape shape_of(const ShardWork& work);

class DeviceShard {
 public:
  // Allocates the table (and Adagrad state for kRowwiseAdagrad) on the current device.
  static Result<std::unique_ptr<DeviceShard>> create(const ShardShape& shape,
                                                     OptimizerKind optimizer);

  // Every element from draw_initial_weight(seed, table_key, ...); state zeroed.
  Status fill_table(uint64_t seed, uint64_t table_key, cudaStream_t stream);
  // Bag lengths and offsets of the iteration named by shard_key; the id count
  // is copied to host memory (read it after synchronising the stream).
  Status draw_offsets(const InputDraw& draw, uint64_t shard_key, cudaStream_t stream);
  // Ids, weights and, when `gradients`, the output gradient.
  // REQUIRES: the stream was synchronised after draw_offsets.
  Status draw_rest(const InputDraw& draw, uint64_t shard_key, bool gradients, cudaStream_t stream);
  // Both steps with the synchronisation between them.
  Status draw_inputs(const InputDraw& draw, uint64_t shard_key, bool gradients,
                     cudaStream_t stream);

  Status forward(cudaStream_t stream);
  // Fills the forward output with NaNs (tests: an element the forward does not write stays NaN).
  Status poison_output(cudaStream_t stream);
  // Backward with the fused optimizer; the distinct row count is copied to
  // host memory (unique_rows() after synchronising the stream).
  Status backward(const DeviceOptimizer& optimizer, cudaStream_t stream);

  const ShardShape& shape() const { return shape_; }
  // REQUIRES: the stream synchronised after draw_offsets / backward.
  int64_t num_ids() const { return (*host_ids_)[0]; }
  int64_t unique_rows() const { return (*host_runs_)[0]; }
  int64_t output_rows() const {
    return shape_.pooling == PoolingMode::kNone ? num_ids() : shape_.bags;
  }
  LookupShape lookup_shape() const;

  // Copies to the host for checks; they synchronise the stream.
  Status copy_batch(BagBatch& batch, cudaStream_t stream) const;
  Status copy_forward(std::vector<float>& out, cudaStream_t stream) const;
  // REQUIRES: table has this shard's rows, dim and precision.
  Status copy_table(EmbeddingTable& table, cudaStream_t stream) const;

 private:
  DeviceShard() = default;
  DeviceTable table_view() const;
  Status reserve_ids(int64_t ids, cudaStream_t stream);

  ShardShape shape_;
  OptimizerKind optimizer_ = OptimizerKind::kSgd;
  DeviceBuffer<char> table_;
  DeviceBuffer<float> momentum_;
  DeviceBuffer<int64_t> lengths_;  // bags + 1
  DeviceBuffer<int64_t> offsets_;  // bags + 1
  DeviceBuffer<char> scan_temp_;
  size_t scan_temp_bytes_ = 0;
  // Sized by the id count (capacity_ ids).
  int64_t capacity_ = -1;
  DeviceBuffer<int64_t> ids_;
  DeviceBuffer<float> weights_;
  DeviceBuffer<int32_t> positions_;
  DeviceBuffer<int32_t> bag_of_;
  DeviceBuffer<int64_t> sorted_ids_;
  DeviceBuffer<int32_t> sorted_positions_;
  DeviceBuffer<int64_t> run_rows_;
  DeviceBuffer<int32_t> run_starts_;
  DeviceBuffer<int32_t> num_runs_;
  DeviceBuffer<char> sort_temp_;
  size_t sort_temp_bytes_ = 0;
  // Sized by the output rows.
  DeviceBuffer<float> out_;
  DeviceBuffer<float> grad_;
  // Ids of the current batch, distinct rows of the last backward.
  std::unique_ptr<PinnedBuffer<int64_t>> host_ids_;
  std::unique_ptr<PinnedBuffer<int32_t>> host_runs_;
};

// One shard run for a check: `iterations` iterations of forward then
// backward + optimizer from the initial table, iteration i drawing with
// shard_key(rank, shard_in_rank, i) and the table with table_key(rank,
// shard_in_rank), as the replay does. The result holds the last iteration's
// inputs and forward output and the table (with its Adagrad state) at the end.
struct ShardRun {
  BagBatch batch;
  std::vector<float> forward;
  EmbeddingTable table;
  int64_t unique_rows = 0;
};
// On the current GPU.
Result<ShardRun> run_shard_on_device(const ShardShape& shape, const InputDraw& draw,
                                     const OptimizerConfig& optimizer, int rank, int shard_in_rank,
                                     int iterations);
// The same on the CPU reference (embedding_bag.h).
ShardRun run_shard_on_cpu(const ShardShape& shape, const InputDraw& draw,
                          const OptimizerConfig& optimizer, int rank, int shard_in_rank,
                          int iterations);

// Elements of `device` that differ from `reference`: inputs (offsets, ids,
// weights: any difference), forward outputs beyond the tolerance (relative
// 1e-6 for fp32 tables, 1e-3 for fp16), table elements and Adagrad state that
// are not bit-identical.
struct ShardDifferences {
  int64_t inputs = 0;
  int64_t forward = 0;
  int64_t table = 0;
  int64_t state = 0;
  int64_t total() const { return inputs + forward + table + state; }
};
ShardDifferences compare_runs(const ShardRun& device, const ShardRun& reference);

}  // namespace shardlab::kernels::cuda
