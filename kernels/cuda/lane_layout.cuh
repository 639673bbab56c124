// The 16-byte vector loads and stores of the forward and backward kernels;
// the row-to-lane mapping they use is lane_layout.h's.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "lane_layout.h"

namespace shardlab::kernels::cuda {

// ---- Vector I/O. Loads widen to fp32 (exact for fp16); stores round to
// nearest even for fp16 tables. `Raw` is the loaded vector before widening:
// kernels keep loads in flight as Raw (4 registers for 8 halves) and widen
// when they add.

template <typename T, int V>
struct RowIo;

template <>
struct RowIo<float, 4> {
  using Raw = float4;
  __device__ static Raw load_ro(const float* p) {
    return __ldg(reinterpret_cast<const float4*>(p));
  }
  __device__ static Raw load(const float* p) { return *reinterpret_cast<const float4*>(p); }
  __device__ static Raw zero() { return make_float4(0.0f, 0.0f, 0.0f, 0.0f); }
  __device__ static void widen(const Raw x, float (&v)[4]) {
    v[0] = x.x;
    v[1] = x.y;
    v[2] = x.z;
    v[3] = x.w;
  }
  __device__ static void store(float* p, const float (&v)[4]) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  }
};

template <>
struct RowIo<float, 1> {
  using Raw = float;
  __device__ static Raw load_ro(const float* p) { return __ldg(p); }
  __device__ static Raw load(const float* p) { return *p; }
  __device__ static Raw zero() { return 0.0f; }
  __device__ static void widen(const Raw x, float (&v)[1]) { v[0] = x; }
  __device__ static void store(float* p, const float (&v)[1]) { *p = v[0]; }
};

template <>
struct RowIo<__half, 8> {
  using Raw = uint4;
  __device__ static Raw load_ro(const __half* p) {
    return __ldg(reinterpret_cast<const uint4*>(p));
  }
  __device__ static Raw load(const __half* p) { return *reinterpret_cast<const uint4*>(p); }
  __device__ static Raw zero() { return make_uint4(0u, 0u, 0u, 0u); }
  __device__ static void widen(const Raw raw, float (&v)[8]) {
    const __half2* h = reinterpret_cast<const __half2*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 f = __half22float2(h[i]);
      v[2 * i] = f.x;
      v[2 * i + 1] = f.y;
    }
  }
  __device__ static void store(__half* p, const float (&v)[8]) {
    uint4 raw;
    __half* h = reinterpret_cast<__half*>(&raw);
#pragma unroll
    for (int i = 0; i < 8; ++i) h[i] = __float2half_rn(v[i]);
    *reinterpret_cast<uint4*>(p) = raw;
  }
};

template <>
struct RowIo<__half, 1> {
  using Raw = __half;
  __device__ static Raw load_ro(const __half* p) { return __ldg(p); }
  __device__ static Raw load(const __half* p) { return *p; }
  __device__ static Raw zero() { return __float2half_rn(0.0f); }
  __device__ static void widen(const Raw x, float (&v)[1]) { v[0] = __half2float(x); }
  __device__ static void store(__half* p, const float (&v)[1]) { *p = __float2half_rn(v[0]); }
};

// fp32 vectors of V elements (outputs, output gradients, parked gradients in
// shared memory), 16-byte accesses. REQUIRES: p 16-byte aligned when V > 1.
template <int V>
struct FloatIo {
  static_assert(V == 1 || V % 4 == 0, "V is 1 or a multiple of 4");
  __device__ static void load_ro(const float* p, float (&v)[V]) {
    if constexpr (V == 1) {
      v[0] = __ldg(p);
    } else {
#pragma unroll
      for (int i = 0; i < V; i += 4) {
        const float4 x = __ldg(reinterpret_cast<const float4*>(p + i));
        v[i] = x.x;
        v[i + 1] = x.y;
        v[i + 2] = x.z;
        v[i + 3] = x.w;
      }
    }
  }
  // Plain load: also for shared memory, where __ldg does not apply.
  __device__ static void load(const float* p, float (&v)[V]) {
    if constexpr (V == 1) {
      v[0] = *p;
    } else {
#pragma unroll
      for (int i = 0; i < V; i += 4) {
        const float4 x = *reinterpret_cast<const float4*>(p + i);
        v[i] = x.x;
        v[i + 1] = x.y;
        v[i + 2] = x.z;
        v[i + 3] = x.w;
      }
    }
  }
  __device__ static void store(float* p, const float (&v)[V]) {
    if constexpr (V == 1) {
      *p = v[0];
    } else {
#pragma unroll
      for (int i = 0; i < V; i += 4)
        *reinterpret_cast<float4*>(p + i) = make_float4(v[i], v[i + 1], v[i + 2], v[i + 3]);
    }
  }
};

}  // namespace shardlab::kernels::cuda
