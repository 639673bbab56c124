// Bytes a lookup kernel moves, by ShardLab's count: the bytes the kernel must
// read and write at least, once each, whatever the backend. Achieved bandwidth
// (bytes/s) divides these by the measured time. Both backends use these
// functions, so their bandwidths compare.
//
// Forward:  ids·8 (int64 ids) + (bags+1)·8 (int64 offsets) + [weighted: ids·4]
//           + ids·dim·elem (rows read) + out_rows·dim·4 (fp32 output written)
// Backward with the fused optimizer:
//           out_rows·dim·4 (output gradient read) + ids·8 (ids read)
//           + [weighted: ids·4] + unique_rows·dim·elem·2 (rows read and written)
//           + [row-wise Adagrad: unique_rows·4·2 (state read and written)]
// out_rows is bags for pooled lookups and ids for sequence lookups. The sort of
// (id, position) pairs in the backward is not counted. When the unique row
// count is not known, min(ids, rows) bounds it from above (so the bandwidth
// is an upper bound too).
//
// Copies (the device-to-device bandwidth beside kernel figures) count read
// plus write: 2·bytes_copied, as nccl-tests and CUDA's bandwidthTest do, so
// kernel and copy bandwidths use the same convention.
#pragma once

#include <algorithm>
#include <cstdint>

#include "shardlab/kernels/workload.h"

namespace shardlab::kernels {

// One lookup call's shape.
struct LookupShape {
  int64_t ids = 0;   // ids looked up (sum of bag lengths)
  int64_t bags = 0;  // bags (pooled lookups); ignored for sequence lookups
  int64_t dim = 0;
  Precision precision = Precision::kFp32;
  PoolingMode pooling = PoolingMode::kSum;
  bool weighted = false;
};

inline int64_t lookup_output_rows(const LookupShape& s) {
  return s.pooling == PoolingMode::kNone ? s.ids : s.bags;
}

inline double forward_bytes(const LookupShape& s) {
  const double ids = static_cast<double>(s.ids);
  const double dim = static_cast<double>(s.dim);
  const double elem = element_bytes(s.precision);
  double bytes = ids * 8.0 + (static_cast<double>(s.bags) + 1.0) * 8.0;
  if (s.weighted) bytes += ids * 4.0;
  bytes += ids * dim * elem;
  bytes += static_cast<double>(lookup_output_rows(s)) * dim * 4.0;
  return bytes;
}

// Upper bound on the distinct rows a lookup touches.
inline int64_t unique_rows_upper_bound(int64_t ids, int64_t rows) { return std::min(ids, rows); }

inline double backward_bytes(const LookupShape& s, int64_t unique_rows, OptimizerKind optimizer) {
  const double ids = static_cast<double>(s.ids);
  const double dim = static_cast<double>(s.dim);
  const double unique = static_cast<double>(unique_rows);
  double bytes = static_cast<double>(lookup_output_rows(s)) * dim * 4.0 + ids * 8.0;
  if (s.weighted) bytes += ids * 4.0;
  bytes += unique * dim * element_bytes(s.precision) * 2.0;
  if (optimizer == OptimizerKind::kRowwiseAdagrad) bytes += unique * 4.0 * 2.0;
  return bytes;
}

inline double copy_bytes(double bytes_copied) { return 2.0 * bytes_copied; }

}  // namespace shardlab::kernels
