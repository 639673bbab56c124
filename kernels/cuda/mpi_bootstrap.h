// Multi-process replay: one process per GPU, started by `mpirun` (Open MPI),
// possibly over several hosts. MPI only carries NCCL's unique id to every
// process and gathers the measurement records (as bytes, replay_records.h)
// at the end; all GPU traffic goes through NCCL.
//
// How the process was launched is process_launch.h's (it needs no MPI); the
// mpi_* functions exist only in builds with MPI (SHARDLAB_HAVE_MPI,
// mpi_bootstrap.cc is compiled when CMake finds MPI).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "process_launch.h"
#include "shardlab/planner/status.h"

namespace shardlab::kernels::cuda {

#if defined(SHARDLAB_HAVE_MPI)
// MPI_Init once per process (later calls are no-ops); checks that MPI's view
// of the world matches `launch`. MPI is finalised at exit (std::atexit).
Status mpi_start(const ProcessLaunch& launch);
// Finalises MPI if mpi_start initialised it (registered with std::atexit).
void mpi_stop();
Status mpi_barrier();
Status mpi_broadcast(void* data, int64_t bytes, int root);
// Every process's `mine`, concatenated in process order (lengths may differ).
Result<std::vector<std::byte>> mpi_allgather(const std::vector<std::byte>& mine);
// A number naming this process's host (equal on one host), from MPI_Get_processor_name.
Result<uint64_t> mpi_host_id();
#endif

}  // namespace shardlab::kernels::cuda
