// The CPU backend's two halves, behind CpuBackend (cpu_backend.cc).
#pragma once

#include "shardlab/kernels/backend.h"

namespace shardlab::kernels::detail {

Result<ReplayResult> cpu_replay(const ReplayWorkload& workload, const ReplayOptions& options,
                                const ProgressFn& progress);
Result<KernelBenchResult> cpu_bench_kernels(const KernelBenchOptions& options,
                                            const ProgressFn& progress);

// This machine's memory in bytes; 0 when the system does not say.
double physical_memory_bytes();

}  // namespace shardlab::kernels::detail
