// How a table row maps onto the threads of a group, shared by the forward and
// backward kernels (plain C++, so host code and tests can use it too).
//
// A row of `dim` elements is read as vectors of V elements: 16 bytes (float4
// for fp32, 8 halves for fp16) when dim is a multiple of V, else single
// elements. A group of G lanes (a power of two, at most a warp) owns one row
// at a time; lane l holds vectors l, l+G, ..., l+(NV-1)·G of a column pass of
// G·V·NV elements, and rows wider than a pass take several passes. Small dims
// pack several groups into a warp (dim 32 fp32: 8 lanes per row, 4 rows per
// warp), so lanes are not left idle.
#pragma once

#include <cstdint>

#include "shardlab/kernels/workload.h"

namespace shardlab::kernels::cuda {

struct LaneLayout {
  int vec = 1;       // elements per vector load (V)
  int group = 1;     // lanes per row (G)
  int per_lane = 1;  // vectors per lane per column pass (NV): 1, 2, 4 or 8
};

inline LaneLayout choose_layout(int64_t dim, Precision precision) {
  LaneLayout l;
  const int wide = precision == Precision::kFp32 ? 4 : 8;
  l.vec = dim % wide == 0 ? wide : 1;
  const int64_t vectors = dim / l.vec;
  while (l.group < 32 && l.group < vectors) l.group *= 2;
  const int64_t per_lane = (vectors + l.group - 1) / l.group;
  while (l.per_lane < 8 && l.per_lane < per_lane) l.per_lane *= 2;
  return l;
}

}  // namespace shardlab::kernels::cuda
