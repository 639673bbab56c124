// How this process was started: alone, or as one of several processes of a
// multi-process replay under mpirun (one process per GPU; docs/replay-cuda.md).
// Read from the launcher's environment only, so the registry can answer
// replay_process_rank() without opening the CUDA backend module.
#pragma once

namespace shardlab::kernels {

struct ProcessLaunch {
  int rank = 0;        // this process among all of them
  int size = 1;        // processes started together (1: not launched by mpirun)
  int local_rank = 0;  // this process among those on its host: picks the GPU
};

// From Open MPI's OMPI_COMM_WORLD_* variables, else PMI's (MPICH, Slurm); a
// variable that is unset, empty or not a number counts as absent.
ProcessLaunch detect_launch();

}  // namespace shardlab::kernels
