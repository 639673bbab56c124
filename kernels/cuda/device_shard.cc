// DeviceShard and the shard check runs (device_shard.h).

#include "device_shard.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace shardlab::kernels::cuda {
namespace {

bool within(float value, float reference, float relative) {
  if (value == reference) return true;  // also equal infinities
  if (std::isnan(value) || std::isnan(reference)) return false;
  return std::fabs(value - reference) <= relative * std::fabs(reference);
}

}  // namespace

ShardShape shape_of(const ShardWork& work) {
  return ShardShape{.rows = std::max<int64_t>(work.rows_used, 1),
                    .dim = std::max<int64_t>(work.dim, 1),
                    .precision = work.precision,
                    .pooling = work.pooling,
                    .weighted = work.weighted,
                    .bags = work.bags,
                    .pooling_factor = work.pooling_factor};
}

Result<std::unique_ptr<DeviceShard>> DeviceShard::create(const ShardShape& shape,
                                                         OptimizerKind optimizer) {
  std::unique_ptr<DeviceShard> s(new DeviceShard());
  s->shape_ = shape;
  s->optimizer_ = optimizer;
  const int64_t table_bytes = shape.rows * shape.dim * element_bytes(shape.precision);
  if (Status st = s->table_.reserve(table_bytes); !st) {
    return st.with_context("table of " + std::to_string(shape.rows) + " x " +
                           std::to_string(shape.dim) + " " +
                           std::string(to_string(shape.precision)));
  }
  if (optimizer == OptimizerKind::kRowwiseAdagrad)
    SHARDLAB_RETURN_IF_ERROR(s->momentum_.reserve(shape.rows));
  SHARDLAB_RETURN_IF_ERROR(s->lengths_.reserve(shape.bags + 1));
  SHARDLAB_RETURN_IF_ERROR(s->offsets_.reserve(shape.bags + 1));
  s->scan_temp_bytes_ = offsets_scan_temp_bytes(shape.bags + 1);
  SHARDLAB_RETURN_IF_ERROR(s->scan_temp_.reserve(static_cast<int64_t>(s->scan_temp_bytes_)));
  SHARDLAB_RETURN_IF_ERROR(s->num_runs_.reserve(1));
  s->host_ids_ = std::make_unique<PinnedBuffer<int64_t>>();
  SHARDLAB_RETURN_IF_ERROR(s->host_ids_->reserve(1));
  (*s->host_ids_)[0] = 0;
  s->host_runs_ = std::make_unique<PinnedBuffer<int32_t>>();
  SHARDLAB_RETURN_IF_ERROR(s->host_runs_->reserve(1));
  (*s->host_runs_)[0] = 0;
  return s;
}

DeviceTable DeviceShard::table_view() const {
  return DeviceTable{
      .data = table_.data(),
      .rows = shape_.rows,
      .dim = shape_.dim,
      .precision = shape_.precision,
      .momentum = optimizer_ == OptimizerKind::kRowwiseAdagrad ? momentum_.data() : nullptr};
}

LookupShape DeviceShard::lookup_shape() const {
  return LookupShape{.ids = num_ids(),
                     .bags = shape_.bags,
                     .dim = shape_.dim,
                     .precision = shape_.precision,
                     .pooling = shape_.pooling,
                     .weighted = shape_.weighted};
}

Status DeviceShard::fill_table(uint64_t seed, uint64_t table_key, cudaStream_t stream) {
  return fill_initial_table(seed, table_key, table_view(), stream);
}

Status DeviceShard::draw_offsets(const InputDraw& draw, uint64_t shard_key, cudaStream_t stream) {
  SHARDLAB_RETURN_IF_ERROR(cuda::draw_offsets(draw, shard_key, shape_.bags, shape_.pooling_factor,
                                              lengths_.data(), offsets_.data(), scan_temp_.data(),
                                              scan_temp_bytes_, stream));
  CUDA_CHECK(cudaMemcpyAsync(host_ids_->data(), offsets_.data() + shape_.bags, sizeof(int64_t),
                             cudaMemcpyDeviceToHost, stream));
  return Status::ok();
}

Status DeviceShard::reserve_ids(int64_t ids, cudaStream_t stream) {
  if (ids <= capacity_) return Status::ok();
  // Some headroom, so Poisson batches slightly above the last one do not reallocate.
  const int64_t capacity = std::max<int64_t>(ids + ids / 16, 1);
  SHARDLAB_RETURN_IF_ERROR(ids_.reserve(capacity));
  if (shape_.weighted) SHARDLAB_RETURN_IF_ERROR(weights_.reserve(capacity));
  SHARDLAB_RETURN_IF_ERROR(positions_.reserve(capacity));
  SHARDLAB_RETURN_IF_ERROR(bag_of_.reserve(capacity));
  SHARDLAB_RETURN_IF_ERROR(sorted_ids_.reserve(capacity));
  SHARDLAB_RETURN_IF_ERROR(sorted_positions_.reserve(capacity));
  SHARDLAB_RETURN_IF_ERROR(run_rows_.reserve(capacity));
  SHARDLAB_RETURN_IF_ERROR(run_starts_.reserve(capacity));
  sort_temp_bytes_ = backward_temp_bytes(capacity);
  SHARDLAB_RETURN_IF_ERROR(sort_temp_.reserve(static_cast<int64_t>(sort_temp_bytes_)));
  // On the shard's stream: ready before the backward that reads them.
  SHARDLAB_RETURN_IF_ERROR(fill_positions(positions_.data(), capacity, stream));
  capacity_ = capacity;
  return Status::ok();
}

Status DeviceShard::draw_rest(const InputDraw& draw, uint64_t shard_key, bool gradients,
                              cudaStream_t stream) {
  const int64_t n = num_ids();
  if (n >= (int64_t{1} << 31)) {
    return Status::internal("a batch of " + std::to_string(n) +
                            " ids: the CUDA backend takes fewer than 2^31");
  }
  SHARDLAB_RETURN_IF_ERROR(reserve_ids(n, stream));
  const int64_t out_rows = output_rows();
  SHARDLAB_RETURN_IF_ERROR(out_.reserve(std::max<int64_t>(out_rows * shape_.dim, 1)));
  SHARDLAB_RETURN_IF_ERROR(cuda::draw_ids(draw, shard_key, n, shape_.rows, ids_.data(), stream));
  if (shape_.weighted)
    SHARDLAB_RETURN_IF_ERROR(draw_weights(draw.seed, shard_key, n, weights_.data(), stream));
  if (gradients) {
    SHARDLAB_RETURN_IF_ERROR(grad_.reserve(std::max<int64_t>(out_rows * shape_.dim, 1)));
    SHARDLAB_RETURN_IF_ERROR(
        draw_gradients(draw.seed, shard_key, out_rows, shape_.dim, grad_.data(), stream));
  }
  return Status::ok();
}

Status DeviceShard::draw_inputs(const InputDraw& draw, uint64_t shard_key, bool gradients,
                                cudaStream_t stream) {
  SHARDLAB_RETURN_IF_ERROR(draw_offsets(draw, shard_key, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return draw_rest(draw, shard_key, gradients, stream);
}

Status DeviceShard::forward(cudaStream_t stream) {
  const DeviceBatch batch{.offsets = offsets_.data(),
                          .ids = ids_.data(),
                          .weights = shape_.weighted ? weights_.data() : nullptr,
                          .bags = shape_.bags,
                          .num_ids = num_ids()};
  return embedding_forward(table_view(), batch, shape_.pooling, out_.data(), stream);
}

Status DeviceShard::poison_output(cudaStream_t stream) {
  const int64_t elements = output_rows() * shape_.dim;
  if (elements > 0) {
    CUDA_CHECK(
        cudaMemsetAsync(out_.data(), 0xFF, static_cast<size_t>(elements) * sizeof(float), stream));
  }
  return Status::ok();
}

Status DeviceShard::backward(const DeviceOptimizer& optimizer, cudaStream_t stream) {
  if (optimizer.kind != optimizer_)
    return Status::internal("backward with another optimizer than the shard was made for");
  if (grad_.data() == nullptr)
    return Status::internal("backward before the output gradient was drawn");
  const DeviceBatch batch{.offsets = offsets_.data(),
                          .ids = ids_.data(),
                          .weights = shape_.weighted ? weights_.data() : nullptr,
                          .bags = shape_.bags,
                          .num_ids = num_ids()};
  const BackwardScratch scratch{.positions = positions_.data(),
                                .bag_of = bag_of_.data(),
                                .sorted_ids = sorted_ids_.data(),
                                .sorted_positions = sorted_positions_.data(),
                                .run_rows = run_rows_.data(),
                                .run_starts = run_starts_.data(),
                                .num_runs = num_runs_.data(),
                                .temp = sort_temp_.data(),
                                .temp_bytes = sort_temp_bytes_};
  SHARDLAB_RETURN_IF_ERROR(embedding_backward(table_view(), batch, shape_.pooling, grad_.data(),
                                              optimizer, scratch, stream));
  CUDA_CHECK(cudaMemcpyAsync(host_runs_->data(), num_runs_.data(), sizeof(int32_t),
                             cudaMemcpyDeviceToHost, stream));
  return Status::ok();
}

Status DeviceShard::copy_batch(BagBatch& batch, cudaStream_t stream) const {
  const int64_t n = num_ids();
  batch.offsets.resize(static_cast<size_t>(shape_.bags) + 1);
  batch.ids.resize(static_cast<size_t>(n));
  batch.weights.assign(shape_.weighted ? static_cast<size_t>(n) : 0, 0.0f);
  CUDA_CHECK(cudaMemcpyAsync(batch.offsets.data(), offsets_.data(),
                             batch.offsets.size() * sizeof(int64_t), cudaMemcpyDeviceToHost,
                             stream));
  if (n > 0) {
    CUDA_CHECK(cudaMemcpyAsync(batch.ids.data(), ids_.data(),
                               static_cast<size_t>(n) * sizeof(int64_t), cudaMemcpyDeviceToHost,
                               stream));
    if (shape_.weighted) {
      CUDA_CHECK(cudaMemcpyAsync(batch.weights.data(), weights_.data(),
                                 static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToHost,
                                 stream));
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return Status::ok();
}

Status DeviceShard::copy_forward(std::vector<float>& out, cudaStream_t stream) const {
  out.resize(static_cast<size_t>(output_rows() * shape_.dim));
  if (!out.empty()) {
    CUDA_CHECK(cudaMemcpyAsync(out.data(), out_.data(), out.size() * sizeof(float),
                               cudaMemcpyDeviceToHost, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return Status::ok();
}

Status DeviceShard::copy_table(EmbeddingTable& table, cudaStream_t stream) const {
  if (table.rows() != shape_.rows || table.dim() != shape_.dim ||
      table.precision() != shape_.precision) {
    return Status::internal("copy_table: the host table's shape differs from the shard's");
  }
  const size_t bytes = static_cast<size_t>(table.storage_bytes());
  void* dst = shape_.precision == Precision::kFp32 ? static_cast<void*>(table.fp32_data().data())
                                                   : static_cast<void*>(table.fp16_data().data());
  CUDA_CHECK(cudaMemcpyAsync(dst, table_.data(), bytes, cudaMemcpyDeviceToHost, stream));
  if (optimizer_ == OptimizerKind::kRowwiseAdagrad) {
    table.momentum().assign(static_cast<size_t>(shape_.rows), 0.0f);
    CUDA_CHECK(cudaMemcpyAsync(table.momentum().data(), momentum_.data(),
                               static_cast<size_t>(shape_.rows) * sizeof(float),
                               cudaMemcpyDeviceToHost, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return Status::ok();
}

Result<ShardRun> run_shard_on_device(const ShardShape& shape, const InputDraw& draw,
                                     const OptimizerConfig& optimizer, int rank, int shard_in_rank,
                                     int iterations) {
  auto shard = DeviceShard::create(shape, optimizer.kind);
  if (!shard) return shard.status();
  Stream stream;
  SHARDLAB_RETURN_IF_ERROR(stream.create());
  const auto r = static_cast<uint64_t>(rank);
  const auto s = static_cast<uint64_t>(shard_in_rank);
  SHARDLAB_RETURN_IF_ERROR((*shard)->fill_table(draw.seed, table_key(r, s), stream.get()));
  const DeviceOptimizer opt{.kind = optimizer.kind, .learning_rate = optimizer.learning_rate};
  for (int it = 0; it < iterations; ++it) {
    const uint64_t key = shard_key(r, s, static_cast<uint64_t>(it));
    SHARDLAB_RETURN_IF_ERROR((*shard)->draw_inputs(draw, key, true, stream.get()));
    SHARDLAB_RETURN_IF_ERROR((*shard)->forward(stream.get()));
    SHARDLAB_RETURN_IF_ERROR((*shard)->backward(opt, stream.get()));
  }
  ShardRun run;
  // The last forward's output is intact: the backward writes only the table.
  SHARDLAB_RETURN_IF_ERROR((*shard)->copy_batch(run.batch, stream.get()));
  SHARDLAB_RETURN_IF_ERROR((*shard)->copy_forward(run.forward, stream.get()));
  run.table = EmbeddingTable(shape.rows, shape.dim, shape.precision);
  SHARDLAB_RETURN_IF_ERROR((*shard)->copy_table(run.table, stream.get()));
  run.unique_rows = (*shard)->unique_rows();
  return run;
}

ShardRun run_shard_on_cpu(const ShardShape& shape, const InputDraw& draw,
                          const OptimizerConfig& optimizer, int rank, int shard_in_rank,
                          int iterations) {
  ShardRun run;
  const auto r = static_cast<uint64_t>(rank);
  const auto s = static_cast<uint64_t>(shard_in_rank);
  run.table = EmbeddingTable(shape.rows, shape.dim, shape.precision);
  run.table.fill_initial(draw.seed, table_key(r, s));
  if (optimizer.kind == OptimizerKind::kRowwiseAdagrad)
    run.table.momentum().assign(static_cast<size_t>(shape.rows), 0.0f);
  std::vector<float> grad;
  RowGradients scratch;
  for (int it = 0; it < iterations; ++it) {
    const uint64_t key = shard_key(r, s, static_cast<uint64_t>(it));
    draw_batch(draw, key, shape.bags, shape.pooling_factor, shape.rows, shape.weighted, run.batch);
    const int64_t out_rows = output_rows(run.batch, shape.pooling);
    run.forward.assign(static_cast<size_t>(out_rows * shape.dim), 0.0f);
    embedding_bag_forward(run.table, run.batch, shape.pooling, run.forward);
    draw_gradient(draw.seed, key, out_rows, shape.dim, grad);
    run.unique_rows =
        embedding_bag_backward(run.table, run.batch, shape.pooling, grad, optimizer, scratch);
  }
  return run;
}

ShardDifferences compare_runs(const ShardRun& device, const ShardRun& reference) {
  ShardDifferences d;
  auto count_unequal = [](const auto& a, const auto& b) {
    int64_t n =
        static_cast<int64_t>(a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
      n += std::memcmp(&a[i], &b[i], sizeof(a[i])) != 0;
    return n;
  };
  d.inputs = count_unequal(device.batch.offsets, reference.batch.offsets) +
             count_unequal(device.batch.ids, reference.batch.ids) +
             count_unequal(device.batch.weights, reference.batch.weights);
  const float tolerance = reference.table.precision() == Precision::kFp16 ? 1e-3f : 1e-6f;
  const size_t n = std::min(device.forward.size(), reference.forward.size());
  d.forward = static_cast<int64_t>(std::max(device.forward.size(), reference.forward.size()) - n);
  for (size_t i = 0; i < n; ++i)
    d.forward += !within(device.forward[i], reference.forward[i], tolerance);
  if (reference.table.precision() == Precision::kFp32) {
    d.table = count_unequal(device.table.fp32_data(), reference.table.fp32_data());
  } else {
    d.table = count_unequal(device.table.fp16_data(), reference.table.fp16_data());
  }
  d.state = count_unequal(device.table.momentum(), reference.table.momentum());
  return d;
}

}  // namespace shardlab::kernels::cuda
