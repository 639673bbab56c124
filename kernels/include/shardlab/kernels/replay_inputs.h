// Where a replayed shard's inputs come from: the keys that name a shard's
// streams and the draws of its bag lengths, ids, per-sample weights, output
// gradients and initial table weights. Every value is a pure function of
// (seed, key, position), so the CPU reference and the CUDA backend compute the
// same inputs independently, on any number of threads, in any order.
//
// Keys (all uint64 arithmetic, wrapping):
//   shard_key = mix64(mix64(rank) * 1000003 + mix64(shard) + iteration * 0x100000001B3)
//   table_key = mix64(rank) ^ mix64(1000 + shard)            (no iteration: the table persists)
// where `shard` is the shard's index within its rank (RankWorkload::shards),
// `iteration` counts from 0 over warm-up and timed iterations together.
#pragma once

#include <cstdint>

#include "shardlab/kernels/id_stream.h"

namespace shardlab::kernels {

SHARDLAB_HD inline uint64_t shard_key(uint64_t rank, uint64_t shard_in_rank, uint64_t iteration) {
  return mix64(mix64(rank) * 1000003ull + mix64(shard_in_rank) + iteration * 0x100000001B3ull);
}

SHARDLAB_HD inline uint64_t table_key(uint64_t rank, uint64_t shard_in_rank) {
  return mix64(rank) ^ mix64(1000ull + shard_in_rank);
}

// How ids and bag lengths are drawn (ReplayOptions' fields, in a device-friendly form).
struct InputDraw {
  uint64_t seed = 1;
  bool zipf = false;     // ids: uniform over the rows, or Zipf-like with exponent alpha
  double alpha = 1.05;   // REQUIRES (zipf): alpha > 0 and alpha != 1
  bool poisson = false;  // bag lengths: fixed (differ by at most one) or Poisson
};

// Length of bag `bag` (offsets are the exclusive prefix sum of these, int64).
SHARDLAB_HD inline int64_t draw_shard_bag_length(const InputDraw& draw, uint64_t shard, int64_t bag,
                                                 double pooling_factor) {
  return draw_bag_length(draw.seed, input_stream_key(shard, InputPurpose::kLength), bag,
                         pooling_factor, draw.poisson);
}

// Row of the id at global position j of the shard's id array. REQUIRES: rows_used > 0.
SHARDLAB_HD inline int64_t draw_shard_id(const InputDraw& draw, uint64_t shard, int64_t j,
                                         int64_t rows_used) {
  return draw_row(draw.seed, input_stream_key(shard, InputPurpose::kId), static_cast<uint64_t>(j),
                  rows_used, draw.zipf, draw.alpha);
}

// Per-sample weight of the id at position j (weighted shards only), in [-1, 1).
SHARDLAB_HD inline float draw_shard_weight(uint64_t seed, uint64_t shard, int64_t j) {
  return draw_value(seed, input_stream_key(shard, InputPurpose::kWeight), static_cast<uint64_t>(j),
                    1.0f);
}

// Output gradient element (b, d) of a [out_rows x dim] gradient, in [-1/64, 1/64).
// Pooled shards: b is the bag; sequence shards: b is the id position j.
SHARDLAB_HD inline float draw_shard_gradient(uint64_t seed, uint64_t shard, int64_t b, int64_t d,
                                             int64_t dim) {
  return draw_value(seed, input_stream_key(shard, InputPurpose::kGradient),
                    static_cast<uint64_t>(b * dim + d), 1.0f / 64);
}

// Initial weight of table row r, column d, in [-1/16, 1/16): multiples of 2^-15
// with at most 12 significant bits, so fp16 tables hold it exactly.
SHARDLAB_HD inline float draw_initial_weight(uint64_t seed, uint64_t table, int64_t r, int64_t d,
                                             int64_t dim) {
  return draw_value(seed, input_stream_key(table, InputPurpose::kInitialWeights),
                    static_cast<uint64_t>(r * dim + d), 1.0f / 16);
}

}  // namespace shardlab::kernels
