// Counter-based random streams for replay inputs, shared by host and device
// code: every id, bag length, weight and output gradient is a pure function of
// (seed, stream, counter), so the CPU reference and the CUDA backend draw the
// same inputs without copying them, in any order and on any number of threads.
//
// The mixer is splitmix64's finalizer; a stream key is mixed once and the
// counter is added, so distinct (stream, counter) pairs give independent-
// looking 64-bit words.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define SHARDLAB_HD __host__ __device__
#else
#define SHARDLAB_HD
#endif

namespace shardlab::kernels {

SHARDLAB_HD inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The 64-bit word at `counter` of stream `stream` under `seed`.
SHARDLAB_HD inline uint64_t stream_word(uint64_t seed, uint64_t stream, uint64_t counter) {
  return mix64(mix64(seed ^ mix64(stream)) + counter);
}

// Uniform in [0, 1) with 53 random bits.
SHARDLAB_HD inline double stream_uniform(uint64_t seed, uint64_t stream, uint64_t counter) {
  return static_cast<double>(stream_word(seed, stream, counter) >> 11) * (1.0 / 9007199254740992.0);
}

// Streams of one shard's inputs: the stream key is (shard key, purpose).
// shard_key is unique per (rank, shard) of a workload and per iteration; see
// input_stream_key.
enum class InputPurpose : uint64_t {
  kLength = 1,
  kId = 2,
  kWeight = 3,
  kGradient = 4,
  kInitialWeights = 5
};

SHARDLAB_HD inline uint64_t input_stream_key(uint64_t shard_key, InputPurpose purpose) {
  return mix64(shard_key * 8 + static_cast<uint64_t>(purpose));
}

// Row drawn for the id at `counter`: uniform over [0, rows), or Zipf-like with
// exponent alpha (> 0, != 1) by inverting the continuous power-law CDF over
// [1, rows + 1), then scattering ranks over rows with a multiplicative hash so
// hot rows are not adjacent. REQUIRES: rows > 0.
SHARDLAB_HD inline int64_t draw_row(uint64_t seed, uint64_t stream, uint64_t counter, int64_t rows,
                                    bool zipf, double alpha) {
  const double u = stream_uniform(seed, stream, counter);
  if (!zipf) {
    const auto r = static_cast<int64_t>(u * static_cast<double>(rows));
    return r < rows ? r : rows - 1;
  }
  const double e = 1.0 - alpha;
  const double top = pow(static_cast<double>(rows) + 1.0, e);
  const double x = pow(u * (top - 1.0) + 1.0, 1.0 / e);  // in [1, rows + 1)
  int64_t rank = static_cast<int64_t>(x) - 1;
  if (rank < 0) rank = 0;
  if (rank >= rows) rank = rows - 1;
  return static_cast<int64_t>((static_cast<unsigned long long>(rank) * 0x9E3779B97F4A7C15ull) %
                              static_cast<unsigned long long>(rows));
}

// Ids in bag `bag` when bags hold `pooling` ids on average. Fixed: the bag
// lengths of a run of bags differ by at most one and sum to round(bags·pooling)
// (floor((b+1)·L) - floor(b·L)). Poisson: a Poisson(pooling) draw by
// inversion, with a normal approximation above mean 64.
SHARDLAB_HD inline int64_t draw_bag_length(uint64_t seed, uint64_t stream, int64_t bag,
                                           double pooling, bool poisson) {
  if (!poisson) {
    return static_cast<int64_t>(floor(static_cast<double>(bag + 1) * pooling)) -
           static_cast<int64_t>(floor(static_cast<double>(bag) * pooling));
  }
  const double u = stream_uniform(seed, stream, static_cast<uint64_t>(bag));
  if (pooling > 64.0) {
    // Box-Muller with a second word for the angle.
    const double v =
        stream_uniform(seed, stream ^ 0x5555555555555555ull, static_cast<uint64_t>(bag));
    const double z = sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
    const double n = floor(pooling + z * sqrt(pooling) + 0.5);
    return n < 0 ? 0 : static_cast<int64_t>(n);
  }
  double p = exp(-pooling);
  double cdf = p;
  int64_t k = 0;
  while (u > cdf && k < 1000) {
    ++k;
    p *= pooling / static_cast<double>(k);
    cdf += p;
  }
  return k;
}

// A value in [-scale, scale) for weights, per-sample weights and gradients,
// rounded to a multiple of 2^-12 · scale so sums of a few thousand stay exact
// in fp32 (exact-answer inputs, as nccl-tests' verifiable data).
SHARDLAB_HD inline float draw_value(uint64_t seed, uint64_t stream, uint64_t counter, float scale) {
  const int64_t k =
      static_cast<int64_t>(stream_word(seed, stream, counter) >> 52) - 2048;  // [-2048, 2048)
  return static_cast<float>(k) * (scale / 2048.0f);
}

}  // namespace shardlab::kernels
