// CUDA and NCCL error codes converted to Status at the call site, with the
// file and line of the failing call (nccl-tests' CUDACHECK / NCCLCHECK, but
// returning instead of exiting: only main ends the process).
//
// Use inside functions returning Status or Result<T>:
//   CUDA_CHECK(cudaMalloc(&p, bytes));
//   NCCL_CHECK(ncclGroupEnd());
//   CUDA_CHECK_LAUNCH();  // after a kernel launch: the launch's own error
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "shardlab/planner/status.h"

namespace shardlab::kernels::cuda {

inline Status cuda_status(cudaError_t error, const char* call, const char* file, int line) {
  return Status::internal(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                          cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")");
}

// Base name of __FILE__, so messages do not carry build paths.
constexpr const char* source_name(const char* path) {
  const char* name = path;
  for (const char* p = path; *p; ++p) {
    if (*p == '/') name = p + 1;
  }
  return name;
}

}  // namespace shardlab::kernels::cuda

#define CUDA_CHECK(call)                                                                 \
  do {                                                                                   \
    const cudaError_t shardlab_cuda_error_ = (call);                                     \
    if (shardlab_cuda_error_ != cudaSuccess) {                                           \
      return ::shardlab::kernels::cuda::cuda_status(                                     \
          shardlab_cuda_error_, #call, ::shardlab::kernels::cuda::source_name(__FILE__), \
          __LINE__);                                                                     \
    }                                                                                    \
  } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
