// What the replay backends (cpu_replay.cc, cuda/cuda_replay.cc) and their
// bench-kernels sweeps share: the checks of replay options, which ranks run,
// per-phase iteration totals, the fields of a lookup record, progress text and
// a bench row from its samples. For backends; callers use backend.h.
#pragma once

#include <array>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "shardlab/kernels/backend.h"

namespace shardlab::kernels {

// One step of a replayed iteration: every shard's lookups of a compute phase
// (the forward, or the backward with the optimizer update), or the
// collectives of a communication phase in issue order.
struct ReplayStep {
  sim::Phase phase = sim::Phase::kFwdCompute;
  bool lookups = false;        // compute phase: the shards' lookups; else the phase's collectives
  bool training_only = false;  // only when the workload trains (ReplayWorkload::training)
  bool forward() const { return phase == sim::Phase::kFwdCompute; }
};

// The steps of an iteration, in order (after its inputs are drawn). The one
// definition of the order: the CPU and CUDA backends' loops both walk it.
inline constexpr ReplayStep kReplaySteps[] = {
    {.phase = sim::Phase::kInputDist},
    {.phase = sim::Phase::kFwdCompute, .lookups = true},
    {.phase = sim::Phase::kOutputDist},
    {.phase = sim::Phase::kBwdOutputDist, .training_only = true},
    {.phase = sim::Phase::kBwdCompute, .lookups = true, .training_only = true},
    {.phase = sim::Phase::kDpAllreduce, .training_only = true},
};
inline constexpr int kNumReplayPhases = static_cast<int>(std::size(kReplaySteps));

// The phases of an iteration, in order: kReplaySteps' phases.
inline constexpr std::array<sim::Phase, kNumReplayPhases> kReplayPhases = [] {
  std::array<sim::Phase, kNumReplayPhases> phases{};
  for (int i = 0; i < kNumReplayPhases; ++i) phases[static_cast<size_t>(i)] = kReplaySteps[i].phase;
  return phases;
}();

// Index of `p` in kReplayPhases; -1 for a phase no iteration has.
int replay_phase_index(sim::Phase p);

// Whether a workload's iteration runs step `step` (training-only steps only when it trains).
inline bool runs_step(const ReplayStep& step, bool training) {
  return training || !step.training_only;
}

// Whether an iteration runs collective `spec`: not an estimate, and in a
// communication step the iteration runs.
bool replays_collective(const sim::CollectiveSpec& spec, bool training);

// A collective a replay of some ranks runs: its index in the workload's
// collectives and its spec restricted to those ranks.
struct ReplayedCollective {
  int index = -1;
  sim::CollectiveSpec spec;
};
// The collectives of `collectives` that a replay of `ranks` (global, ascending)
// runs, in their order: those replays_collective() keeps that still have two or
// more members among `ranks`. The CPU and CUDA backends both start from this list.
std::vector<ReplayedCollective> replayed_collectives(
    const std::vector<sim::CollectiveSpec>& collectives, bool training,
    const std::vector<int>& ranks);

// Fails on options no backend can run: iterations, warm-up, Zipf exponent, ranks.
Status check_replay_options(const ReplayWorkload& workload, const ReplayOptions& options);
// Fails on kernel benchmark options no backend can run: an empty shape list,
// rows, dims or bags below 1, negative or non-finite pooling, iterations.
Status check_bench_options(const KernelBenchOptions& options);

// The ranks to replay, ascending and distinct: options.ranks, or every rank of
// the workload when it is empty.
std::vector<int> replayed_ranks(const ReplayWorkload& workload, const ReplayOptions& options);

// What iteration `it` (warm-up and timed counted together from 0) is, for a ProgressFn.
std::string iteration_progress(int it, const ReplayOptions& options);

// One rank's time in each phase per timed iteration: the sum of what add()
// saw between two end_iteration() calls. A phase nothing was added to in an
// iteration gets no sample for it. Not thread-safe; one owner per rank.
class PhaseTotals {
 public:
  // REQUIRES: replay_phase_index(p) >= 0.
  void add(sim::Phase p, double ms);
  // Closes a timed iteration.
  void end_iteration();
  // The per-iteration sums of phase kReplayPhases[i] (empty: never measured).
  const std::vector<double>& samples(int i) const { return ms_[i]; }

 private:
  double sum_[kNumReplayPhases] = {};
  bool used_[kNumReplayPhases] = {};
  std::vector<double> ms_[kNumReplayPhases];
};

// A lookup record with the shard's fields, its phase, TorchRec's bytes and
// estimate; the measured bytes, timing and wrong elements are the caller's.
Measurement lookup_measurement(const ShardWork& work, int rank, bool forward);

// One bench-kernels shape's timed samples: per call times (ms) and the bytes
// summed over the timed calls.
struct BenchSamples {
  std::vector<double> fwd_ms, bwd_ms;
  double fwd_bytes = 0.0, bwd_bytes = 0.0;
};

// The row of a shape: summaries, bytes per call, and bytes per second over
// the median (0 when the median is 0). REQUIRES: both sample lists non-empty.
KernelBenchRow bench_row(const KernelBenchOptions& options, int64_t rows, int64_t dim,
                         double pooling, const BenchSamples& samples);

}  // namespace shardlab::kernels
