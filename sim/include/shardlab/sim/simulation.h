// One simulated training run of a sharded plan: several iterations of
// TorchRec's sparse-dist pipeline on every rank, communication as flows over
// the topology graph, compute from the planner's per-shard cost model.
//
// Per rank and iteration i (phase names as in docs/simulation.md "The result file"):
//   compute stream: iteration_overhead(i), prefetch(i), fwd_compute(i),
//                   dense_fwd(i), dense_bwd(i), bwd_compute(i),
//                   dense_optimizer(i)
//   comm stream:    input_dist(i+1) (issued before this iteration's forward, so
//                   it runs under this iteration's compute), output_dist(i),
//                   ddp_allreduce(i) (DDP's buckets of the top MLP and the
//                   interaction), bwd_output_dist(i), ddp_allreduce(i) (the
//                   buckets holding the bottom MLP), dp_allreduce(i)
// A bucket is all-reduced once the dense backward has produced it, and the
// embedding gradients leave once the interaction's backward is done
// (docs/simulation.md "DDP's all-reduce"). iteration_overhead, dense_optimizer
// and ddp_allreduce exist only when the workload asks for them
// (workload.iteration_overhead_ms, workload.dense).
// Without overlap everything runs on one stream, in iteration order.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"

namespace shardlab::sim {

enum class Phase {
  kInputDist,
  kFwdCompute,
  kOutputDist,
  kDenseFwd,
  kDenseBwd,
  kBwdOutputDist,
  kBwdCompute,
  kDpAllreduce,
  kPrefetch,
  kIterationOverhead,
  kDdpAllreduce,
  kDenseOptimizer,
  kHostSync,  // the host blocked, reading a GPU result (host lane only)
};
inline constexpr int kNumPhases = static_cast<int>(Phase::kHostSync) + 1;
// Every phase, in enum order (parsers map names back through it).
inline constexpr std::array<Phase, kNumPhases> kAllPhases = {
    Phase::kInputDist, Phase::kFwdCompute,        Phase::kOutputDist,   Phase::kDenseFwd,
    Phase::kDenseBwd,  Phase::kBwdOutputDist,     Phase::kBwdCompute,   Phase::kDpAllreduce,
    Phase::kPrefetch,  Phase::kIterationOverhead, Phase::kDdpAllreduce, Phase::kDenseOptimizer,
    Phase::kHostSync};
// The GPU's two streams, and the host: the CPU thread that issues the work
// (host_model.h); a host phase names the GPU phase it issues.
enum class Stream { kCompute, kComm, kHost };
inline constexpr int kNumStreams = 3;
inline constexpr std::array<Stream, kNumStreams> kAllStreams = {Stream::kCompute, Stream::kComm,
                                                                Stream::kHost};

std::string_view to_string(Phase p);   // "input_dist", ..., "host_sync"
std::string_view to_string(Stream s);  // "compute", "comm", "host"

// How communication phases get their durations.
enum class CommModel {
  kFlows,      // collectives as flows over the topology graph (default)
  kEstimates,  // each rank's phase lasts its shards' TorchRec comm estimates
};

struct SimOptions {
  int iterations = 4;      // >= 1; steady state needs >= 2
  bool overlap = true;     // separate compute and comm streams, pipelined input dist
  bool contention = true;  // max-min sharing of links (else alpha-beta per flow)
  // Collectives on a fabric where every flow runs at its route's bottleneck
  // (contention off, or a non-blocking graph) are solved in closed form, to
  // the same result as their flows; false starts every flow (a check of the
  // closed forms, and the flow model's own speed).
  bool closed_form = true;
  CommModel comm_model = CommModel::kFlows;
  bool record_phases = true;  // false: only totals (for the perf model)
  // Calibrated communication (comm.intra_host / inter_host) for the flows:
  // messages capped at the calibrated bandwidth, the calibrated latency once
  // per collective (collective_model.h). Null: none. Must outlive simulate().
  const planner::CostCalibration* calibration = nullptr;
  // Polled while events run (every EventQueue::kStopPollEvents): reading
  // true stops the simulation, which then fails (kInvalidArgument, "the
  // simulation was stopped ..."). Not owned; null: never.
  const std::atomic<bool>* stop = nullptr;
};

struct PhaseRecord {
  Phase phase = Phase::kFwdCompute;
  Stream stream = Stream::kCompute;
  int iteration = 0;
  double start_ms = 0.0;
  double end_ms = 0.0;
  double bytes = 0.0;  // bytes this rank sends in a comm phase
  int tables = 0;      // shards of this rank the phase covers
};

struct RankResult {
  int rank = 0;
  int host = 0;
  // Per steady-state iteration: busy time of each stream (a collective counts
  // from its start on this rank until this rank's part is done).
  double busy_compute_ms = 0.0;
  double busy_comm_ms = 0.0;
  double busy_host_ms = 0.0;  // the host thread issuing or blocked (0 without a host lane)
  // Of the last iteration: how long the compute stream waited for the
  // host's launches (docs/host-model.md "GPU waiting for the host").
  double gpu_waits_host_ms = 0.0;
  std::vector<PhaseRecord> phases;  // every iteration, in start order per stream
};

struct CriticalStep {
  int rank = 0;
  Phase phase = Phase::kFwdCompute;
  Stream stream = Stream::kCompute;  // kHost: the host issuing `phase`, or blocked
  int iteration = 0;
  double start_ms = 0.0;
  double end_ms = 0.0;
};

struct LinkResult {
  std::string name;
  double bytes = 0.0;        // over the whole simulation
  double utilization = 0.0;  // bytes / (capacity · simulated time)
};

// The host side of the simulated iteration (docs/host-model.md), computed
// once here for every front end.
struct HostSummary {
  bool modelled = false;      // a host lane ran (the scenario has a host profile)
  std::string framework;      // "torchrec", "hugectr"
  std::string mode;           // "eager", "cuda_graphs"
  std::string profile;        // the host profile's name
  int rank = 0;               // the rank whose host steps lie on the critical path
                              // (rank 0 when none does)
  double host_busy_ms = 0.0;  // that rank's host time per iteration
  // The last iteration's critical-path time spent in host steps: the part of
  // the iteration the host sets, in which no GPU work is what it waits for.
  double host_critical_ms = 0.0;
  double share = 0.0;   // host_critical_ms / iteration_ms, in [0, 1]
  std::string verdict;  // host_verdict(share)
  // A plain statement of the verdict and what would help; empty without a host lane.
  std::string advice;
};

// The verdict on a share of an iteration set by (or waiting for) the host:
// "host-bound" at 0.5 or more, "partly host-bound" from 0.1, else
// "GPU-bound". One rule for the simulation's HostSummary and for measured
// traces (trace/trace_summary.h).
const char* host_verdict(double share);

struct SimResult {
  std::string scenario;
  int iterations = 0;
  int local_world_size = 1;
  int64_t dense_params = 0;   // parameters of workload.dense (0 without)
  int ddp_buckets = 0;        // DDP buckets all-reduced per iteration
  double iteration_ms = 0.0;  // steady state: last iteration's end minus the one before;
                              // with one iteration, its end (not a steady state)
  double total_ms = 0.0;      // end of the last iteration
  std::vector<RankResult> ranks;
  // The chain of steps that bounds the last iteration, in time order: each
  // starts where the one before it ended, the first at the previous
  // iteration's end, the last at total_ms, so their durations add up to
  // iteration_ms. A step may be part of its phase (docs/simulation.md
  // "Reading the summary" defines the walk).
  std::vector<CriticalStep> critical_path;
  std::vector<LinkResult> links;
  HostSummary host;
  uint64_t events = 0;  // events the engine processed
  uint64_t flows = 0;   // point-to-point flows started
  double wall_seconds = 0.0;
};

// For each rank of `result` (result.ranks order) and each of its recorded
// phases (its `phases` order): whether a critical-path step lies in it, i.e.
// a step of the same rank, phase and iteration overlaps it in time. A step
// cut from its phase marks that phase; of a phase a rank runs twice in one
// iteration (DDP's all-reduce around bwd_output_dist), only the instance the
// step lies in is marked. The trace's "critical" flags and the workbench's
// timeline both read this.
std::vector<std::vector<bool>> critical_phase_marks(const SimResult& result);

// What the simulated iteration includes of the host's own work, one line
// for every front end (docs/host-model.md "Reading the result"): the mode,
// framework and host profile with the verdict and what would help, or, without
// a host lane, that the host is not modelled. `iteration_overhead_ms` is the
// scenario's workload.iteration_overhead_ms.
std::string host_side_text(const SimResult& result, double iteration_overhead_ms);

// Simulates `plan` (every shard placed) of `space` enumerated from `scenario`.
// Fails with kInvalidArgument when the fabric or workload do not fit the
// topology (e.g. `fabric.hosts` of the wrong length).
Result<SimResult> simulate(const planner::Scenario& scenario, const planner::SearchSpace& space,
                           const planner::PartitionedPlan& plan, const SimOptions& options = {});

}  // namespace shardlab::sim
