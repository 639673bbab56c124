#include "shardlab/sim/collective_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "shardlab/sim/event_queue.h"
#include "shardlab/sim/flow_network.h"

namespace shardlab::sim {
namespace {

using planner::CollAlgorithm;
using planner::CollectiveTuning;
using planner::CollProtocol;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Where the members sit: n ranks on `hosts` NVLink domains (hosts unless a
// domain spans several), `local` on each when uniform; the line rates of a
// GPU's fabric link and of its path between domains.
struct Geometry {
  int n = 0;
  int hosts = 1;
  int local = 0;
  bool uniform = false;
  double intra_line = kInf;
  double inter_line = kInf;
};

Geometry geometry(const std::vector<int>& members, const TopologyGraph& graph) {
  Geometry g;
  g.n = static_cast<int>(members.size());
  std::vector<int> per_host(static_cast<size_t>(graph.num_domains()), 0);
  for (int r : members) {
    ++per_host[static_cast<size_t>(graph.domain_of(r))];
    g.intra_line =
        std::min(g.intra_line, graph.links()[static_cast<size_t>(graph.fabric_uplink(r))].capacity);
  }
  g.hosts = static_cast<int>(
      std::count_if(per_host.begin(), per_host.end(), [](int c) { return c > 0; }));
  g.local = per_host[static_cast<size_t>(graph.domain_of(members.front()))];
  g.uniform =
      g.hosts >= 2 && g.local >= 2 &&
      std::all_of(per_host.begin(), per_host.end(), [&](int c) { return c == 0 || c == g.local; });
  if (g.hosts > 1) {
    for (int r : members) {
      if (graph.domain_of(r) == graph.domain_of(members.front())) continue;
      g.inter_line = graph.route_bottleneck(members.front(), r);
      break;
    }
  }
  return g;
}

double dbl(int v) { return static_cast<double>(v); }

struct Candidate {
  CollAlgorithm algorithm;
  CollProtocol protocol;
  CollectiveShape shape;
  double predicted_ms;
};

// The shape of (algorithm, protocol) for a collective whose large transfers
// reach `fraction` of the GPU's link inside a host: capped messages with the
// protocol's step latencies, the algorithm's base latency once.
CollectiveShape shape_of(const CollectiveTuning& t, CollAlgorithm a, CollProtocol p,
                         double fraction, double inter_step_scale = 1.0) {
  const planner::CollLatency& lat = t.latency[static_cast<size_t>(a)][static_cast<size_t>(p)];
  const double factor = t.protocol_factor[static_cast<size_t>(a)][static_cast<size_t>(p)];
  CollectiveShape s;
  s.intra.fraction = std::min(1.0, fraction * factor);
  s.intra.latency_ms = lat.intra_step_ms;
  s.inter.fraction = std::min(1.0, t.network_fraction * factor);
  s.inter.latency_ms = lat.inter_step_ms * inter_step_scale;
  if (p == CollProtocol::kLl && t.ll_max_bw > 0.0) {
    s.intra.cap = t.ll_max_bw;
    s.inter.cap = t.ll_max_bw;
  }
  s.base_ms = lat.base_ms;
  return s;
}

// The rate a message of this shape reaches on a route of `line` bytes/ms.
double rate_of(const MessageShape& m, double line) { return std::min(m.fraction * line, m.cap); }

bool supported(const CollectiveTuning& t, CollAlgorithm a, CollProtocol p) {
  return t.protocol_factor[static_cast<size_t>(a)][static_cast<size_t>(p)] > 0.0;
}

// Lone time of a ring over the members: `steps` steps of `chunk` bytes on
// every member. Over several hosts the ring's steps wait for the slowest hop.
double ring_time(const Geometry& g, const CollectiveShape& s, int steps, double chunk) {
  double rate = rate_of(s.intra, g.intra_line);
  double latency = s.intra.latency_ms;
  if (g.hosts > 1) {
    rate = std::min(rate, rate_of(s.inter, g.inter_line));
    latency = std::max(latency, s.inter.latency_ms);
  }
  return s.base_ms + dbl(steps) * (latency + chunk / rate);
}

// Lone time of the hierarchical all-reduce whose stages are rings, or
// switches where `stages` says (collectives.h HierarchyStages): NVLS stages
// send S into the domain's switch (and receive S/L) then the reverse, the
// SHARP stage sends and receives a share at once. The stages are pipelined
// over K = pipeline_chunks() pieces (collectives.cc): the messages'
// latencies once, then all the domain's work I, or the network's N after
// one piece's domain work, I/K, whichever ends later.
double staged_time(const Geometry& g, const CollectiveShape& s, double bytes,
                   HierarchyStages stages) {
  const double l = dbl(g.local);
  const double h = dbl(g.hosts);
  const double intra_rate = rate_of(s.intra, g.intra_line);
  const double inter_rate = rate_of(s.inter, g.inter_line);
  const double intra_steps = stages.nvls_intra ? 2.0 : 2.0 * (l - 1.0);
  const double intra_bytes = stages.nvls_intra ? 2.0 * bytes : 2.0 * (l - 1.0) * bytes / l;
  const double inter_steps = stages.sharp_inter ? 1.0 : 2.0 * (h - 1.0);
  const double inter_bytes = stages.sharp_inter ? bytes / l : 2.0 * (h - 1.0) * bytes / l / h;
  const double intra = intra_bytes / intra_rate;
  const double inter = inter_bytes / inter_rate;
  const double pieces = dbl(pipeline_chunks(bytes / l));
  return s.base_ms + intra_steps * s.intra.latency_ms + inter_steps * s.inter.latency_ms +
         std::max(intra, inter + intra / pieces);
}

// Ring stages inside and across the domains.
double hierarchical_time(const Geometry& g, const CollectiveShape& s, double bytes) {
  return staged_time(g, s, bytes, HierarchyStages{});
}

double all_reduce_ring_time(const Geometry& g, const CollectiveShape& s, double bytes) {
  if (g.uniform) return hierarchical_time(g, s, bytes);
  return ring_time(g, s, 2 * (g.n - 1), bytes / dbl(g.n));
}

void consider(std::vector<Candidate>& out, CollAlgorithm a, CollProtocol p, CollectiveShape shape,
              double t) {
  out.push_back(Candidate{a, p, std::move(shape), t});
}

std::vector<Candidate> candidates(const CollectiveTuning& t, bool nvls, bool sharp,
                                  CollectiveKind kind, double bytes, const Geometry& g) {
  std::vector<Candidate> out;
  constexpr CollProtocol kProtocols[] = {CollProtocol::kLl, CollProtocol::kLl128,
                                         CollProtocol::kSimple};
  switch (kind) {
    case CollectiveKind::kAllReduce:
      for (CollProtocol p : kProtocols) {
        if (supported(t, CollAlgorithm::kRing, p)) {
          CollectiveShape s = shape_of(t, CollAlgorithm::kRing, p, t.all_reduce_fraction);
          const double time = all_reduce_ring_time(g, s, bytes);
          consider(out, CollAlgorithm::kRing, p, std::move(s), time);
        }
      }
      // NCCL's tree: chains inside the hosts, a double binary tree across
      // them, 2·log2(H) network steps. Realized on the hierarchical flows,
      // whose 2(H-1) network steps then carry the tree's latency between them.
      if (g.uniform && g.hosts > 1) {
        const double scale = std::log2(dbl(g.hosts)) / dbl(g.hosts - 1);
        for (CollProtocol p : kProtocols) {
          if (!supported(t, CollAlgorithm::kTree, p)) continue;
          CollectiveShape s = shape_of(t, CollAlgorithm::kTree, p, t.all_reduce_fraction, scale);
          const double time = hierarchical_time(g, s, bytes);
          consider(out, CollAlgorithm::kTree, p, std::move(s), time);
        }
      }
      // Across domains: CollNet where the network reduces (SHARP), and with
      // NVLS inside the domains, NVLS+SHARP or NVLSTree.
      if (g.uniform && g.hosts > 1) {
        const auto staged = [&](CollAlgorithm a, HierarchyStages stages, double fraction,
                                double inter_scale) {
          if (!supported(t, a, CollProtocol::kSimple)) return;
          CollectiveShape s = shape_of(t, a, CollProtocol::kSimple, fraction, inter_scale);
          const double time = staged_time(g, s, bytes, stages);
          consider(out, a, CollProtocol::kSimple, std::move(s), time);
        };
        const bool has_nvls = nvls && t.nvls_fraction > 0.0;
        if (sharp) staged(CollAlgorithm::kCollNet, {false, true}, t.all_reduce_fraction, 1.0);
        if (has_nvls && sharp) staged(CollAlgorithm::kNvls, {true, true}, t.nvls_fraction, 1.0);
        if (has_nvls) {
          staged(CollAlgorithm::kNvlsTree, {true, false}, t.nvls_fraction,
                 std::log2(dbl(g.hosts)) / dbl(g.hosts - 1));
        }
      }
      if (nvls && g.hosts == 1 && t.nvls_fraction > 0.0 &&
          supported(t, CollAlgorithm::kNvls, CollProtocol::kSimple)) {
        CollectiveShape s =
            shape_of(t, CollAlgorithm::kNvls, CollProtocol::kSimple, t.nvls_fraction);
        const double n = dbl(g.n);
        const double time =
            s.base_ms + s.intra.latency_ms + bytes * (n + 1.0) / n / rate_of(s.intra, g.intra_line);
        consider(out, CollAlgorithm::kNvls, CollProtocol::kSimple, std::move(s), time);
      }
      break;
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllGather:
      for (CollProtocol p : kProtocols) {
        if (!supported(t, CollAlgorithm::kRing, p)) continue;
        CollectiveShape s = shape_of(t, CollAlgorithm::kRing, p, t.ring_fraction);
        const double time = ring_time(g, s, g.n - 1, bytes / dbl(g.n));
        consider(out, CollAlgorithm::kRing, p, std::move(s), time);
      }
      break;
    case CollectiveKind::kAllToAll: {
      // Pairwise send/receive: LL for messages up to the threshold, Simple above.
      CollectiveShape s = shape_of(t, CollAlgorithm::kRing, CollProtocol::kSimple, t.p2p_fraction);
      const CollectiveShape ll =
          shape_of(t, CollAlgorithm::kRing, CollProtocol::kLl, t.p2p_fraction);
      s.small_bytes =
          supported(t, CollAlgorithm::kRing, CollProtocol::kLl) ? t.p2p_ll_threshold_bytes : -1.0;
      s.small_intra = ll.intra;
      s.small_inter = ll.inter;
      const double message = bytes / dbl(g.n);
      const bool small = s.small_bytes >= 0.0 && message <= s.small_bytes;
      // The base latency is the protocol's of a typical message.
      if (small) s.base_ms = ll.base_ms;
      CollectiveShape timed = s;
      if (small) {
        timed.intra = ll.intra;
        timed.inter = ll.inter;
      }
      const double time = ring_time(g, timed, g.n - 1, message);
      consider(out, CollAlgorithm::kRing, small ? CollProtocol::kLl : CollProtocol::kSimple,
               std::move(s), time);
      break;
    }
    case CollectiveKind::kEstimate:
      break;
  }
  return out;
}

}  // namespace

CollectiveModel::CollectiveModel(const planner::Scenario& scenario,
                                 const planner::CostCalibration* calibration)
    : calibration_(calibration) {
  if (scenario.gpu) {
    tuning_ = &scenario.gpu->collectives;
    nvls_ = scenario.gpu->nvls;
  }
  sharp_ = scenario.fabric.sharp;
  if (calibration != nullptr) {
    const planner::CommCalibration& a = calibration->intra_host;
    const planner::CommCalibration& b = calibration->inter_host;
    calibrated_ =
        a.bandwidth_bytes_per_ms || a.latency_ms || b.bandwidth_bytes_per_ms || b.latency_ms;
  }
}

CollectiveChoice CollectiveModel::choose(CollectiveKind kind, double bytes,
                                         const std::vector<int>& members,
                                         const TopologyGraph& graph) const {
  CollectiveChoice choice;
  if (!active() || members.size() < 2 || kind == CollectiveKind::kEstimate) return choice;
  const Geometry g = geometry(members, graph);
  if (tuning_ != nullptr) {
    std::vector<Candidate> all = candidates(*tuning_, nvls_, sharp_, kind, bytes, g);
    // The least predicted time; the first listed wins ties, as NCCL keeps the
    // first minimum it finds.
    const auto best = std::min_element(
        all.begin(), all.end(),
        [](const Candidate& x, const Candidate& y) { return x.predicted_ms < y.predicted_ms; });
    if (best != all.end()) {
      choice.algorithm = best->algorithm;
      choice.protocol = best->protocol;
      choice.shape = best->shape;
      choice.predicted_ms = best->predicted_ms;
    }
  }
  if (calibrated_) {
    // Measured parameters of the collective's scope replace the layer's.
    const planner::CommCalibration& c = calibration_->comm(g.hosts > 1);
    if (c.bandwidth_bytes_per_ms) {
      const MessageShape m{.fraction = 1.0, .cap = *c.bandwidth_bytes_per_ms, .latency_ms = 0.0};
      choice.shape.intra = m;
      choice.shape.inter = m;
      choice.shape.small_bytes = -1.0;
      if (choice.algorithm == CollAlgorithm::kNvls) choice.algorithm = CollAlgorithm::kRing;
    }
    if (c.latency_ms) {
      choice.shape.base_ms = *c.latency_ms;
      choice.shape.intra.latency_ms = 0.0;
      choice.shape.inter.latency_ms = 0.0;
      choice.shape.small_intra.latency_ms = 0.0;
      choice.shape.small_inter.latency_ms = 0.0;
    }
  }
  return choice;
}

double nccl_size(const CollectiveSpec& spec) {
  const int n = static_cast<int>(spec.members.size());
  switch (spec.kind) {
    case CollectiveKind::kAllReduce:
      return spec.bytes;
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllGather:
      return std::accumulate(spec.chunks.begin(), spec.chunks.end(), 0.0);
    case CollectiveKind::kAllToAll: {
      if (n < 2) return 0.0;
      double most = 0.0;
      for (int m = 0; m < n; ++m) most = std::max(most, spec.bytes_sent(m));
      return most * dbl(n) / dbl(n - 1);
    }
    case CollectiveKind::kEstimate:
      return 0.0;
  }
  return 0.0;
}

std::unique_ptr<Collective> make_collective(FlowNetwork& network, const CollectiveSpec& spec,
                                            const CollectiveModel* model,
                                            CollectiveListener* listener, int64_t tag,
                                            CollectiveChoice* choice_out) {
  CollectiveChoice choice;
  if (model != nullptr && model->active())
    choice = model->choose(spec.kind, nccl_size(spec), spec.members, network.graph());
  if (choice_out != nullptr) *choice_out = choice;
  switch (spec.kind) {
    case CollectiveKind::kAllToAll:
      return make_all_to_all(network, spec.members, spec.from_bytes, spec.to_bytes, listener, tag,
                             choice.shape);
    case CollectiveKind::kReduceScatter:
      return make_ring_reduce_scatter(network, spec.members, spec.chunks, listener, tag,
                                      choice.shape);
    case CollectiveKind::kAllGather:
      return make_ring_all_gather(network, spec.members, spec.chunks, listener, tag, choice.shape);
    case CollectiveKind::kAllReduce: {
      const TopologyGraph& graph = network.graph();
      const int domain = graph.domain_of(spec.members.front());
      const bool one_domain = std::all_of(spec.members.begin(), spec.members.end(),
                                          [&](int r) { return graph.domain_of(r) == domain; });
      HierarchyStages stages;
      switch (choice.algorithm) {
        case CollAlgorithm::kNvls:
          if (one_domain) {
            return make_nvls_all_reduce(network, spec.members, spec.bytes, listener, tag,
                                        choice.shape);
          }
          stages = {.nvls_intra = true, .sharp_inter = true};
          break;
        case CollAlgorithm::kCollNet:
          stages = {.nvls_intra = false, .sharp_inter = true};
          break;
        case CollAlgorithm::kNvlsTree:
          stages = {.nvls_intra = true, .sharp_inter = false};
          break;
        case CollAlgorithm::kRing:
        case CollAlgorithm::kTree:
          break;
      }
      return make_hierarchical_all_reduce(network, graph, spec.members, spec.bytes, listener, tag,
                                          choice.shape, stages);
    }
    case CollectiveKind::kEstimate:
      break;
  }
  return nullptr;
}

double bus_factor(CollectiveKind kind, int ranks) {
  const double n = dbl(ranks);
  if (ranks < 2) return 0.0;
  return kind == CollectiveKind::kAllReduce ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
}

namespace {

// Joins every member at 0 and records when the last is done.
class SweepDriver final : public CollectiveListener, public EventHandler {
 public:
  explicit SweepDriver(EventQueue& queue) : queue_(queue) {}
  void on_member_done(int64_t, int) override { last_ = std::max(last_, queue_.now()); }
  void on_event(int64_t member, int64_t) override { collective->join(static_cast<int>(member)); }
  std::unique_ptr<Collective> collective;
  double last() const { return last_; }

 private:
  EventQueue& queue_;
  double last_ = 0.0;
};

}  // namespace

Result<std::vector<SweepPoint>> collective_sweep(const planner::Scenario& scenario,
                                                 CollectiveKind kind,
                                                 const std::vector<double>& sizes,
                                                 const planner::CostCalibration* calibration) {
  if (kind == CollectiveKind::kEstimate)
    return Status::invalid_argument("a sweep needs a collective kind");
  auto graph = TopologyGraph::build(scenario.topology, scenario.fabric);
  if (!graph) return graph.status();
  const int n = graph->num_ranks();
  std::vector<int> members(static_cast<size_t>(n));
  std::iota(members.begin(), members.end(), 0);
  const CollectiveModel model(scenario, calibration);
  std::vector<SweepPoint> out;
  for (double size : sizes) {
    CollectiveSpec spec;
    spec.kind = kind;
    spec.members = members;
    switch (kind) {
      case CollectiveKind::kAllReduce:
        spec.bytes = size;
        break;
      case CollectiveKind::kReduceScatter:
      case CollectiveKind::kAllGather:
        spec.chunks.assign(members.size(), size / dbl(n));
        break;
      default:
        spec.from_bytes.assign(members.size(), size / dbl(n));
        spec.to_bytes.assign(members.size(), 0.0);
        break;
    }
    EventQueue queue;
    FlowNetwork network(queue, *graph);
    SweepDriver driver(queue);
    CollectiveChoice choice;
    driver.collective = make_collective(network, spec, &model, &driver, 0, &choice);
    for (int m = 0; m < n; ++m) queue.schedule(0.0, &driver, m);
    queue.run();
    SweepPoint p;
    p.bytes = size;
    p.time_ms = driver.last();
    p.algbw = p.time_ms > 0.0 ? size / p.time_ms : 0.0;
    p.busbw = p.algbw * bus_factor(kind, n);
    p.algorithm = choice.algorithm;
    p.protocol = choice.protocol;
    // All-to-all messages pick their protocol by size, not the collective.
    if (kind == CollectiveKind::kAllToAll && choice.shape.small_bytes >= 0.0) {
      p.protocol = size / dbl(n) <= choice.shape.small_bytes ? planner::CollProtocol::kLl
                                                             : planner::CollProtocol::kSimple;
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace shardlab::sim
