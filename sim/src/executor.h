// Runs a Schedule on every rank: compute tasks take their durations, comm
// tasks run their phase's collectives one after the other, a task starts when
// its lane is free and its dependencies have ended. Records every task's start
// and end and what gated it, for the phase records and the critical path.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "schedule.h"
#include "shardlab/sim/collective_model.h"
#include "shardlab/sim/collectives.h"
#include "shardlab/sim/event_queue.h"
#include "shardlab/sim/flow_network.h"
#include "traffic.h"

namespace shardlab::sim::detail {

struct TaskTiming {
  double start = 0.0;
  double end = 0.0;
  // Task (same rank) that let this one start: the lane's previous task or a
  // dependency, by its end; or the anchor, by its start, when that came later
  // (ties: the lane's previous task, then the first dependency). -1: none.
  int start_gate = -1;
  bool started = false;
  bool done = false;
  bool wake_pending = false;  // a wake-up at its launch's ready time is queued
  // A GPU task launched by the host: the time its stream sat idle or its
  // kernels waited for the host's launches (before it started, and within
  // it); docs/host-model.md "GPU waiting for the host".
  double host_wait = 0.0;
};

// The host's side of the executor (schedule.h's host lane): per rank and
// host step, what the step costs, and the launch latency.
struct HostTiming {
  std::vector<HostStepCost> costs;  // [rank * steps + step]
  int steps = 0;
  double launch_latency_ms = 0.0;

  const HostStepCost& cost(int rank, int step) const {
    return costs[static_cast<size_t>(rank) * static_cast<size_t>(steps) +
                 static_cast<size_t>(step)];
  }
};

class Executor final : private EventHandler, private CollectiveListener {
 public:
  // `model` (may be null: plain flows) and `host` (null without a host lane)
  // must outlive the executor.
  Executor(const Schedule& schedule, const IterationTraffic& traffic,
           const std::vector<CollectiveSpec>& collectives, EventQueue& queue, FlowNetwork& network,
           const TopologyGraph& graph, const CollectiveModel* model,
           const HostTiming* host = nullptr);
  ~Executor();

  // Runs to completion; false if some task never ran (a schedule deadlock,
  // which would be a bug, or `stop` read true: stopped() says which).
  bool run(const std::atomic<bool>* stop = nullptr);
  bool stopped() const { return stopped_; }

  const TaskTiming& timing(int rank, int task) const { return timings_[index(rank, task)]; }

  // How a rank entered one collective of a comm task of the last iteration
  // (earlier iterations' are not kept): when, and whether it waited there for
  // its bucket to be ready within the anchor (else the join followed the
  // task's start or the end of its previous collective at once).
  struct Join {
    double at = -1.0;
    bool bucket_wait = false;
  };
  // The member that joined a collective last: its rank (the lowest among
  // equal times), when, and the collective's position in its task.
  struct LastJoin {
    int rank = -1;
    double at = -1.0;
    int position = -1;
  };
  // Collectives the rank runs in the task, in the order it runs them.
  int collective_count(int rank, int task) const;
  // `position` < collective_count(rank, task); the task is of the last iteration.
  const Join& join(int rank, int task, int position) const;
  LastJoin last_join(int rank, int task, int position) const;
  // Bytes `rank` sends in task `task`'s collectives, and whether it has any.
  double task_bytes(int rank, int task) const;
  bool has_collectives(int rank, int task) const;

 private:
  struct Membership {
    int collective;
    int member;
  };
  struct RankState {
    std::vector<size_t> cursor;      // next task per lane
    std::vector<int> running_comm;   // comm task running per lane, -1 if none
    std::vector<int> comm_position;  // per lane: collective of the running comm task
  };

  size_t index(int rank, int task) const {
    return static_cast<size_t>(rank) * schedule_.tasks.size() + task;
  }
  size_t slot(int rank, Phase phase, int part) const;  // into memberships_ and joins_
  const std::vector<Membership>& memberships(int rank, Phase phase, int part) const;
  const std::vector<Membership>& memberships(int rank, const TaskTemplate& t) const {
    return memberships(rank, t.phase, t.part);
  }
  double compute_duration(int rank, Phase phase) const;
  // When the host's launch lets GPU task `task` start on `rank` (its issuer
  // must have started), and the earliest end its last launch allows for
  // `work` ms of kernels.
  double launch_ready(int rank, const TaskTemplate& t) const;
  double launch_bound_end(int rank, const TaskTemplate& t, double work) const;
  void advance(int rank);
  bool try_start(int rank, int lane);
  void join_next(int rank, int task);
  void join_now(int rank, int task, bool bucket_wait);
  void complete(int rank, int task);
  Collective& instance(int iteration, int collective);
  void on_event(int64_t rank, int64_t task) override;
  void on_member_done(int64_t tag, int member) override;

  const Schedule& schedule_;
  const IterationTraffic& traffic_;
  const std::vector<CollectiveSpec>& collectives_;
  EventQueue& queue_;
  FlowNetwork& network_;
  const TopologyGraph& graph_;
  const CollectiveModel* model_;
  const HostTiming* host_;
  int ranks_;
  std::array<int, kNumPhases> lane_of_phase_{};
  std::vector<TaskTiming> timings_;
  std::vector<RankState> state_;
  // memberships_[(rank * kPhases + phase) * kParts + part]: the collectives
  // the rank runs in that phase's task `part`.
  std::vector<std::vector<Membership>> memberships_;
  // Parallel to memberships_: the last iteration's joins.
  std::vector<std::vector<Join>> joins_;
  int last_iteration_ = 0;
  // Per collective instance (iteration * collectives + c), created when the
  // first member joins and kept to the end: an instance may still be on the
  // call stack when its last member finishes.
  std::vector<std::unique_ptr<Collective>> instances_;
  // Per collective instance: the member that joined last (lowest rank among equal times).
  std::vector<double> last_join_time_;
  std::vector<int> last_join_rank_;
  bool stopped_ = false;  // run() was stopped by its flag
};

}  // namespace shardlab::sim::detail
