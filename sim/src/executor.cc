#include "executor.h"

#include <algorithm>
#include <utility>

#include "estimate_collective.h"

namespace shardlab::sim::detail {
namespace {

constexpr int kPhases = kNumPhases;
constexpr int kParts = 2;  // CollectiveSpec::part

int max_iteration(const Schedule& s) {
  int m = 0;
  for (const TaskTemplate& t : s.tasks) m = std::max(m, t.iteration);
  return m;
}

}  // namespace

Executor::Executor(const Schedule& schedule, const IterationTraffic& traffic,
                   const std::vector<CollectiveSpec>& collectives, EventQueue& queue,
                   FlowNetwork& network, const TopologyGraph& graph, const CollectiveModel* model,
                   const HostTiming* host)
    : schedule_(schedule),
      traffic_(traffic),
      collectives_(collectives),
      queue_(queue),
      network_(network),
      graph_(graph),
      model_(model),
      host_(host),
      ranks_(static_cast<int>(traffic.ranks.size())) {
  timings_.resize(static_cast<size_t>(ranks_) * schedule_.tasks.size());
  state_.resize(static_cast<size_t>(ranks_));
  for (RankState& s : state_) {
    s.cursor.assign(schedule_.lanes.size(), 0);
    s.running_comm.assign(schedule_.lanes.size(), -1);
    s.comm_position.assign(schedule_.lanes.size(), 0);
  }
  for (const TaskTemplate& t : schedule_.tasks) {
    if (t.stream != Stream::kHost) lane_of_phase_[static_cast<size_t>(t.phase)] = t.lane;
  }
  memberships_.resize(static_cast<size_t>(ranks_) * kPhases * kParts);
  for (int c = 0; c < static_cast<int>(collectives_.size()); ++c) {
    const CollectiveSpec& spec = collectives_[c];
    for (int m = 0; m < static_cast<int>(spec.members.size()); ++m) {
      memberships_[slot(spec.members[m], spec.phase, spec.part)].push_back({c, m});
    }
  }
  joins_.resize(memberships_.size());
  for (size_t at = 0; at < memberships_.size(); ++at) joins_[at].resize(memberships_[at].size());
  last_iteration_ = max_iteration(schedule_);
  const size_t instances = static_cast<size_t>(last_iteration_ + 1) * collectives_.size();
  instances_.resize(instances);
  last_join_time_.assign(instances, -1.0);
  last_join_rank_.assign(instances, -1);
}

Executor::~Executor() = default;

size_t Executor::slot(int rank, Phase phase, int part) const {
  return (static_cast<size_t>(rank) * kPhases + static_cast<int>(phase)) * kParts +
         static_cast<size_t>(part);
}

const std::vector<Executor::Membership>& Executor::memberships(int rank, Phase phase,
                                                               int part) const {
  return memberships_[slot(rank, phase, part)];
}

bool Executor::has_collectives(int rank, int task) const {
  return !memberships(rank, schedule_.tasks[static_cast<size_t>(task)]).empty();
}

double Executor::task_bytes(int rank, int task) const {
  double bytes = 0.0;
  for (const Membership& m : memberships(rank, schedule_.tasks[static_cast<size_t>(task)])) {
    bytes += collectives_[m.collective].bytes_sent(m.member);
  }
  return bytes;
}

int Executor::collective_count(int rank, int task) const {
  return static_cast<int>(memberships(rank, schedule_.tasks[static_cast<size_t>(task)]).size());
}

const Executor::Join& Executor::join(int rank, int task, int position) const {
  const TaskTemplate& t = schedule_.tasks[static_cast<size_t>(task)];
  return joins_[slot(rank, t.phase, t.part)][static_cast<size_t>(position)];
}

Executor::LastJoin Executor::last_join(int rank, int task, int position) const {
  const TaskTemplate& t = schedule_.tasks[static_cast<size_t>(task)];
  const int c = memberships(rank, t)[static_cast<size_t>(position)].collective;
  const size_t i = static_cast<size_t>(t.iteration) * collectives_.size() + c;
  LastJoin last{.rank = last_join_rank_[i], .at = last_join_time_[i]};
  // A rank's memberships are in collective order.
  const std::vector<Membership>& theirs = memberships(last.rank, t);
  const auto it = std::lower_bound(theirs.begin(), theirs.end(), c,
                                   [](const Membership& m, int x) { return m.collective < x; });
  last.position = static_cast<int>(it - theirs.begin());
  return last;
}

double Executor::compute_duration(int rank, Phase phase) const {
  const RankWork& w = traffic_.ranks[static_cast<size_t>(rank)];
  switch (phase) {
    case Phase::kPrefetch:
      return w.prefetch_ms;
    case Phase::kFwdCompute:
      return w.fwd_ms;
    case Phase::kDenseFwd:
      return w.dense_fwd_ms;
    case Phase::kDenseBwd:
      return w.dense_bwd_ms;
    case Phase::kBwdCompute:
      return w.bwd_ms;
    case Phase::kIterationOverhead:
      return w.iteration_overhead_ms;
    case Phase::kDenseOptimizer:
      return w.dense_optimizer_ms;
    default:
      return 0.0;
  }
}

bool Executor::run(const std::atomic<bool>* stop) {
  for (int r = 0; r < ranks_; ++r) advance(r);
  if (!queue_.run(stop)) {
    stopped_ = true;
    return false;
  }
  for (const TaskTiming& t : timings_) {
    if (!t.done) return false;
  }
  return true;
}

void Executor::advance(int rank) {
  bool progress = true;
  while (progress) {
    progress = false;
    for (int lane = 0; lane < static_cast<int>(schedule_.lanes.size()); ++lane) {
      while (try_start(rank, lane)) progress = true;
    }
  }
}

double Executor::launch_ready(int rank, const TaskTemplate& t) const {
  const TaskTemplate& issuer = schedule_.tasks[static_cast<size_t>(t.issuer)];
  const HostStepCost& c = host_->cost(rank, issuer.host_step);
  // Launches spread evenly over the step: the first after one launch's share.
  const double lead = c.launches > 0 ? c.host_ms / c.launches : c.host_ms;
  return timings_[index(rank, t.issuer)].start + lead + host_->launch_latency_ms;
}

double Executor::launch_bound_end(int rank, const TaskTemplate& t, double work) const {
  const TaskTemplate& issuer = schedule_.tasks[static_cast<size_t>(t.issuer)];
  const HostStepCost& c = host_->cost(rank, issuer.host_step);
  // The last launch leaves with the step's end; its kernel's share of the
  // phase follows it (host_model.h).
  const double last_kernel = c.launches > 0 ? work / c.launches : work;
  return timings_[index(rank, t.issuer)].start + c.host_ms + host_->launch_latency_ms + last_kernel;
}

// Starts the lane's next task if its lane is free and its dependencies ended.
// Returns true when the task also finished at once (zero duration), so the
// caller should look again.
bool Executor::try_start(int rank, int lane) {
  RankState& s = state_[static_cast<size_t>(rank)];
  const std::vector<int>& order = schedule_.lanes[static_cast<size_t>(lane)];
  if (s.cursor[lane] >= order.size()) return false;
  const int task = order[s.cursor[lane]];
  TaskTiming& timing = timings_[index(rank, task)];
  if (s.cursor[lane] > 0) {
    const int previous = order[s.cursor[lane] - 1];
    if (!timings_[index(rank, previous)].done) return false;
    timing.start_gate = previous;
  }
  const TaskTemplate& tmpl = schedule_.tasks[static_cast<size_t>(task)];
  const Phase phase = tmpl.phase;
  const bool host_task = tmpl.stream == Stream::kHost;
  // A comm phase in which this rank runs no collective does not exist on its
  // stream: it waits for nothing (a stream does not wait for gradients that
  // no all-reduce needs).
  const bool absent = !host_task && is_comm_phase(phase) && memberships(rank, tmpl).empty();
  static const std::vector<int> kNoDeps;
  for (int dep : absent ? kNoDeps : tmpl.deps) {
    const TaskTiming& d = timings_[index(rank, dep)];
    if (!d.done) return false;
    if (timing.start_gate < 0 || d.end > timings_[index(rank, timing.start_gate)].end)
      timing.start_gate = dep;
  }
  if (!absent && tmpl.anchor >= 0) {
    const TaskTiming& anchor = timings_[index(rank, tmpl.anchor)];
    if (!anchor.started) return false;
    if (timing.start_gate < 0 || anchor.start > timings_[index(rank, timing.start_gate)].end)
      timing.start_gate = tmpl.anchor;
  }
  // Not before the host has launched it.
  double waited_for_host = 0.0;
  if (!absent && tmpl.issuer >= 0) {
    if (!timings_[index(rank, tmpl.issuer)].started) return false;
    const double ready = launch_ready(rank, tmpl);
    if (ready > queue_.now()) {
      if (!timing.wake_pending) {
        timing.wake_pending = true;
        queue_.schedule(ready, this, rank, static_cast<int64_t>(schedule_.tasks.size()) + task);
      }
      return false;
    }
    const double others = timing.start_gate < 0 ? 0.0
                          : timing.start_gate == tmpl.anchor
                              ? timings_[index(rank, tmpl.anchor)].start
                              : timings_[index(rank, timing.start_gate)].end;
    if (ready > others) {
      timing.start_gate = tmpl.issuer;
      waited_for_host = ready - others;
    }
  }
  ++s.cursor[lane];
  timing.start = queue_.now();
  timing.started = true;
  if (absent) {
    complete(rank, task);
    return true;
  }
  if (host_task) {
    const double duration = host_->cost(rank, tmpl.host_step).host_ms;
    if (duration <= 0.0) {
      complete(rank, task);
      return true;
    }
    queue_.schedule(queue_.now() + duration, this, rank, task);
    return false;
  }
  if (is_comm_phase(phase)) {
    s.running_comm[lane] = task;
    s.comm_position[lane] = 0;
    join_next(rank, task);
    return false;
  }
  const double work = compute_duration(rank, phase);
  if (work <= 0.0) {
    complete(rank, task);
    return true;
  }
  double end = queue_.now() + work;
  if (tmpl.issuer >= 0) {
    end = std::max(end, launch_bound_end(rank, tmpl, work));
    // The stretch is end - now - work, 0 when it rounds below.
    timing.host_wait = waited_for_host + std::max(0.0, end - queue_.now() - work);
  }
  queue_.schedule(end, this, rank, task);
  return false;
}

Collective& Executor::instance(int iteration, int c) {
  const size_t i = static_cast<size_t>(iteration) * collectives_.size() + c;
  if (!instances_[i]) {
    const CollectiveSpec& spec = collectives_[c];
    const int64_t tag = static_cast<int64_t>(i);
    if (spec.kind == CollectiveKind::kEstimate) {
      instances_[i] =
          make_estimate_collective(network_, queue_, spec.members, spec.durations_ms, this, tag);
    } else {
      instances_[i] = make_collective(network_, spec, model_, this, tag);
    }
  }
  return *instances_[i];
}

// Joins the task's next collective, or, for a DDP bucket not ready yet,
// schedules the join for when the anchor task has produced it.
void Executor::join_next(int rank, int task) {
  RankState& s = state_[static_cast<size_t>(rank)];
  const TaskTemplate& t = schedule_.tasks[static_cast<size_t>(task)];
  const Membership& m = memberships(rank, t)[static_cast<size_t>(s.comm_position[t.lane])];
  const CollectiveSpec& spec = collectives_[m.collective];
  if (spec.ready_fraction >= 0.0 && t.anchor >= 0) {
    const TaskTiming& anchor = timings_[index(rank, t.anchor)];
    const double ready = anchor.start + spec.ready_fraction *
                                            compute_duration(rank, schedule_.tasks[t.anchor].phase);
    if (ready > queue_.now()) {
      queue_.schedule(ready, this, rank, -1 - static_cast<int64_t>(task));
      return;
    }
  }
  join_now(rank, task, false);
}

void Executor::join_now(int rank, int task, bool bucket_wait) {
  RankState& s = state_[static_cast<size_t>(rank)];
  const TaskTemplate& t = schedule_.tasks[static_cast<size_t>(task)];
  const Membership& m = memberships(rank, t)[static_cast<size_t>(s.comm_position[t.lane])];
  const size_t i = static_cast<size_t>(t.iteration) * collectives_.size() + m.collective;
  // A task that waited for its first bucket starts when it joins it.
  if (s.comm_position[t.lane] == 0 && t.anchor >= 0)
    timings_[index(rank, task)].start = queue_.now();
  if (t.iteration == last_iteration_) {
    joins_[slot(rank, t.phase, t.part)][static_cast<size_t>(s.comm_position[t.lane])] = {
        queue_.now(), bucket_wait};
  }
  if (queue_.now() > last_join_time_[i] ||
      (queue_.now() == last_join_time_[i] && rank < last_join_rank_[i])) {
    last_join_time_[i] = queue_.now();
    last_join_rank_[i] = rank;
  }
  instance(t.iteration, m.collective).join(m.member);
}

void Executor::complete(int rank, int task) {
  TaskTiming& t = timings_[index(rank, task)];
  t.end = queue_.now();
  t.done = true;
}

// task >= 0: a compute or host task ends; task < 0: task -1 - task joins a
// bucket that is ready now; task >= tasks: the host's launch of task - tasks
// is ready.
void Executor::on_event(int64_t rank, int64_t task) {
  if (task < 0) {
    join_now(static_cast<int>(rank), static_cast<int>(-1 - task), true);
    return;
  }
  const int64_t tasks = static_cast<int64_t>(schedule_.tasks.size());
  if (task >= tasks) {
    timings_[index(static_cast<int>(rank), static_cast<int>(task - tasks))].wake_pending = false;
    advance(static_cast<int>(rank));
    return;
  }
  complete(static_cast<int>(rank), static_cast<int>(task));
  advance(static_cast<int>(rank));
}

void Executor::on_member_done(int64_t tag, int member) {
  const size_t i = static_cast<size_t>(tag);
  const int c = static_cast<int>(i % collectives_.size());
  const int rank = collectives_[c].members[static_cast<size_t>(member)];
  RankState& s = state_[static_cast<size_t>(rank)];
  const int lane = lane_of_phase_[static_cast<size_t>(collectives_[c].phase)];
  const int task = s.running_comm[lane];
  // An estimate collective keeps the rank busy only for its own estimate:
  // the wait for the last member is idle time, as in TorchRec's sum.
  if (collectives_[c].kind == CollectiveKind::kEstimate) {
    timings_[index(rank, task)].start =
        queue_.now() - collectives_[c].durations_ms[static_cast<size_t>(member)];
  }
  ++s.comm_position[lane];
  if (s.comm_position[lane] <
      static_cast<int>(memberships(rank, schedule_.tasks[static_cast<size_t>(task)]).size())) {
    join_next(rank, task);
    return;
  }
  s.running_comm[lane] = -1;
  complete(rank, task);
  advance(rank);
}

}  // namespace shardlab::sim::detail
