// Multi-process replay: one process per GPU, started by `mpirun` (Open MPI),
// possibly over several hosts. MPI only carries NCCL's unique id to every
// process and gathers the measurement records at the end; all GPU traffic
// goes through NCCL.
//
// detect_launch() reads the launcher's environment and is always available;
// the mpi_* functions exist only in builds with MPI (SHARDLAB_HAVE_MPI,
// mpi_bootstrap.cc is compiled when CMake finds MPI).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "shardlab/planner/status.h"

namespace shardlab::kernels::cuda {

struct ProcessLaunch {
  int rank = 0;        // this process among all of them
  int size = 1;        // processes started together (1: not launched by mpirun)
  int local_rank = 0;  // this process among those on its host: picks the GPU
};

// From Open MPI's OMPI_COMM_WORLD_* variables, or PMI's (MPICH, Slurm).
inline ProcessLaunch detect_launch() {
  auto read = [](const char* a, const char* b, int fallback) {
    for (const char* name : {a, b}) {
      if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return std::atoi(v);
    }
    return fallback;
  };
  ProcessLaunch launch;
  launch.size = read("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1);
  launch.rank = read("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0);
  launch.local_rank = read("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", launch.rank);
  return launch;
}

#if defined(SHARDLAB_HAVE_MPI)
// MPI_Init once per process (later calls are no-ops); checks that MPI's view
// of the world matches `launch`. MPI is finalised at exit (std::atexit).
Status mpi_start(const ProcessLaunch& launch);
// Finalises MPI if mpi_start initialised it (registered with std::atexit).
void mpi_stop();
Status mpi_barrier();
Status mpi_broadcast(void* data, int64_t bytes, int root);
// Every process's `mine`, concatenated in process order (lengths may differ).
Result<std::vector<double>> mpi_allgather(const std::vector<double>& mine);
// A number naming this process's host (equal on one host), from MPI_Get_processor_name.
Result<uint64_t> mpi_host_id();
#endif

}  // namespace shardlab::kernels::cuda
