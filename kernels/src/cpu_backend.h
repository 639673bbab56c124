// The CPU reference replay backend: threads as ranks, in-memory collectives
// (cpu_collectives.h), the reference kernels of embedding_bag.h. It runs
// wherever ShardLab builds, so tests and CI use it; its timings describe this
// CPU, not a GPU.
//
// replay(): one thread per replayed rank. Each iteration runs, with a barrier
// of all replayed ranks between phases so per-phase timings line up:
//   input dist collectives -> forward lookups (each shard timed) -> output dist
//   collectives -> [training: backward output dist collectives -> backward with
//   the fused optimizer (each shard timed) -> data-parallel all-reduce].
// Each collective starts after a barrier of its members and is timed on each
// member from its start to its return. Inputs (ids, lengths, weights, output
// gradients) are drawn before the phase barrier and are not timed. Collectives
// with fewer than two replayed members are skipped (nothing to exchange).
// Progress is reported once per iteration, from the first replayed rank's thread.
//
// bench_kernels(): single-threaded forward and backward per shape, beside a
// single-threaded memcpy of a buffer larger than the last-level cache.
#pragma once

#include <memory>
#include <string>

#include "shardlab/kernels/backend.h"

namespace shardlab::kernels {

std::unique_ptr<ReplayBackend> make_cpu_backend();

// "<model name from /proc/cpuinfo> (<N> threads)", or "unknown CPU (<N> threads)".
std::string cpu_device_name();

}  // namespace shardlab::kernels
