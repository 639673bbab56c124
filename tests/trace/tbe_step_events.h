// One profiler step of a TorchRec job as Kineto records it, for the tests
// that need embedding lookups in a trace (trace_lookups_test, the CLI's
// calibrate --from-trace test).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace shardlab::trace::testing {

// The events of ProfilerStep#`step`, 5 ms from `start_us`: its forward
// (from start + 100 µs) launches one TBE forward kernel of `fwd_us` µs, its
// backward (from start + 2,000 µs) one TBE backward kernel of `bwd_us` µs,
// with correlation ids 2·step − 1 and 2·step. Comma-separated, for a
// traceEvents list.
inline std::string tbe_step_events(int step, int64_t start_us, int64_t fwd_us, int64_t bwd_us) {
  return fmt::format(
      R"({{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{0}", "ts": {1}, "dur": 5000}},
    {{"ph": "X", "cat": "user_annotation", "name": "## forward ##", "ts": {2}, "dur": 1000}},
    {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": {3}, "dur": 2, "args": {{"correlation": {4}}}}},
    {{"ph": "X", "cat": "kernel", "name": "split_embedding_codegen_forward_kernel", "ts": {5}, "dur": {6}, "args": {{"correlation": {4}}}}},
    {{"ph": "X", "cat": "user_annotation", "name": "## backward ##", "ts": {7}, "dur": 1000}},
    {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": {8}, "dur": 2, "args": {{"correlation": {9}}}}},
    {{"ph": "X", "cat": "kernel", "name": "split_embedding_backward_codegen_kernel", "ts": {10}, "dur": {11}, "args": {{"correlation": {9}}}}})",
      step, start_us, start_us + 100, start_us + 200, 2 * step - 1, start_us + 300, fwd_us,
      start_us + 2000, start_us + 2100, 2 * step, start_us + 2200, bwd_us);
}

}  // namespace shardlab::trace::testing
