// Measured phases next to what the models said: per replayed rank and phase,
// the replay's median and p90, TorchRec's estimate and the simulator's phase
// time. What `shardlab replay` prints and writes.
#pragma once

#include <optional>
#include <vector>

#include "shardlab/kernels/measurement.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::kernels {

struct PhaseComparison {
  int rank = -1;
  sim::Phase phase = sim::Phase::kFwdCompute;
  // The rank's time in the phase per iteration (ReplayResult::phase_timings;
  // when a backend left those empty, the sum of the records' medians and p90s).
  // samples == 0: nothing of this phase was measured on this rank.
  TimingSummary measured;
  // TorchRec's estimate of the rank's phase: the summed shard terms
  // (fwd/bwd compute, fwd/bwd comms; DP's bwd comms for the all-reduce).
  // None for the input dist, which TorchRec's model does not estimate.
  std::optional<double> estimate_ms;
  // The simulator's time for the rank's phase in the last simulated
  // iteration (sum of its records of the phase); none without a simulation.
  std::optional<double> simulated_ms;
};

// One row per replayed rank (ascending) and phase (iteration order: input
// dist, forward, output dist, backward output dist, backward, all-reduce),
// for phases measured on the rank or estimated non-zero. `estimates` is
// sim::iteration_traffic's per-rank work (indexed by rank); `simulated` may be null.
std::vector<PhaseComparison> compare_phases(const ReplayResult& result,
                                            const std::vector<sim::RankWork>& estimates,
                                            const sim::SimResult* simulated);

}  // namespace shardlab::kernels
