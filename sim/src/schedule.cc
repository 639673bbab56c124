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
  explicit Builder(bool overlap) : overlap_(overlap) { schedule_.lanes.resize(overlap ? 2 : 1); }

  int add(Phase phase, int iteration, int part = 0) {
    TaskTemplate t;
    t.phase = phase;
    t.stream = is_comm_phase(phase) ? Stream::kComm : Stream::kCompute;
    t.lane = overlap_ && t.stream == Stream::kComm ? 1 : 0;
    t.iteration = iteration;
    t.part = part;
    const int index = static_cast<int>(schedule_.tasks.size());
    schedule_.tasks.push_back(std::move(t));
    schedule_.lanes[schedule_.tasks[index].lane].push_back(index);
    index_[{phase, iteration, part}] = index;
    return index;
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

  Schedule take() { return std::move(schedule_); }

 private:
  bool overlap_;
  Schedule schedule_;
  std::map<std::tuple<Phase, int, int>, int> index_;
};

}  // namespace

Schedule build_schedule(const ScheduleShape& shape) {
  const bool dense = shape.dense_model && shape.training;
  Builder b(shape.overlap);
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
    return b.take();
  }
  // Tasks are added in an order where every dependency already exists.
  b.add(Phase::kInputDist, 0);
  for (int i = 0; i < shape.iterations; ++i) {
    if (i + 1 < shape.iterations) b.add(Phase::kInputDist, i + 1);
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
    if (!shape.training) continue;
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
    if (dense) {
      // The optimizer step runs once backward() returned: every bucket reduced.
      const int step = b.add(Phase::kDenseOptimizer, i);
      b.wait(step, Phase::kDdpAllreduce, i, 1);
    }
  }
  return b.take();
}

}  // namespace shardlab::sim::detail
