// The CPU backend's two halves, behind CpuBackend (cpu_backend.cc).
#pragma once

#include <string>

#include "shardlab/kernels/backend.h"

namespace shardlab::kernels::detail {

Result<ReplayResult> cpu_replay(const ReplayWorkload& workload, const ReplayOptions& options,
                                const ProgressFn& progress);
Result<KernelBenchResult> cpu_bench_kernels(const KernelBenchOptions& options,
                                            const ProgressFn& progress);

// planner::check_memory for an estimate in (possibly huge) double bytes:
// kInvalidArgument "<what> needs about X, more than the Y left of the memory
// budget (Z, <source>); <advice>; ..." when `bytes` do not fit what is left of
// the process's memory budget (planner/memory_budget.h), else ok.
Status check_fits_in_memory(double bytes, const std::string& what, const std::string& advice);

}  // namespace shardlab::kernels::detail
