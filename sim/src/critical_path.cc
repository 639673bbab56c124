#include "critical_path.h"

#include <algorithm>

namespace shardlab::sim::detail {
namespace {

// The path from its end back, one part at a time (critical_path.h).
class Walk {
 public:
  Walk(const Schedule& schedule, double window_start)
      : schedule_(schedule), window_start_(window_start) {}

  // Records `task` on `rank` over [start, end], cut at the window's start;
  // false when the path reached the window's start.
  bool add(int rank, int task, double start, double end) {
    const TaskTemplate& t = schedule_.tasks[static_cast<size_t>(task)];
    const double from = std::max(start, window_start_);
    if (end > from) {
      CriticalStep* last = steps_.empty() ? nullptr : &steps_.back();
      if (last != nullptr && last->rank == rank && last->phase == t.phase &&
          last->stream == t.stream && last->iteration == t.iteration && last->start_ms == end) {
        last->start_ms = from;
      } else {
        steps_.push_back({rank, t.phase, t.stream, t.iteration, from, end});
      }
    }
    return start > window_start_;
  }

  std::vector<CriticalStep> take() {
    std::reverse(steps_.begin(), steps_.end());
    return std::move(steps_);
  }

 private:
  const Schedule& schedule_;
  double window_start_;
  std::vector<CriticalStep> steps_;  // latest first
};

}  // namespace

std::vector<CriticalStep> critical_path(const Schedule& schedule, const Executor& executor,
                                        int ranks, int last_iteration, double window_start) {
  int rank = -1;
  int task = -1;
  double at = -1.0;
  for (int r = 0; r < ranks; ++r) {
    for (int t = 0; t < static_cast<int>(schedule.tasks.size()); ++t) {
      if (schedule.tasks[t].iteration != last_iteration) continue;
      const double end = executor.timing(r, t).end;
      if (end > at) {  // strict: the lowest rank and earliest task win ties
        at = end;
        rank = r;
        task = t;
      }
    }
  }
  Walk walk(schedule, window_start);
  // Invariant: `at` is where the part of (rank, task) being walked ends.
  while (task >= 0) {
    const TaskTemplate& tmpl = schedule.tasks[static_cast<size_t>(task)];
    // Only the last iteration's joins are kept; earlier tasks end by the
    // window's start and are walked whole.
    const int collectives = tmpl.iteration == last_iteration && tmpl.stream == Stream::kComm
                                ? executor.collective_count(rank, task)
                                : 0;
    int gate = -1;
    if (collectives == 0) {
      const double start = executor.timing(rank, task).start;
      if (!walk.add(rank, task, start, at)) break;
      at = start;
      gate = executor.timing(rank, task).start_gate;
    } else {
      bool reached_window = false;
      for (int position = collectives - 1;; --position) {
        const Executor::LastJoin last = executor.last_join(rank, task, position);
        // A peer that joined after this rank, while this rank's part still
        // ran, bounded its end: the collective is the peer's part.
        if (last.rank != rank && last.at > executor.join(rank, task, position).at &&
            last.at <= at) {
          rank = last.rank;
          position = last.position;
        }
        const Executor::Join& joined = executor.join(rank, task, position);
        if (!walk.add(rank, task, joined.at, at)) {
          reached_window = true;
          break;
        }
        at = joined.at;
        if (joined.bucket_wait) {
          gate = tmpl.anchor;  // up to where the anchor made the bucket ready
          break;
        }
        if (position == 0) {
          gate = executor.timing(rank, task).start_gate;
          break;
        }
      }
      if (reached_window) break;
    }
    task = gate;
  }
  return walk.take();
}

}  // namespace shardlab::sim::detail
