#include "schedule.h"

#include <map>
#include <tuple>

namespace shardlab::sim::detail {

bool is_comm_phase(Phase p) {
  return p == Phase::kInputDist || p == Phase::kOutputDist || p == Phase::kBwdOutputDist ||
         p == Phase::kDpAllreduce || p == Phase::kDdpAllreduce;
}

namespace {

class Builder {
 public:
  Builder(bool overlap, bool host) : overlap_(overlap) {
    schedule_.lanes.resize(overlap ? 2 : 1);
    if (host) {
      schedule_.host_lane = static_cast<int>(schedule_.lanes.size());
      schedule_.lanes.emplace_back();
    }
  }

  int add(Phase phase, int iteration, int part = 0) {
    TaskTemplate t;
    t.phase = phase;
    t.stream = is_comm_phase(phase) ? Stream::kComm : Stream::kCompute;
    t.lane = overlap_ && t.stream == Stream::kComm ? 1 : 0;
    t.iteration = iteration;
    t.part = part;
    const int index = push(std::move(t));
    index_[{phase, iteration, part}] = index;
    return index;
  }

  // Step `step` of the host program in iteration `iteration`.
  int add_host(const HostStepShape& shape, int step, int iteration) {
    TaskTemplate t;
    t.phase = shape.phase;
    t.stream = Stream::kHost;
    t.lane = schedule_.host_lane;
    t.iteration = iteration;
    t.host_step = step;
    return push(std::move(t));
  }

  // `task` waits for (phase, iteration, part) when that task exists.
  void wait(int task, Phase phase, int iteration, int part = 0) {
    auto it = index_.find({phase, iteration, part});
    if (it != index_.end()) schedule_.tasks[task].deps.push_back(it->second);
  }

  // `task` may start once (phase, iteration) has started.
  void anchor(int task, Phase phase, int iteration) {
    auto it = index_.find({phase, iteration, 0});
    if (it != index_.end()) schedule_.tasks[task].anchor = it->second;
  }

  // Every part of (phase, iteration) is launched by host task `issuer`.
  void issued_by(Phase phase, int iteration, int issuer) {
    for (int part = 0; part < 2; ++part) {
      auto it = index_.find({phase, iteration, part});
      if (it != index_.end()) schedule_.tasks[it->second].issuer = issuer;
    }
  }

  Schedule take() { return std::move(schedule_); }

 private:
  int push(TaskTemplate t) {
    const int index = static_cast<int>(schedule_.tasks.size());
    const int lane = t.lane;
    schedule_.tasks.push_back(std::move(t));
    schedule_.lanes[static_cast<size_t>(lane)].push_back(index);
    return index;
  }

  bool overlap_;
  Schedule schedule_;
  std::map<std::tuple<Phase, int, int>, int> index_;
};

// The host program's tasks, iteration by iteration, linked to the GPU tasks
// they launch and the ones they read.
void add_host_program(const std::vector<HostStepShape>& program, int iterations, Builder& b) {
  for (int i = 0; i < iterations; ++i) {
    for (int k = 0; k < static_cast<int>(program.size()); ++k) {
      const HostStepShape& step = program[static_cast<size_t>(k)];
      const int task = b.add_host(step, k, i);
      for (const HostIssue& issue : step.issues) {
        b.issued_by(issue.phase, i + issue.iteration_offset, task);
      }
      for (const HostIssue& read : step.reads) {
        b.wait(task, read.phase, i + read.iteration_offset);
      }
    }
  }
}

}  // namespace

Schedule build_schedule(const ScheduleShape& shape) {
  const bool dense = shape.dense_model && shape.training;
  Builder b(shape.overlap, shape.host != nullptr);
  if (!shape.overlap) {
    for (int i = 0; i < shape.iterations; ++i) {
      if (shape.iteration_overhead) b.add(Phase::kIterationOverhead, i);
      b.add(Phase::kInputDist, i);
      b.add(Phase::kPrefetch, i);
      b.add(Phase::kFwdCompute, i);
      b.add(Phase::kOutputDist, i);
      b.add(Phase::kDenseFwd, i);
      if (!shape.training) continue;
      b.add(Phase::kDenseBwd, i);
      if (dense) b.add(Phase::kDdpAllreduce, i, 0);
      b.add(Phase::kBwdOutputDist, i);
      if (dense) b.add(Phase::kDdpAllreduce, i, 1);
      b.add(Phase::kBwdCompute, i);
      b.add(Phase::kDpAllreduce, i);
      if (dense) b.add(Phase::kDenseOptimizer, i);
    }
    if (shape.host) add_host_program(*shape.host, shape.iterations, b);
    return b.take();
  }
  // Tasks are added in an order where every dependency already exists.
  b.add(Phase::kInputDist, 0);
  for (int i = 0; i < shape.iterations; ++i) {
    // Eagerly, the next batch's input dist is issued after this forward.
    if (i + 1 < shape.iterations && !shape.eager) b.add(Phase::kInputDist, i + 1);
    if (shape.iteration_overhead) b.add(Phase::kIterationOverhead, i);
    const int prefetch = b.add(Phase::kPrefetch, i);
    b.wait(prefetch, Phase::kInputDist, i);
    const int fwd = b.add(Phase::kFwdCompute, i);
    b.wait(fwd, Phase::kInputDist, i);
    b.wait(fwd, Phase::kDpAllreduce, i - 1);
    const int out = b.add(Phase::kOutputDist, i);
    b.wait(out, Phase::kFwdCompute, i);
    const int dense_fwd = b.add(Phase::kDenseFwd, i);
    b.wait(dense_fwd, Phase::kOutputDist, i);
    if (!shape.training) {
      if (i + 1 < shape.iterations && shape.eager) b.add(Phase::kInputDist, i + 1);
      continue;
    }
    b.add(Phase::kDenseBwd, i);
    if (dense) b.anchor(b.add(Phase::kDdpAllreduce, i, 0), Phase::kDenseBwd, i);
    const int bwd_out = b.add(Phase::kBwdOutputDist, i);
    if (dense) {
      // The dense model says when in its backward the embedding gradients
      // exist; without one, when the dense backward ends.
      b.anchor(bwd_out, Phase::kDenseBwd, i);
      b.anchor(b.add(Phase::kDdpAllreduce, i, 1), Phase::kDenseBwd, i);
    } else {
      b.wait(bwd_out, Phase::kDenseBwd, i);
    }
    const int bwd = b.add(Phase::kBwdCompute, i);
    b.wait(bwd, Phase::kBwdOutputDist, i);
    const int dp = b.add(Phase::kDpAllreduce, i);
    b.wait(dp, Phase::kBwdCompute, i);
    // Eagerly, the next batch's indices all-to-all is issued by its forward's
    // wait, after this backward's collectives: the input dist runs there.
    if (i + 1 < shape.iterations && shape.eager) b.add(Phase::kInputDist, i + 1);
    if (dense) {
      // The optimizer step runs once backward() returned: every bucket reduced.
      const int step = b.add(Phase::kDenseOptimizer, i);
      b.wait(step, Phase::kDdpAllreduce, i, 1);
    }
  }
  if (shape.host) add_host_program(*shape.host, shape.iterations, b);
  return b.take();
}

}  // namespace shardlab::sim::detail
