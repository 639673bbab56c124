#include "critical_path.h"

#include <algorithm>

namespace shardlab::sim::detail {

std::vector<CriticalStep> critical_path(const Schedule& schedule, const Executor& executor,
                                        int ranks, int last_iteration, double window_start) {
  int rank = -1;
  int task = -1;
  double latest = -1.0;
  for (int r = 0; r < ranks; ++r) {
    for (int t = 0; t < static_cast<int>(schedule.tasks.size()); ++t) {
      if (schedule.tasks[t].iteration != last_iteration) continue;
      const double end = executor.timing(r, t).end;
      if (end > latest) {  // strict: the lowest rank and earliest task win ties
        latest = end;
        rank = r;
        task = t;
      }
    }
  }
  std::vector<CriticalStep> path;
  auto record = [&](int r, int t) {
    const TaskTiming& timing = executor.timing(r, t);
    if (timing.end - timing.start <= 0.0) return;
    path.push_back(
        {r, schedule.tasks[t].phase, schedule.tasks[t].iteration, timing.start, timing.end});
  };
  while (task >= 0) {
    record(rank, task);
    const TaskTiming& timing = executor.timing(rank, task);
    if (timing.end_gate_rank >= 0 && timing.end_gate_rank != rank) {
      // The collective waited for a later peer: follow that peer.
      rank = timing.end_gate_rank;
      record(rank, task);
    }
    const int gate = executor.timing(rank, task).start_gate;
    if (gate < 0 || executor.timing(rank, gate).end <= window_start) break;
    task = gate;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace shardlab::sim::detail
