// Where the CUDA backend replays each rank (docs/replay-cuda.md, "Placement
// and timing"): host-side decisions, kept apart from the device code so that
// they are tested without a GPU.
//
//  - One process with G GPUs: the replayed ranks (ascending) run in waves of
//    G ranks; rank k of a wave runs on the process's k-th GPU.
//  - Under mpirun (one process per replayed rank): one wave of every rank;
//    process p drives rank p of the wave on the GPU its local rank picked.
//
// Collectives run among the members of a wave only.
#pragma once

#include <cstdint>
#include <vector>

#include "process_launch.h"
#include "shardlab/planner/status.h"

namespace shardlab::kernels {

struct RankPlacement {
  int rank = -1;    // global rank
  int device = -1;  // GPU index (as the CUDA runtime numbers them)
};

struct ReplayWave {
  std::vector<int> ranks;            // the wave's ranks, ascending
  std::vector<RankPlacement> local;  // the ranks of the wave this process drives
};

// The waves replaying `ranks` (ascending, distinct, non-empty) on `devices`
// (this process's GPUs, non-empty; under mpirun its one GPU first). Fails
// (invalid input) when an mpirun launch started a number of processes other
// than the number of ranks.
Result<std::vector<ReplayWave>> place_waves(const std::vector<int>& ranks,
                                            const ProcessLaunch& launch,
                                            const std::vector<int>& devices);

// The index in `wave` (ascending) of each of `members` (all in `wave`): the
// process of each member under mpirun.
std::vector<int> wave_indices(const std::vector<int>& wave, const std::vector<int>& members);

// Whether the processes `indices` run on more than one host; host_ids[p]
// names process p's host.
bool spans_hosts(const std::vector<int>& indices, const std::vector<uint64_t>& host_ids);

}  // namespace shardlab::kernels
