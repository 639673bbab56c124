// NCCL error codes converted to Status with file:line (see cuda_check.h).
#pragma once

#include <nccl.h>

#include <string>

#include "cuda_check.h"

namespace shardlab::kernels::cuda {

inline Status nccl_status(ncclResult_t result, const char* call, const char* file, int line) {
  std::string message = std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                        ncclGetErrorString(result);
  if (result == ncclSystemError || result == ncclInternalError || result == ncclRemoteError) {
    const char* last = ncclGetLastError(nullptr);
    if (last != nullptr && *last != '\0') message += std::string(" (") + last + ")";
  }
  return Status::internal(std::move(message));
}

}  // namespace shardlab::kernels::cuda

#define NCCL_CHECK(call)                                                                  \
  do {                                                                                    \
    const ncclResult_t shardlab_nccl_result_ = (call);                                    \
    if (shardlab_nccl_result_ != ncclSuccess) {                                           \
      return ::shardlab::kernels::cuda::nccl_status(                                      \
          shardlab_nccl_result_, #call, ::shardlab::kernels::cuda::source_name(__FILE__), \
          __LINE__);                                                                      \
    }                                                                                     \
  } while (0)
