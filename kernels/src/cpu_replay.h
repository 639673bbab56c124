// The CPU backend's two halves, behind CpuBackend (cpu_backend.cc).
#pragma once

#include <string>

#include "shardlab/kernels/backend.h"

namespace shardlab::kernels::detail {

Result<ReplayResult> cpu_replay(const ReplayWorkload& workload, const ReplayOptions& options,
                                const ProgressFn& progress);
Result<KernelBenchResult> cpu_bench_kernels(const KernelBenchOptions& options,
                                            const ProgressFn& progress);

// Refuses tables of `bytes` that would take more than 80% of this machine's
// memory (nothing is refused when the system does not say how much it has):
// "<what> needs X GiB, more than 80% of this machine's Y GiB of memory; <advice>".
Status check_fits_in_memory(double bytes, const std::string& what, const std::string& advice);

}  // namespace shardlab::kernels::detail
