// The replay backend interface. A backend runs a workload's lookups and
// collectives for real and returns measurement records; `bench-kernels` sweeps
// kernel shapes. The CPU reference backend is always built; the CUDA + NCCL
// backend when the CUDA toolkit was found at configure time.
//
// Thread safety: a backend object is used by one caller at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shardlab/kernels/measurement.h"
#include "shardlab/kernels/workload.h"
#include "shardlab/planner/status.h"

namespace shardlab::kernels {

enum class IdDistribution { kUniform, kZipf };
enum class PoolingDistribution { kFixed, kPoisson };

struct ReplayOptions {
  int warmup = 3;       // untimed iterations first
  int iterations = 20;  // timed iterations; medians and p90 over these
  // Ranks to replay (empty: all). Collectives run among the replayed ranks,
  // with the plan's message sizes to and from them.
  std::vector<int> ranks;
  IdDistribution ids = IdDistribution::kUniform;
  double zipf_alpha = 1.05;  // popularity exponent for kZipf
  PoolingDistribution pooling = PoolingDistribution::kFixed;
  uint64_t seed = 1;  // ids and initial weights; same seed, same ids on every backend
  float learning_rate = 0.01f;
  bool verify = false;  // backends that can check against the CPU reference fill wrong_elements
};

// Called as work progresses: done of total steps, and what is running.
using ProgressFn = std::function<void(int done, int total, std::string_view what)>;

struct KernelBenchOptions {
  std::vector<int64_t> rows = {1 << 20};
  std::vector<int64_t> dims = {32, 64, 128, 256, 512};
  std::vector<double> pooling_factors = {1, 8, 32};
  int64_t bags = 8192;  // bags per call
  Precision precision = Precision::kFp32;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  int warmup = 3;
  int iterations = 20;
  uint64_t seed = 1;
};

// One shape of the sweep. Bytes per second use bytes.h's counts over the median time.
struct KernelBenchRow {
  int64_t rows = 0;
  int64_t dim = 0;
  double pooling_factor = 0.0;
  int64_t bags = 0;
  Precision precision = Precision::kFp32;
  TimingSummary forward;
  TimingSummary backward;  // backward with the fused optimizer update
  double forward_bytes = 0.0;
  double backward_bytes = 0.0;
  double forward_bytes_per_s = 0.0;
  double backward_bytes_per_s = 0.0;
};

struct KernelBenchResult {
  std::string backend;
  std::string device_name;
  double copy_bytes_per_s =
      0.0;  // device-to-device copy (memcpy on the CPU) measured in the same run
  std::vector<KernelBenchRow> rows;
};

class ReplayBackend {
 public:
  virtual ~ReplayBackend() = default;
  virtual std::string_view name() const = 0;
  virtual std::string device_name() const = 0;
  // Runs `options.warmup` + `options.iterations` iterations of the workload.
  virtual Result<ReplayResult> replay(const ReplayWorkload& workload, const ReplayOptions& options,
                                      const ProgressFn& progress) = 0;
  virtual Result<KernelBenchResult> bench_kernels(const KernelBenchOptions& options,
                                                  const ProgressFn& progress) = 0;
};

// Backend names this build offers, "cpu" first.
std::vector<std::string> available_backends();
// "cpu", or "cuda" when built with CUDA and a GPU is present. An unknown name,
// a build without CUDA or a machine without a GPU is an error that says which.
Result<std::unique_ptr<ReplayBackend>> make_backend(std::string_view name);

// This process's index among the processes of a multi-process replay (one
// process per GPU under mpirun; see docs/replay-cuda.md), 0 otherwise. Every
// process returns the whole result; front ends print, write and record from
// process 0 only.
int replay_process_rank();

}  // namespace shardlab::kernels
