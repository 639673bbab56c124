#include "schedule.h"

#include <array>
#include <map>

namespace shardlab::sim::detail {

bool is_comm_phase(Phase p) {
  return p == Phase::kInputDist || p == Phase::kOutputDist || p == Phase::kBwdOutputDist ||
         p == Phase::kDpAllreduce;
}

namespace {

class Builder {
 public:
  Builder(bool overlap) : overlap_(overlap) { schedule_.lanes.resize(overlap ? 2 : 1); }

  int add(Phase phase, int iteration) {
    TaskTemplate t;
    t.phase = phase;
    t.stream = is_comm_phase(phase) ? Stream::kComm : Stream::kCompute;
    t.lane = overlap_ && t.stream == Stream::kComm ? 1 : 0;
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

  Schedule take() { return std::move(schedule_); }

 private:
  bool overlap_;
  Schedule schedule_;
  std::map<std::pair<Phase, int>, int> index_;
};

}  // namespace

Schedule build_schedule(int iterations, bool overlap, bool training) {
  Builder b(overlap);
  if (!overlap) {
    for (int i = 0; i < iterations; ++i) {
      b.add(Phase::kInputDist, i);
      b.add(Phase::kPrefetch, i);
      b.add(Phase::kFwdCompute, i);
      b.add(Phase::kOutputDist, i);
      b.add(Phase::kDenseFwd, i);
      if (!training) continue;
      b.add(Phase::kDenseBwd, i);
      b.add(Phase::kBwdOutputDist, i);
      b.add(Phase::kBwdCompute, i);
      b.add(Phase::kDpAllreduce, i);
    }
    return b.take();
  }
  // Tasks are added in an order where every dependency already exists.
  b.add(Phase::kInputDist, 0);
  for (int i = 0; i < iterations; ++i) {
    if (i + 1 < iterations) b.add(Phase::kInputDist, i + 1);
    const int prefetch = b.add(Phase::kPrefetch, i);
    b.wait(prefetch, Phase::kInputDist, i);
    const int fwd = b.add(Phase::kFwdCompute, i);
    b.wait(fwd, Phase::kInputDist, i);
    b.wait(fwd, Phase::kDpAllreduce, i - 1);
    const int out = b.add(Phase::kOutputDist, i);
    b.wait(out, Phase::kFwdCompute, i);
    const int dense_fwd = b.add(Phase::kDenseFwd, i);
    b.wait(dense_fwd, Phase::kOutputDist, i);
    if (!training) continue;
    b.add(Phase::kDenseBwd, i);
    const int bwd_out = b.add(Phase::kBwdOutputDist, i);
    b.wait(bwd_out, Phase::kDenseBwd, i);
    const int bwd = b.add(Phase::kBwdCompute, i);
    b.wait(bwd, Phase::kBwdOutputDist, i);
    const int dp = b.add(Phase::kDpAllreduce, i);
    b.wait(dp, Phase::kBwdCompute, i);
  }
  return b.take();
}

}  // namespace shardlab::sim::detail
