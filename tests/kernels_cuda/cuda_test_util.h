// Helpers of the CUDA backend tests. Every test starts with
// SHARDLAB_REQUIRE_GPU(), so the binary builds and passes (skipping) on
// machines without a GPU, such as CI; on a GPU machine the tests compare the
// kernels with the CPU reference of embedding_bag.h.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_backend.h"

#define SHARDLAB_REQUIRE_GPU()                                                           \
  do {                                                                                   \
    if (::shardlab::kernels::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

#define SHARDLAB_REQUIRE_GPUS(n)                                                    \
  do {                                                                              \
    const int shardlab_gpus_ = ::shardlab::kernels::cuda_device_count();            \
    if (shardlab_gpus_ == 0) GTEST_SKIP() << "no CUDA device";                      \
    if (shardlab_gpus_ < (n))                                                       \
      GTEST_SKIP() << "needs " << (n) << " GPUs, " << shardlab_gpus_ << " present"; \
  } while (0)

namespace shardlab::kernels::cuda_test {

// Elements of `actual` outside a relative tolerance of `expected` (sizes must match).
inline int64_t count_outside(const std::vector<float>& actual, const std::vector<float>& expected,
                             float relative) {
  int64_t wrong = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const float a = actual[i];
    const float e = expected[i];
    if (a == e) continue;
    if (std::isnan(a) || std::isnan(e) || std::fabs(a - e) > relative * std::fabs(e)) ++wrong;
  }
  return wrong;
}

}  // namespace shardlab::kernels::cuda_test
