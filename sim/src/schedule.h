// The order of work on each rank's streams over all simulated iterations, and
// what each task waits for. The same for every rank (a rank with nothing to do
// in a phase runs it with zero duration).
//
// With overlap (TorchRec's TrainPipelineSparseDist):
//   compute lane: prefetch(i) fwd_compute(i) dense_fwd(i) dense_bwd(i) bwd_compute(i)
//   comm lane:    input_dist(0), then per i: input_dist(i+1) output_dist(i)
//                 bwd_output_dist(i) dp_allreduce(i)
//   waits:        prefetch(i), fwd_compute(i) <- input_dist(i);
//                 fwd_compute(i) <- dp_allreduce(i-1) (replicas updated);
//                 output_dist(i) <- fwd_compute(i); dense_fwd(i) <- output_dist(i);
//                 bwd_output_dist(i) <- dense_bwd(i); bwd_compute(i) <- bwd_output_dist(i);
//                 dp_allreduce(i) <- bwd_compute(i)
// Without overlap: one lane, per iteration input_dist prefetch fwd_compute
// output_dist dense_fwd dense_bwd bwd_output_dist bwd_compute dp_allreduce.
// Inference iterations stop after dense_fwd.
//
// Optional tasks (ScheduleShape): iteration_overhead(i) first on the compute
// lane. With a dense model the comm lane runs, per iteration,
//   output_dist(i) ddp_allreduce(i, part 0) bwd_output_dist(i)
//   ddp_allreduce(i, part 1) dp_allreduce(i)
// as one NCCL stream issues them in autograd's order: the buckets of the top
// MLP and the interaction, the embedding gradients, the buckets holding the
// bottom MLP. The three are anchored at dense_bwd(i): they may start once it
// has started, and their collectives join at their ready times within it.
// dense_optimizer(i) ends the compute lane, after bwd_compute(i) and the last
// bucket. Without overlap they take the same places on the one lane.
//
// With a host program (host_model.h) a third lane runs its steps, per
// iteration in program order; each GPU task names the host task that issues
// it (`issuer`), and a host sync waits for the GPU task it reads. In eager
// mode the comm lane follows the host's issue order, as NCCL runs a process
// group's collectives: output_dist(i), the backward's collectives, then
// input_dist(i+1) (TorchRec 2022 issues its lengths all-to-all in
// sparse_data_dist, before the backward, but its indices all-to-all only in
// forward(i+1)'s wait, after the backward's; the task stands for both). iteration_overhead moves to
// the host (the first step's given time); input_dist(0) has no issuer (issued before the loop).
#pragma once

#include <vector>

#include "shardlab/sim/host_model.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim::detail {

struct TaskTemplate {
  Phase phase = Phase::kFwdCompute;
  Stream stream = Stream::kCompute;  // the phase's natural stream (trace lane)
  int lane = 0;                      // execution lane: 0 compute, 1 comm (0 only without overlap)
  int iteration = 0;
  std::vector<int> deps;  // indices of tasks (same rank) that must end first
  int anchor = -1;        // task (same rank) that must have started; its start times the joins
  int part = 0;           // which of a phase's tasks (CollectiveSpec::part)
  int issuer = -1;        // host task that launches this GPU task; -1: none
  int host_step = -1;     // host task: its step in the host program
};

struct ScheduleShape {
  int iterations = 1;
  bool overlap = true;
  bool training = true;
  bool iteration_overhead = false;  // iteration_overhead tasks
  // ddp_allreduce and dense_optimizer tasks, anchored at the backward (training)
  bool dense_model = false;
  // The host program of one iteration (host_program_shape); null: no host lane.
  const std::vector<HostStepShape>* host = nullptr;
  bool eager = false;  // the host runs eagerly (issue-ordered comm lane)
};

struct Schedule {
  std::vector<TaskTemplate> tasks;
  std::vector<std::vector<int>> lanes;  // task indices in execution order, per lane
  int host_lane = -1;                   // the host's lane, -1 without one
};

bool is_comm_phase(Phase p);

Schedule build_schedule(const ScheduleShape& shape);

}  // namespace shardlab::sim::detail
