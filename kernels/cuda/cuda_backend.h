// The CUDA + NCCL replay backend: embedding-bag kernels on the GPU, collectives
// through NCCL, timing with CUDA events. It is built as a module,
// libshardlab_cuda_backend.so (cuda_module.cc), that make_backend("cuda")
// opens at run time (backend_module.h); this header is for the module's own
// sources and its tests, which link the backend directly. No CUDA type
// appears here, so plain C++ callers include it.
//
// Placement: with at least as many GPUs as replayed ranks every rank runs on
// its own GPU; with fewer, the ranks are replayed in waves of as many ranks as
// there are GPUs, and each collective runs among the members of the wave (its
// records say how many took part). Under `mpirun` (Open MPI, one process per
// GPU) each process replays one rank and NCCL is bootstrapped through MPI; see
// docs/replay-cuda.md.
//
// Thread safety: as ReplayBackend (one caller at a time).
#pragma once

#include <memory>

#include "shardlab/kernels/backend.h"
#include "shardlab/planner/status.h"

namespace shardlab::kernels {

// GPUs this process can see (0 when the driver or the devices are missing).
int cuda_device_count();

// The "cuda" backend. Fails with an unavailable Status when no GPU is
// visible, saying why ("no CUDA device found (cudaGetDeviceCount: ...)"), or
// when an mpirun launch cannot be set up.
Result<std::unique_ptr<ReplayBackend>> make_cuda_backend();

}  // namespace shardlab::kernels
