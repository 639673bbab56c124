// What the CUDA backend knows about the process it runs in, and its two
// halves (cuda_replay.cc, cuda_bench.cc) behind CudaBackend (cuda_backend.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mpi_bootstrap.h"
#include "nccl_collectives.h"
#include "shardlab/kernels/backend.h"

namespace shardlab::kernels::cuda {

struct CudaContext {
  // GPUs this process drives: all visible ones, or under mpirun the one its
  // local rank picks.
  std::vector<int> devices;
  ProcessLaunch launch;     // size > 1: one process per replayed rank
  std::string device_name;  // of devices.front()
  // Under mpirun: one participant per process, created on first use and kept.
  std::unique_ptr<NcclGroup> world;
  std::vector<uint64_t> host_ids;  // per process (mpirun), to tell inter-host collectives
};

Result<ReplayResult> cuda_replay(CudaContext& context, const ReplayWorkload& workload,
                                 const ReplayOptions& options, const ProgressFn& progress);
Result<KernelBenchResult> cuda_bench_kernels(const CudaContext& context,
                                             const KernelBenchOptions& options,
                                             const ProgressFn& progress);

}  // namespace shardlab::kernels::cuda
