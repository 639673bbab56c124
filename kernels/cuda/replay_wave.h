// One wave of the CUDA backend's replay (cuda_replay.cc): the ranks this
// process drives in the wave, one per GPU, with their shards, collectives,
// events and what they measured. Where ranks go is replay_placement.h's; the
// order of an iteration's steps is kReplaySteps (backend_common.h), which the
// CPU backend walks too.
//
// An iteration: draw inputs (untimed), then each step of kReplaySteps the
// workload runs. All work of a GPU goes on its one stream, so its phases
// never overlap. Lookups are timed per shard with CUDA events on that stream.
// Before each collective the host waits for every local GPU (and, under
// mpirun, every process), so a collective starts together on its members and
// its time is its own, not the members' skew (as the CPU backend's barrier);
// it is timed per member from its start to its completion on that member's
// stream.
//
// Files: replay_wave.cc (set-up, the timed loop, records),
// wave_collectives.cc (communicators and NCCL calls), wave_verify.cc (the
// check against the CPU reference).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "backend_common.h"
#include "cuda_context.h"
#include "device_buffer.h"
#include "device_shard.h"
#include "replay_placement.h"
#include "replay_records.h"
#include "shardlab/kernels/cpu_collectives.h"

namespace shardlab::kernels::cuda {

// One collective of the wave, among its members in the wave.
struct WaveCollective {
  int index = -1;              // into ReplayWorkload::collectives
  sim::CollectiveSpec spec;    // restricted to the wave's ranks
  NcclGroup* group = nullptr;  // null: no participant in this process
  bool inter_host = false;
  std::vector<std::vector<int64_t>> counts;  // all-to-all: floats member i sends member j
  std::vector<int64_t> chunks;               // reduce-scatter / all-gather: floats per member
  int64_t elements = 0;                      // all-reduce: floats
};

// A slot's part in one collective.
struct SlotCollective {
  int collective = -1;  // into the wave's collectives
  int member = -1;      // index among the collective's members
  EventPair events;
  std::vector<double> ms;
};

struct ShardSlot {
  const ShardWork* work = nullptr;
  int index = -1;  // within the rank
  std::unique_ptr<DeviceShard> shard;
  EventPair fwd_events, bwd_events;
  std::vector<double> fwd_ms, bwd_ms;
  double fwd_bytes = 0.0, bwd_bytes = 0.0;  // summed over timed iterations
  int64_t wrong_fwd = 0, wrong_bwd = 0;
};

// One rank on one GPU of this process.
struct Slot {
  int rank = -1;
  int device = 0;
  Stream stream;
  std::vector<ShardSlot> shards;
  std::vector<SlotCollective> collectives;
  DeviceBuffer<float> send, recv;
  PhaseTotals phases;
};

class Wave {
 public:
  Wave(CudaContext& ctx, const ReplayWorkload& w, const ReplayOptions& o, ReplayWave placement)
      : ctx_(ctx), w_(w), o_(o), placement_(std::move(placement)) {}

  Status set_up();
  // Warm-up and timed iterations; `done` counts iterations over all waves.
  Status run(const ProgressFn& progress, int& done, int total);
  // Runs every shard again on its GPU and on the CPU reference (options.verify).
  Status verify();
  // What this process measured in the wave.
  std::vector<ReplayRecord> records() const;

 private:
  bool mpi() const { return ctx_.launch.size > 1; }
  Status set_up_collectives();
  Status draw_inputs(int iteration);
  Status run_lookups(bool forward);
  Status run_collectives(sim::Phase phase);
  Status run_collective(WaveCollective& c);
  Status synchronize_all();
  Status read_timings();

  CudaContext& ctx_;
  const ReplayWorkload& w_;
  const ReplayOptions& o_;
  ReplayWave placement_;
  std::vector<Slot> slots_;  // the ranks this process drives
  std::vector<WaveCollective> collectives_;
  std::map<std::vector<int>, std::unique_ptr<NcclGroup>> groups_;  // by members (global ranks)
  InputDraw draw_;
};

}  // namespace shardlab::kernels::cuda
