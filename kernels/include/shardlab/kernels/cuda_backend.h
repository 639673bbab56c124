// The CUDA + NCCL replay backend: embedding-bag kernels on the GPU, collectives
// through NCCL, timing with CUDA events. Declared whenever kernels/ is built
// with SHARDLAB_WITH_CUDA (SHARDLAB_HAVE_CUDA is then defined for users of
// shardlab::kernels); no CUDA type appears here, so plain C++ callers include it.
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

// This process's index among those mpirun started (0 when not started by
// mpirun). Every process of a multi-process replay returns the whole result;
// front ends print and write files from process 0 only.
int cuda_process_rank();

// The "cuda" backend. Fails when no GPU is visible, saying why
// ("no CUDA device found (cudaGetDeviceCount: ...)"), or when an MPI launch
// cannot be set up.
Result<std::unique_ptr<ReplayBackend>> make_cuda_backend();

}  // namespace shardlab::kernels
