// The host side of a training step (docs/host-model.md): the CPU thread of
// each rank issues the step's ops in program order, and the GPU can run a
// phase only once the host has launched it.
//
// A rank's host program is a list of steps, the same shape on every rank
// (host_program_shape) with per-rank op counts (host_ops). A step either
//  - issues the GPU work of one or more phases: it costs the summed host time
//    of its ops (host_cost under a HostProfile), and its launches are spread
//    evenly over that time; a GPU phase can start one op's host time plus the
//    launch latency after the step starts, and cannot end before the step's
//    last launch plus the launch latency plus one kernel's share of the
//    phase's GPU time (max-plus over evenly spread launches, docs/host-model.md
//    "Launch-bound phases");
//  - or blocks (Phase::kHostSync): the host reads a GPU result (TorchRec's
//    `.tolist()` of the lengths all-to-all, or of a KJT's lengths per key), so
//    it waits until the phases that produce it have ended on this rank (a
//    collective ends when its slowest member has joined), then pays the read;
//  - or is host work alone (Phase::kIterationOverhead: zero_grad, the next
//    batch's copy, workload.iteration_overhead_ms).
//
// Programs (what each step holds is in host_model.cc, with its source in
// TorchRec's and PyTorch's code):
//  - TorchRec eager, TrainPipelineSparseDist as of TorchRec 1fe48921 (March
//    2022; the code the TorchRec DLRM example's published runs used): per
//    iteration i: iteration start (zero_grad, copy of batch i+2), the forward's
//    wait for input_dist(i), embedding lookup, output dist, dense forward and
//    loss, sparse_data_dist of batch i+1 (its KJT split reads the lengths per
//    key on the data-dist stream, which waits for the GPU to reach forward(i):
//    the end of iteration i-1's backward and optimizer), backward (dense, DDP's buckets,
//    embedding gradients' all-to-all, fused embedding backward), optimizer.
//    NCCL runs one process group's collectives in issue order, so the comm
//    stream follows the host: output_dist(i), input_dist(i+1), then the
//    backward's collectives.
//  - CUDA graphs (workload.cuda_graphs, and HugeCTR by default): per
//    iteration one graph launch issues all of the iteration's GPU work; no
//    per-op host cost, no synchronization.
// Deterministic; O(phases) per rank.
#pragma once

#include <string_view>
#include <vector>

#include "shardlab/planner/hardware_spec.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim {

// `count` ops named `op` (an entry of the host profile, PyTorch's name for the
// op: "aten::linear", "AddmmBackward0", "LookupFunction", ...), with
// `launches` kernel or collective launches each.
struct HostOpUse {
  std::string_view op;
  int count = 1;
  int launches = 1;
};

// What a host step costs on one rank.
struct HostStepCost {
  double host_ms = 0.0;  // the step's host time
  int launches = 0;      // launches spread over it
};

// A GPU phase a host step issues: of iteration i + iteration_offset.
struct HostIssue {
  Phase phase = Phase::kFwdCompute;
  int iteration_offset = 0;
};

struct HostStepShape {
  std::string_view name;  // as docs/host-model.md lists it, e.g. "forward: embedding lookup"
  Phase phase = Phase::kIterationOverhead;  // the host phase it records as
  std::vector<HostIssue> issues;            // GPU phases it launches
  // kHostSync: the GPU phases whose end it waits for.
  std::vector<HostIssue> reads;
};

// How the simulator runs the host: absent when the scenario has no host
// profile (workload.host), else eager or CUDA graphs.
enum class HostMode { kEager, kCudaGraphs };
HostMode host_mode(const planner::Scenario& scenario);
std::string_view to_string(HostMode m);  // "eager", "cuda_graphs"

// The steps of one iteration, in program order.
std::vector<HostStepShape> host_program_shape(HostMode mode, bool training);

// The ops step `step` runs on `rank` (docs/host-model.md "The op inventory"),
// from the plan's traffic (table groups, collectives the rank joins) and the
// dense model.
std::vector<HostOpUse> host_ops(const planner::Scenario& scenario, const IterationTraffic& traffic,
                                const HostStepShape& step, int rank);

// The ops' cost under `profile`, plus `given_ms` of host time. Fails
// (kInvalidArgument) naming the first op the profile has no cost for.
Result<HostStepCost> host_cost(const planner::HostProfile& profile,
                               const std::vector<HostOpUse>& ops, double given_ms = 0.0);

}  // namespace shardlab::sim
