#include "schedule.h"

#include <array>
#include <map>

namespace shardlab::sim::detail {

bool is_comm_phase(Phase p) {
  return p == Phase::kInputDist || p == Phase::kOutputDist || p == Phase::kBwdOutputDist ||
         p == Phase::kDpAllreduce || p == Phase::kDdpAllreduce;
}

Stream stream_of(Phase p) {
  if (p == Phase::kDdpAllreduce) return Stream::kDdp;
  return is_comm_phase(p) ? Stream::kComm : Stream::kCompute;
}

namespace {

class Builder {
 public:
  Builder(bool overlap, int lanes) : overlap_(overlap) {
    schedule_.lanes.resize(overlap ? lanes : 1);
  }

  int add(Phase phase, int iteration) {
    TaskTemplate t;
    t.phase = phase;
    t.stream = stream_of(phase);
    t.lane = overlap_ ? static_cast<int>(t.stream) : 0;
    t.iteration = iteration;
    const int index = static_cast<int>(schedule_.tasks.size());
    schedule_.tasks.push_back(std::move(t));
    schedule_.lanes[schedule_.tasks[index].lane].push_back(index);
    index_[{phase, iteration}] = index;
    return index;
  }

  // `task` waits for (phase, iteration) when that task exists.
  void wait(int task, Phase phase, int iteration) {
    auto it = index_.find({phase, iteration});
    if (it != index_.end()) schedule_.tasks[task].deps.push_back(it->second);
  }

  void anchor(int task, Phase phase, int iteration) {
    auto it = index_.find({phase, iteration});
    if (it != index_.end()) schedule_.tasks[task].anchor = it->second;
  }

  Schedule take() { return std::move(schedule_); }

 private:
  bool overlap_;
  Schedule schedule_;
  std::map<std::pair<Phase, int>, int> index_;
};

}  // namespace

Schedule build_schedule(const ScheduleShape& shape) {
  const bool ddp = shape.ddp && shape.training;
  Builder b(shape.overlap, ddp ? 3 : 2);
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
      if (ddp) b.add(Phase::kDdpAllreduce, i);
      b.add(Phase::kBwdOutputDist, i);
      b.add(Phase::kBwdCompute, i);
      b.add(Phase::kDpAllreduce, i);
      if (ddp) b.add(Phase::kDenseOptimizer, i);
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
    if (ddp) {
      const int all_reduce = b.add(Phase::kDdpAllreduce, i);
      b.anchor(all_reduce, Phase::kDenseBwd, i);
    }
    const int bwd_out = b.add(Phase::kBwdOutputDist, i);
    b.wait(bwd_out, Phase::kDenseBwd, i);
    const int bwd = b.add(Phase::kBwdCompute, i);
    b.wait(bwd, Phase::kBwdOutputDist, i);
    const int dp = b.add(Phase::kDpAllreduce, i);
    b.wait(dp, Phase::kBwdCompute, i);
    if (ddp) {
      // The optimizer step runs once backward() returned: every bucket reduced.
      const int step = b.add(Phase::kDenseOptimizer, i);
      b.wait(step, Phase::kDdpAllreduce, i);
    }
  }
  return b.take();
}

}  // namespace shardlab::sim::detail
