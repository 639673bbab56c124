// simulate(): builds the topology graph, the iteration's traffic and the
// schedule, runs them on the event engine, and turns the task timings into
// the result (phases, busy times, critical path, link use).
#include "shardlab/sim/simulation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <new>
#include <string>

#include "critical_path.h"
#include "executor.h"
#include "schedule.h"
#include "shardlab/planner/limits.h"
#include "shardlab/planner/memory_budget.h"
#include "shardlab/planner/topology.h"
#include "shardlab/sim/collective_model.h"
#include "shardlab/sim/flow_network.h"
#include "shardlab/sim/host_model.h"
#include "shardlab/sim/simulation_memory.h"
#include "traffic.h"

namespace shardlab::sim {
namespace {

Status check_workload(const planner::Scenario& s) {
  const size_t ranks = static_cast<size_t>(s.topology.world_size);
  auto check = [&](const std::vector<double>& v, const char* field) -> Status {
    if (v.size() > 1 && v.size() != ranks) {
      return Status::invalid_argument(std::string("workload.") + field + ": " +
                                      std::to_string(v.size()) + " values but the topology has " +
                                      std::to_string(ranks) +
                                      " ranks (give one value for all ranks, or one per rank)");
    }
    return Status::ok();
  };
  if (Status st = check(s.workload.dense_fwd_ms, "dense_fwd_ms"); !st) return st;
  return check(s.workload.dense_bwd_ms, "dense_bwd_ms");
}

// Peak bytes a simulation holds, from counts alone (docs/simulation.md
// "Memory"): the topology graph (every vertex and link with its name, the
// flow network's state per link), the route cache (every source's route to
// every rank, filled when the collectives run as flows), the executor's timing per rank and
// task, the phase records, and the JSON and trace written from them. Each
// per-item cost is the size of the structures holding the item, rounded up.
int64_t simulation_bytes(const planner::Scenario& s, const SimOptions& options) {
  const int64_t ranks = s.topology.world_size;
  const int64_t local =
      s.topology.local_world_size.value_or(0) > 0 ? *s.topology.local_world_size : ranks;
  const int64_t hosts = (ranks + local - 1) / local;
  int64_t nics = 0;
  for (int64_t h = 0; h < hosts; ++h) {
    const auto& over = s.fabric.hosts;
    const bool own =
        static_cast<size_t>(h) < over.size() && over[static_cast<size_t>(h)].nics.has_value();
    nics += own ? *over[static_cast<size_t>(h)].nics
                : (s.fabric.nics_per_host > 0 ? s.fabric.nics_per_host : local);
  }
  const bool network = hosts > 1;
  const int64_t vertices = ranks + hosts + (network ? nics + hosts + 1 : 0);
  const int64_t links = 2 * ranks + (network ? 2 * ranks + 2 * nics + 2 * hosts : 0);
  constexpr int64_t kVertexBytes = 160;  // Vertex, its name, the graph's vertex, BFS scratch
  constexpr int64_t kLinkBytes =
      256;  // Link, its name, the graph's edge, the flow network's link state
  // Tasks per rank: the schedule's phases for every iteration.
  // Tasks per rank: the schedule's phases for every iteration, and the host
  // program's steps.
  const int64_t tasks =
      static_cast<int64_t>(std::max(options.iterations, 1)) * (s.workload.host ? 22 : 10);
  constexpr int64_t kTaskBytes =
      static_cast<int64_t>(sizeof(detail::TaskTiming)) + 64;  // timing, membership, join
  const int64_t phase_bytes = options.record_phases
                                  ? static_cast<int64_t>(sizeof(PhaseRecord)) + 400
                                  : 0;  // + JSON / trace
  return vertices * kVertexBytes + links * kLinkBytes + ranks * tasks * (kTaskBytes + phase_bytes);
}

// The route cache collectives running as flows fill: a route from every
// rank to every other (TopologyGraph::route); none when every collective is
// solved in closed form.
int64_t route_cache_bytes(const TopologyGraph& graph, const SimOptions& options) {
  if (FlowNetwork::closed_form_exact(graph, options.contention, options.closed_form)) return 0;
  constexpr int64_t kRouteBytes = TopologyGraph::kMaxRouteLinks * 4 + 1;
  const int64_t ranks = graph.num_ranks();
  return ranks * ranks * kRouteBytes;
}

// The graph, the timings and the records, checked before anything is built.
Status check_base_memory(const planner::Scenario& scenario, const SimOptions& options) {
  return planner::check_memory(
      "simulating " + std::to_string(scenario.topology.world_size) + " ranks",
      simulation_bytes(scenario, options),
      "simulate fewer ranks or NICs per host, or fewer iterations");
}

// The route cache's check, once the graph is built (none when closed forms
// need no routes).
Status check_route_memory(const TopologyGraph& graph, const SimOptions& options) {
  if (route_cache_bytes(graph, options) == 0) return Status::ok();
  return planner::check_memory(
      "simulating collectives over " + std::to_string(graph.num_ranks()) +
          " ranks as flows (a route between every two ranks)",
      route_cache_bytes(graph, options),
      "simulate fewer ranks, or with --no-contention (closed forms need no routes)");
}

// End of each iteration: the latest end of its tasks over all ranks.
std::vector<double> iteration_ends(const detail::Schedule& schedule, const detail::Executor& ex,
                                   int ranks, int iterations) {
  std::vector<double> ends(static_cast<size_t>(iterations), 0.0);
  for (int r = 0; r < ranks; ++r) {
    for (int t = 0; t < static_cast<int>(schedule.tasks.size()); ++t) {
      double& e = ends[static_cast<size_t>(schedule.tasks[t].iteration)];
      e = std::max(e, ex.timing(r, t).end);
    }
  }
  return ends;
}

void fill_ranks(const detail::Schedule& schedule, const detail::Executor& ex,
                const detail::IterationTraffic& traffic, const TopologyGraph& graph, int iterations,
                bool record_phases, SimResult* out) {
  const int ranks = static_cast<int>(traffic.ranks.size());
  out->ranks.resize(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    RankResult& rr = out->ranks[static_cast<size_t>(r)];
    rr.rank = r;
    rr.host = graph.host_of(r);
    for (const std::vector<int>& lane : schedule.lanes) {
      double lane_free = 0.0;  // when the lane's previous task ended
      for (int t : lane) {
        const detail::TaskTemplate& task = schedule.tasks[static_cast<size_t>(t)];
        const detail::TaskTiming& timing = ex.timing(r, t);
        // A blocking read spans from the host's arrival to its end: the wait shows.
        const double start = task.phase == Phase::kHostSync ? lane_free : timing.start;
        lane_free = timing.end;
        const double duration = timing.end - start;
        if (task.iteration == iterations - 1) {
          switch (task.stream) {
            case Stream::kCompute:
              rr.busy_compute_ms += duration;
              rr.gpu_waits_host_ms += timing.host_wait;
              break;
            case Stream::kComm:
              rr.busy_comm_ms += duration;
              break;
            case Stream::kHost:
              rr.busy_host_ms += duration;
              break;
          }
        }
        if (!record_phases) continue;
        const bool comm = task.stream == Stream::kComm;
        if (duration <= 0.0 && !(comm && ex.has_collectives(r, t))) continue;
        PhaseRecord p;
        p.phase = task.phase;
        p.stream = task.stream;
        p.iteration = task.iteration;
        p.start_ms = start;
        p.end_ms = timing.end;
        p.bytes = comm ? ex.task_bytes(r, t) : 0.0;
        p.tables = traffic.ranks[static_cast<size_t>(r)].shards;
        rr.phases.push_back(p);
      }
    }
  }
}

void fill_links(const TopologyGraph& graph, const FlowNetwork& network, double total_ms,
                SimResult* out) {
  const std::vector<Link>& links = graph.links();
  const std::vector<double>& bytes = network.link_bytes();
  for (size_t l = 0; l < links.size(); ++l) {
    if (bytes[l] <= 0.0) continue;
    LinkResult lr;
    lr.name = links[l].name;
    lr.bytes = bytes[l];
    lr.utilization = total_ms > 0.0 ? bytes[l] / (links[l].capacity * total_ms) : 0.0;
    out->links.push_back(std::move(lr));
  }
}

// Every rank's host step costs; the first step also pays the scenario's
// given host time (workload.iteration_overhead_ms).
Result<detail::HostTiming> host_timing(const planner::Scenario& scenario,
                                       const detail::IterationTraffic& traffic,
                                       const std::vector<HostStepShape>& program,
                                       const planner::HostProfile& profile) {
  detail::HostTiming h;
  h.steps = static_cast<int>(program.size());
  h.launch_latency_ms = profile.launch_latency_ms;
  const int ranks = static_cast<int>(traffic.ranks.size());
  h.costs.reserve(static_cast<size_t>(ranks) * program.size());
  for (int r = 0; r < ranks; ++r) {
    for (size_t k = 0; k < program.size(); ++k) {
      const double given = k == 0 ? scenario.workload.iteration_overhead_ms : 0.0;
      auto cost = host_cost(profile, host_ops(scenario, traffic, program[k], r), given);
      if (!cost) return cost.status();
      h.costs.push_back(*cost);
    }
  }
  return h;
}

}  // namespace

const char* host_verdict(double share) {
  return share >= 0.5 ? "host-bound" : share >= 0.1 ? "partly host-bound" : "GPU-bound";
}

namespace {

HostSummary host_summary(const planner::Scenario& scenario, const planner::HostProfile& profile,
                         const SimResult& result) {
  HostSummary h;
  h.modelled = true;
  h.framework = std::string(planner::to_string(scenario.workload.framework));
  h.mode = std::string(to_string(host_mode(scenario)));
  h.profile = profile.name;
  // The host's share of the critical path, by rank: the rank whose host sets
  // most of the iteration speaks for it.
  std::map<int, double> on_path;
  for (const CriticalStep& s : result.critical_path) {
    if (s.stream == Stream::kHost) on_path[s.rank] += s.end_ms - s.start_ms;
  }
  for (const auto& [rank, ms] : on_path) {
    if (ms > h.host_critical_ms) {
      h.rank = rank;
      h.host_critical_ms = ms;
    }
  }
  for (const RankResult& r : result.ranks) {
    if (r.rank == h.rank) h.host_busy_ms = r.busy_host_ms;
  }
  h.share =
      result.iteration_ms > 0.0 ? std::min(1.0, h.host_critical_ms / result.iteration_ms) : 0.0;
  h.verdict = host_verdict(h.share);
  const std::string pct = std::to_string(static_cast<int>(std::lround(100.0 * h.share)));
  const std::string sets = "the host sets " + pct +
                           "% of the iteration (its steps on the critical path, rank " +
                           std::to_string(h.rank) + ")";
  if (h.share < 0.1) {
    h.advice = "GPU-bound: " + sets + "; the host's " + h.mode + " launches keep up";
  } else if (h.mode == "eager") {
    h.advice = h.verdict + ": " + sets + " under " + profile.name +
               " host costs; CUDA graphs (workload.cuda_graphs), a larger batch per GPU, or "
               "fewer table groups and dense layers (fewer ops per step) would help";
  } else {
    h.advice = h.verdict + ": " + sets + " under CUDA graphs (workload.iteration_overhead_ms " +
               "is host work before each launch); a larger batch per GPU would help";
  }
  return h;
}

Result<SimResult> simulate_within_memory(const planner::Scenario& scenario,
                                         const planner::SearchSpace& space,
                                         const planner::PartitionedPlan& plan,
                                         const SimOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (options.iterations < 1) {
    return Status::invalid_argument("iterations: " + std::to_string(options.iterations) +
                                    " (expected >= 1)");
  }
  // Inside the limits every duration below is finite (planner/limits.h).
  if (Status st = planner::check_limits(scenario); !st) return st;
  if (Status st = check_workload(scenario); !st) return st;
  if (Status st = check_base_memory(scenario, options); !st) return st;
  auto graph = TopologyGraph::build(scenario.topology, scenario.fabric);
  if (!graph) return graph.status();
  if (Status st = check_route_memory(*graph, options); !st) return st;
  const planner::Topology topology = planner::make_topology(scenario);
  auto traffic = detail::build_traffic(scenario, space, plan, topology, options.calibration);
  if (!traffic) return traffic.status();
  const bool training = !scenario.planner.is_inference;
  std::vector<detail::CollectiveSpec> collectives = traffic->collectives;
  const bool dense = training && scenario.workload.dense.has_value();
  if (options.comm_model == CommModel::kEstimates) {
    collectives = detail::estimate_collectives(traffic->ranks, training);
    for (detail::CollectiveSpec& c : collectives) {
      // The embedding gradients exist when the dense model says, as in the flows.
      if (dense && c.phase == Phase::kBwdOutputDist)
        c.ready_fraction = traffic->embedding_grad_fraction;
    }
    for (detail::CollectiveSpec& c : detail::ddp_collectives(traffic->collectives)) {
      collectives.push_back(std::move(c));
    }
  }

  EventQueue queue;
  FlowNetwork network(queue, *graph, options.contention, options.closed_form);
  const CollectiveModel model(scenario, options.calibration);
  const std::optional<planner::HostProfile>& profile = scenario.workload.host;
  std::vector<HostStepShape> program;
  detail::HostTiming host;
  if (profile) {
    program = host_program_shape(host_mode(scenario), training);
    auto timing = host_timing(scenario, *traffic, program, *profile);
    if (!timing) return timing.status();
    host = std::move(*timing);
  }
  const detail::Schedule schedule = detail::build_schedule(
      {.iterations = options.iterations,
       .overlap = options.overlap,
       .training = training,
       .iteration_overhead = !profile && scenario.workload.iteration_overhead_ms > 0.0,
       .dense_model = dense,
       .host = profile ? &program : nullptr,
       .eager = profile && host_mode(scenario) == HostMode::kEager});
  detail::Executor executor(schedule, *traffic, collectives, queue, network, *graph, &model,
                            profile ? &host : nullptr);
  if (!executor.run(options.stop)) {
    if (executor.stopped()) {
      return Status::invalid_argument("the simulation was stopped (a time limit, or a cancel) at " +
                                      std::to_string(queue.now()) +
                                      " ms of simulated time, before its " +
                                      std::to_string(options.iterations) + " iterations ended");
    }
    return Status::internal("simulation stalled: some phases never became ready");
  }

  SimResult out;
  out.scenario = scenario.name;
  out.iterations = options.iterations;
  out.local_world_size = graph->local_world_size();
  out.dense_params = traffic->dense_params;
  out.ddp_buckets = static_cast<int>(std::count_if(
      collectives.begin(), collectives.end(),
      [](const detail::CollectiveSpec& c) { return c.phase == Phase::kDdpAllreduce; }));
  const int ranks = static_cast<int>(traffic->ranks.size());
  const std::vector<double> ends = iteration_ends(schedule, executor, ranks, options.iterations);
  out.total_ms = ends.back();
  out.iteration_ms = ends.size() >= 2 ? ends[ends.size() - 1] - ends[ends.size() - 2] : ends.back();
  if (!std::isfinite(out.total_ms) || !std::isfinite(out.iteration_ms)) {
    // Unreachable within the limits; a time that overflowed is still the
    // input's doing, never a result to print.
    return Status::invalid_argument(
        "the simulated iteration time is not finite (" + std::to_string(out.iteration_ms) +
        " ms): a bandwidth, latency or dense time of the scenario is out of range");
  }
  fill_ranks(schedule, executor, *traffic, *graph, options.iterations, options.record_phases, &out);
  const double window_start = ends.size() >= 2 ? ends[ends.size() - 2] : 0.0;
  out.critical_path =
      detail::critical_path(schedule, executor, ranks, options.iterations - 1, window_start);
  fill_links(*graph, network, out.total_ms, &out);
  if (profile) out.host = host_summary(scenario, *profile, out);
  out.events = queue.events_processed();
  out.flows = network.flows_started();
  out.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return out;
}

}  // namespace

Status check_simulation_memory(const planner::Scenario& scenario, const SimOptions& options) {
  if (Status st = check_base_memory(scenario, options); !st) return st;
  auto graph = TopologyGraph::build(scenario.topology, scenario.fabric);
  if (!graph) return graph.status();
  return check_route_memory(*graph, options);
}

std::vector<std::vector<bool>> critical_phase_marks(const SimResult& result) {
  std::vector<std::vector<bool>> marks(result.ranks.size());
  for (size_t i = 0; i < result.ranks.size(); ++i) {
    const RankResult& r = result.ranks[i];
    marks[i].assign(r.phases.size(), false);
    // The path has tens of steps: a scan per recorded phase of a rank on it.
    std::vector<const CriticalStep*> steps;
    for (const CriticalStep& s : result.critical_path) {
      if (s.rank == r.rank) steps.push_back(&s);
    }
    if (steps.empty()) continue;
    for (size_t k = 0; k < r.phases.size(); ++k) {
      const PhaseRecord& p = r.phases[k];
      marks[i][k] = std::any_of(steps.begin(), steps.end(), [&](const CriticalStep* s) {
        return s->phase == p.phase && s->stream == p.stream && s->iteration == p.iteration &&
               s->start_ms < p.end_ms && s->end_ms > p.start_ms;
      });
    }
  }
  return marks;
}

std::string host_side_text(const SimResult& result, double iteration_overhead_ms) {
  const HostSummary& h = result.host;
  const auto ms = [](double v) {
    std::string s = std::to_string(std::round(v * 1e4) / 1e4);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  if (!h.modelled) {
    return iteration_overhead_ms > 0.0
               ? "host side: " + ms(iteration_overhead_ms) +
                     " ms per iteration (workload.iteration_overhead_ms)"
               : "host side: not included (workload.iteration_overhead_ms is 0): data loading, "
                 "Python, launches";
  }
  std::string text = "host side: " + h.framework + " " +
                     (h.mode == "eager" ? "eager" : "CUDA graphs") + ", host profile " + h.profile +
                     "; host busy " + ms(h.host_busy_ms) + " ms per iteration on rank " +
                     std::to_string(h.rank);
  if (iteration_overhead_ms > 0.0)
    text += " (" + ms(iteration_overhead_ms) + " ms of it workload.iteration_overhead_ms)";
  return text + "\n" + h.advice;
}

Result<SimResult> simulate(const planner::Scenario& scenario, const planner::SearchSpace& space,
                           const planner::PartitionedPlan& plan, const SimOptions& options) {
  try {
    return simulate_within_memory(scenario, space, plan, options);
  } catch (const std::bad_alloc&) {
    // The estimate keeps this rare; the simulation's structures are freed by now.
    return Status::invalid_argument(
        "the simulation ran out of memory (the memory budget is checked before it starts, but the "
        "machine had "
        "less to give); simulate fewer ranks, or set " +
        std::string(planner::kMemoryBudgetVariable));
  }
}

}  // namespace shardlab::sim
