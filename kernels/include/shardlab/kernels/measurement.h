// Measurement records: what a replay measured, one record per (rank, shard,
// phase) for lookups and per (collective, rank) for communication. Both
// backends produce the same records; the run store keeps them and calibration
// fits the cost model to them.
//
// Bandwidths follow nccl-tests' definitions: algorithm bandwidth is
// bytes / time; bus bandwidth scales it by 2(n-1)/n for all-reduce and (n-1)/n
// for reduce-scatter, all-gather and all-to-all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shardlab/kernels/workload.h"
#include "shardlab/planner/hardware_spec.h"
#include "shardlab/sim/dense_model.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::kernels {

// Median, 90th percentile and minimum of a set of timings, ms.
struct TimingSummary {
  double median_ms = 0.0;
  double p90_ms = 0.0;
  double min_ms = 0.0;
  int samples = 0;
};
// REQUIRES: !samples_ms.empty(). Nearest-rank percentiles of the sorted samples.
TimingSummary summarize(std::vector<double> samples_ms);

struct Measurement {
  int rank = -1;
  sim::Phase phase = sim::Phase::kFwdCompute;  // kFwdCompute / kBwdCompute for lookups
  // Lookups: the shard measured (ShardWork's fields); collectives: -1 / empty.
  int option = -1;
  int shard = -1;
  std::string table;
  planner::ShardingType sharding_type = planner::ShardingType::kTableWise;
  planner::ComputeKernel compute_kernel = planner::ComputeKernel::kFused;
  int64_t dim = 0;
  Precision precision = Precision::kFp32;
  int64_t bags = 0;
  double pooling_factor = 0.0;
  // Collectives: which one (index into ReplayWorkload::collectives), its kind
  // and how many ranks took part; -1 for lookups.
  int collective = -1;
  sim::CollectiveKind collective_kind = sim::CollectiveKind::kAllToAll;
  int members = 0;
  bool inter_host = false;  // the collective's members span more than one host
  // Bytes the kernel or collective moved by ShardLab's count (lookups: see
  // bytes.h; collectives: bytes this rank sent), and the bytes TorchRec's
  // formula charges (model_fwd_bytes for lookups, sent bytes for collectives).
  double bytes = 0.0;
  double model_bytes = 0.0;
  double estimated_ms =
      0.0;  // TorchRec's estimate of this phase for this shard (0 for collectives)
  TimingSummary timing;
  // Elements that differed from the reference check, when the backend checks (else 0).
  int64_t wrong_elements = 0;
};

// One rank's time in one phase per iteration: the sum of the rank's records
// of that phase (all its shards' lookups, or all its collectives of the
// phase) within an iteration, summarised over the timed iterations.
struct PhaseTiming {
  int rank = -1;
  sim::Phase phase = sim::Phase::kFwdCompute;
  TimingSummary timing;
};

// A matrix product of the dense model measured in a profiler trace
// (trace/include/shardlab/trace/trace_measurements.h): its shape and
// arithmetic, and the GPU time of its kernels per occurrence, summarized.
// What calibration fits the GEMM roofline's efficiency to (calibration.h).
struct GemmRecord {
  int rank = -1;
  std::string op;  // "aten::mm", "aten::addmm", "aten::bmm"
  sim::Gemm gemm;
  planner::Precision precision = planner::Precision::kFp32;
  TimingSummary timing;
};

struct ReplayResult {
  std::string backend;      // "cpu", "cuda"
  std::string device_name;  // e.g. "NVIDIA H100 80GB HBM3", or the CPU model
  int world_size = 0;
  int devices_used = 0;  // GPUs (or threads) the ranks ran on
  int warmup = 0;
  int iterations = 0;
  std::vector<Measurement> measurements;
  // Per rank and phase (ranks ascending, phases in iteration order). A backend
  // may leave it empty; readers then add up the records' medians instead.
  std::vector<PhaseTiming> phase_timings;
};

}  // namespace shardlab::kernels
