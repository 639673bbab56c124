#include "shardlab/sim/flow_network.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <span>
#include <utility>

namespace shardlab::sim {

namespace {

constexpr int kMaxHops = TopologyGraph::kMaxRouteLinks;

// Event kinds, in the low two bits of the event's second integer (the rest is
// the flow's generation, so a transmission end scheduled before a re-rate is
// recognised as stale and ignored).
constexpr int64_t kTransmitted = 0;
constexpr int64_t kArrived = 1;
constexpr int64_t kRecompute = 2;
constexpr int64_t kKindMask = 3;

// Demand above capacity by less than this (relative) is rounding left over
// from adding and removing bottlenecks, not contention.
constexpr double kSaturationSlack = 1e-9;
// A recomputed rate this close (relative) to the old one is the same rate:
// keeping it avoids rescheduling a flow for rounding noise.
constexpr double kRateSlack = 1e-12;

enum class FlowPhase : uint8_t { kFree, kTransmitting, kArriving };

int64_t pack(uint32_t generation, int64_t kind) {
  return (static_cast<int64_t>(generation) << 2) | kind;
}

}  // namespace

struct FlowNetwork::State {
  struct Flow {
    const int* route = nullptr;
    int hops = 0;
    int slot[kMaxHops] = {};  // index in each route link's member list
    double bytes = 0.0;
    double remaining = 0.0;  // bytes left at updated_at
    double rate = 0.0;       // bytes/ms; 0 until first rated
    double updated_at = 0.0;
    double bottleneck = 0.0;  // standalone rate: the route's smallest capacity
    double latency = 0.0;
    double new_rate = 0.0;  // filling scratch
    FlowListener* listener = nullptr;
    int64_t token = 0;
    uint64_t mark = 0;  // component epoch
    uint32_t generation = 0;
    FlowPhase phase = FlowPhase::kFree;
    bool frozen = false;  // filling scratch
  };
  struct Member {
    int flow;
    int hop;  // which of the flow's route links this is
  };
  struct LinkState {
    std::vector<Member> members;  // transmitting flows
    double demand = 0.0;          // sum of the members' bottlenecks
    uint64_t mark = 0;            // component epoch
    uint64_t fill_mark = 0;       // epoch in which the link takes part in filling
    double residual = 0.0;        // filling: capacity not yet given to frozen flows
    int unfrozen = 0;             // filling: members not yet frozen
    uint32_t version = 0;         // filling: invalidates older heap entries
    bool dirty = false;           // in dirty_links
  };
  struct Share {
    double share;
    int link;
    uint32_t version;
  };
  // Min-heap order on the fair share; link id breaks ties deterministically.
  static bool share_later(const Share& x, const Share& y) {
    return x.share > y.share || (x.share == y.share && x.link > y.link);
  }

  EventQueue* queue = nullptr;
  EventHandler* handler = nullptr;  // the network, which owns this state
  std::vector<Flow> flows;
  std::vector<int> free_flows;
  std::vector<LinkState> links;
  std::vector<double> capacity;
  int active = 0;
  uint64_t epoch = 0;
  // Saturable links whose flows changed since the last recomputation, which
  // runs once per instant from its own event: flows starting or ending at the
  // same time (a collective step) share one recomputation.
  std::vector<int> dirty_links;
  bool recompute_scheduled = false;
  // Scratch reused by every recomputation, so steady state does not allocate.
  std::vector<int> frontier;
  std::vector<int> component;
  std::vector<int> fill_links;
  std::vector<Share> heap;

  bool saturable(int link) const {
    return links[link].demand > capacity[link] * (1.0 + kSaturationSlack);
  }

  int allocate() {
    if (!free_flows.empty()) {
      const int id = free_flows.back();
      free_flows.pop_back();
      return id;
    }
    flows.emplace_back();
    return static_cast<int>(flows.size()) - 1;
  }

  void attach(int f) {
    Flow& flow = flows[f];
    for (int h = 0; h < flow.hops; ++h) {
      LinkState& link = links[flow.route[h]];
      flow.slot[h] = static_cast<int>(link.members.size());
      link.members.push_back(Member{f, h});
      link.demand += flow.bottleneck;
    }
  }

  void detach(int f) {
    Flow& flow = flows[f];
    for (int h = 0; h < flow.hops; ++h) {
      LinkState& link = links[flow.route[h]];
      const int at = flow.slot[h];
      const Member moved = link.members.back();
      link.members[at] = moved;
      flows[moved.flow].slot[moved.hop] = at;
      link.members.pop_back();
      // An empty link restarts from an exact zero so rounding cannot pile up.
      link.demand = link.members.empty() ? 0.0 : link.demand - flow.bottleneck;
    }
  }

  void discover(std::span<const int> seeds);
  void fill();
  void freeze(int f, double rate);
  void rerate(std::span<const int> seeds);
  void set_rate(int f, double rate);

  void mark_dirty(int link) {
    if (links[link].dirty) return;
    links[link].dirty = true;
    dirty_links.push_back(link);
    if (recompute_scheduled) return;
    recompute_scheduled = true;
    queue->schedule(queue->now(), handler, -1, kRecompute);
  }
  void recompute() {
    recompute_scheduled = false;
    rerate(dirty_links);
    for (int l : dirty_links) links[l].dirty = false;
    dirty_links.clear();
  }
};

// Collects into `component` every flow reachable from the seed links through
// saturable links. A seed's flows are taken even when the seed no longer
// saturates (a flow just left it), since they may now run faster.
void FlowNetwork::State::discover(std::span<const int> seeds) {
  ++epoch;
  frontier.clear();
  component.clear();
  fill_links.clear();
  for (int l : seeds) {
    if (links[l].mark == epoch) continue;
    links[l].mark = epoch;
    frontier.push_back(l);
  }
  for (size_t next = 0; next < frontier.size(); ++next) {
    const int l = frontier[next];
    if (saturable(l)) {
      links[l].fill_mark = epoch;
      fill_links.push_back(l);
    }
    for (const Member& m : links[l].members) {
      Flow& flow = flows[m.flow];
      if (flow.mark == epoch) continue;
      flow.mark = epoch;
      component.push_back(m.flow);
      for (int h = 0; h < flow.hops; ++h) {
        const int other = flow.route[h];
        if (links[other].mark == epoch || !saturable(other)) continue;
        links[other].mark = epoch;
        frontier.push_back(other);
      }
    }
  }
}

void FlowNetwork::State::freeze(int f, double rate) {
  Flow& flow = flows[f];
  flow.frozen = true;
  flow.new_rate = rate;
  for (int h = 0; h < flow.hops; ++h) {
    const int l = flow.route[h];
    LinkState& link = links[l];
    if (link.fill_mark != epoch) continue;
    link.residual = std::max(0.0, link.residual - rate);
    if (--link.unfrozen == 0) continue;
    ++link.version;
    heap.push_back(Share{link.residual / link.unfrozen, l, link.version});
    std::push_heap(heap.begin(), heap.end(), share_later);
  }
}

// Max-min fair rates for `component` by progressive filling. Every flow is
// capped by its own bottleneck; the saturable links in `fill_links` share
// their capacity equally among the flows not yet frozen elsewhere. A link's
// fair share never decreases while filling (a flow frozen at a rate below the
// share leaves more for the rest), so a lazy min-heap of shares is exact.
void FlowNetwork::State::fill() {
  heap.clear();
  for (int l : fill_links) {
    LinkState& link = links[l];
    link.residual = capacity[l];
    link.unfrozen = static_cast<int>(link.members.size());
    ++link.version;
    heap.push_back(Share{link.residual / link.unfrozen, l, link.version});
  }
  std::make_heap(heap.begin(), heap.end(), share_later);
  for (int f : component) flows[f].frozen = false;
  std::sort(component.begin(), component.end(), [this](int x, int y) {
    return flows[x].bottleneck < flows[y].bottleneck ||
           (flows[x].bottleneck == flows[y].bottleneck && x < y);
  });

  size_t left = component.size();
  size_t next_flow = 0;
  while (left > 0) {
    while (!heap.empty() && (heap.front().version != links[heap.front().link].version ||
                             links[heap.front().link].unfrozen == 0)) {
      std::pop_heap(heap.begin(), heap.end(), share_later);
      heap.pop_back();
    }
    while (next_flow < component.size() && flows[component[next_flow]].frozen) ++next_flow;
    const double link_share =
        heap.empty() ? std::numeric_limits<double>::infinity() : heap.front().share;
    if (next_flow < component.size() && flows[component[next_flow]].bottleneck <= link_share) {
      const int f = component[next_flow];
      freeze(f, flows[f].bottleneck);
      --left;
      continue;
    }
    assert(!heap.empty());
    const int l = heap.front().link;
    std::pop_heap(heap.begin(), heap.end(), share_later);
    heap.pop_back();
    for (const Member& m : links[l].members) {
      if (flows[m.flow].frozen) continue;
      freeze(m.flow, link_share);
      --left;
    }
  }
}

// One half of a route (TopologyGraph::climb or descent) with what a closed
// form needs of it: its smallest capacity, and its link latencies summed
// from 0 in route order (a climb's sum starts its route's) or one by one (a
// descent's continue the climb's sum).
struct FlowNetwork::HalfRoute {
  static constexpr int kMaxLinks = TopologyGraph::kMaxHalfLinks;
  int links[kMaxLinks] = {};
  int hops = 0;
  double capacity = std::numeric_limits<double>::infinity();
  double latency_sum = 0.0;
  double latency[kMaxLinks] = {};
  // Descent: the whole route's latency, when every climb of its direction
  // has the same latency_sum (uniform_climb_latency_).
  double route_latency = 0.0;

  HalfRoute(std::span<const int> route, const std::vector<Link>& all);
};

FlowNetwork::HalfRoute::HalfRoute(std::span<const int> route, const std::vector<Link>& all) {
  for (int l : route) {
    links[hops] = l;
    latency[hops++] = all[l].latency_ms;
    capacity = std::min(capacity, all[l].capacity);
    latency_sum += all[l].latency_ms;
  }
}

// The route's smallest capacity is the smaller of its halves', and its
// latency the climb's sum continued over the descent's links: the min and
// the additions route_bottleneck and route_latency make, in their order.
inline void FlowNetwork::fill_moving(const HalfRoute& up, const HalfRoute& down, Reach reach,
                                     ClosedFormMessage* m) const {
  double latency;
  if (uniform_climb_latency_[static_cast<int>(reach)]) {
    latency = down.route_latency;
  } else {
    latency = up.latency_sum;
    for (int h = 0; h < down.hops; ++h) latency += down.latency[h];
  }
  m->bottleneck = std::min(up.capacity, down.capacity);
  m->latency_ms = latency;
  m->moves = true;
}

// In route order.
void FlowNetwork::add_link_bytes(const HalfRoute& up, const HalfRoute& down, double bytes) {
  for (int h = 0; h < up.hops; ++h) link_bytes_[up.links[h]] += bytes;
  for (int h = 0; h < down.hops; ++h) link_bytes_[down.links[h]] += bytes;
}

FlowNetwork::FlowNetwork(EventQueue& queue, const TopologyGraph& graph, bool contention,
                         bool allow_closed_form)
    : queue_(queue),
      graph_(graph),
      contention_(contention),
      closed_form_exact_(closed_form_exact(graph, contention, allow_closed_form)),
      state_(std::make_unique<State>()) {
  const std::vector<Link>& links = graph.links();
  link_bytes_.assign(links.size(), 0.0);
  state_->links.resize(links.size());
  state_->capacity.resize(links.size());
  for (size_t l = 0; l < links.size(); ++l) state_->capacity[l] = links[l].capacity;
  state_->queue = &queue;
  state_->handler = this;
  if (!closed_form_exact_) return;
  // kNumReaches entries per rank, [kNumReaches * rank + reach]; in one
  // NVLink domain the others are empty and never read (no message crosses
  // domains), as is the leaf's off a rail-optimized network.
  const int ranks = graph.num_ranks();
  const bool hosts = graph.num_domains() > 1;
  climbs_.reserve(kNumReaches * static_cast<size_t>(ranks));
  descents_.reserve(kNumReaches * static_cast<size_t>(ranks));
  domain_.resize(static_cast<size_t>(ranks));
  if (graph.rail_optimized()) {
    leaf_.resize(static_cast<size_t>(ranks));
    int rails = 1;
    for (int r = 0; r < ranks; ++r) rails = std::max(rails, graph.rail_of(r) + 1);
    for (int r = 0; r < ranks; ++r) leaf_[r] = graph.rail_group_of(r) * rails + graph.rail_of(r);
  }
  for (int r = 0; r < ranks; ++r) {
    domain_[r] = graph.domain_of(r);
    for (int reach = 0; reach < kNumReaches; ++reach) {
      const auto to = static_cast<Reach>(reach);
      const bool none = to != Reach::kDomain && !hosts;
      climbs_.emplace_back(none ? std::span<const int>{} : graph.climb(r, to), links);
      descents_.emplace_back(none ? std::span<const int>{} : graph.descent(r, to), links);
    }
  }
  // Where every climb of a reach sums its latencies to the same value (one
  // latency per fabric level: always, today), each descent's route latency
  // is that sum continued over its links, the same additions.
  for (int reach = 0; reach < kNumReaches; ++reach) {
    const double first = climbs_[static_cast<size_t>(reach)].latency_sum;
    bool uniform = true;
    for (int r = 0; r < ranks && uniform; ++r)
      uniform = climbs_[kNumReaches * static_cast<size_t>(r) + reach].latency_sum == first;
    uniform_climb_latency_[reach] = uniform;
    if (!uniform) continue;
    for (int r = 0; r < ranks; ++r) {
      HalfRoute& down = descents_[kNumReaches * static_cast<size_t>(r) + reach];
      down.route_latency = first;
      for (int h = 0; h < down.hops; ++h) down.route_latency += down.latency[h];
    }
  }
  // Each link's role in the halves: 1 a climb's top, 2 a descent's top, 4
  // any other link. One role each lets send_closed_form hold the tops' sums.
  std::vector<uint8_t> role(links.size(), 0);
  for (const HalfRoute& up : climbs_) {
    for (int h = 0; h < up.hops; ++h) role[up.links[h]] |= h == up.hops - 1 ? 1 : 4;
  }
  for (const HalfRoute& down : descents_) {
    for (int h = 0; h < down.hops; ++h) role[down.links[h]] |= h == 0 ? 2 : 4;
  }
  tops_apart_ = std::all_of(role.begin(), role.end(),
                            [](uint8_t r) { return r == 0 || r == 1 || r == 2 || r == 4; });
}

FlowNetwork::~FlowNetwork() = default;

int FlowNetwork::active_flows() const { return state_->active; }

inline const FlowNetwork::HalfRoute& FlowNetwork::climb(const ClosedFormMessage& m) const {
  return climbs_[kNumReaches * static_cast<size_t>(m.src) + static_cast<size_t>(m.reach)];
}

inline const FlowNetwork::HalfRoute& FlowNetwork::descent(const ClosedFormMessage& m) const {
  return descents_[kNumReaches * static_cast<size_t>(m.dst) + static_cast<size_t>(m.reach)];
}

// Writes the message to *m; returns its route's halves when it moves.
inline std::pair<const FlowNetwork::HalfRoute*, const FlowNetwork::HalfRoute*>
FlowNetwork::fill_message(int src_rank, int dst_rank, double bytes, ClosedFormMessage* m) const {
  assert(closed_form_exact_);
  *m = ClosedFormMessage{.bytes = bytes, .src = src_rank, .dst = dst_rank};
  if (!(bytes > 0.0) || src_rank == dst_rank) return {nullptr, nullptr};
  m->across = domain_[static_cast<size_t>(src_rank)] != domain_[static_cast<size_t>(dst_rank)];
  m->reach = !m->across ? Reach::kDomain
             : !leaf_.empty() &&
                     leaf_[static_cast<size_t>(src_rank)] == leaf_[static_cast<size_t>(dst_rank)]
                 ? Reach::kLeaf
                 : Reach::kCore;
  const HalfRoute& up = climb(*m);
  const HalfRoute& down = descent(*m);
  fill_moving(up, down, m->reach, m);
  return {&up, &down};
}

void FlowNetwork::closed_form_message(int src_rank, int dst_rank, double bytes,
                                      ClosedFormMessage* m) const {
  fill_message(src_rank, dst_rank, bytes, m);
}

void FlowNetwork::account_closed_form(const ClosedFormMessage& m) {
  if (!(m.bytes > 0.0)) return;  // the flow path starts no flow for an empty message either
  ++flows_started_;
  if (m.moves) add_link_bytes(climb(m), descent(m), m.bytes);
}

namespace {

// A link's bytes held in a register while successive messages cross it.
class RunningSum {
 public:
  explicit RunningSum(std::vector<double>& link_bytes) : link_bytes_(link_bytes.data()) {}
  void add(int link, double bytes) {
    if (link != link_) {
      flush();
      link_ = link;
      sum_ = link_bytes_[link];
    }
    sum_ += bytes;
  }
  void flush() {
    if (link_ >= 0) link_bytes_[link_] = sum_;
  }

 private:
  double* link_bytes_;
  int link_ = -1;
  double sum_ = 0.0;
};

}  // namespace

void FlowNetwork::send_closed_form(std::span<const int> src, std::span<const int> dst,
                                   std::span<const double> bytes,
                                   std::span<ClosedFormMessage> out) {
  assert(closed_form_exact_ && src.size() == dst.size() && src.size() == bytes.size() &&
         src.size() == out.size());
  if (!tops_apart_) {
    for (size_t k = 0; k < src.size(); ++k) {
      closed_form_message(src[k], dst[k], bytes[k], &out[k]);
      account_closed_form(out[k]);
    }
    return;
  }
  RunningSum climb_top(link_bytes_);
  RunningSum descent_top(link_bytes_);
  double* link_bytes = link_bytes_.data();
  for (size_t k = 0; k < src.size(); ++k) {
    ClosedFormMessage& m = out[k];
    const auto [up, down] = fill_message(src[k], dst[k], bytes[k], &m);
    if (!(m.bytes > 0.0)) continue;  // as account_closed_form
    ++flows_started_;
    if (up == nullptr) continue;
    // Route order on every link: the links are each in one role (tops_apart_).
    for (int h = 0; h + 1 < up->hops; ++h) link_bytes[up->links[h]] += m.bytes;
    climb_top.add(up->links[up->hops - 1], m.bytes);
    descent_top.add(down->links[0], m.bytes);
    for (int h = 1; h < down->hops; ++h) link_bytes[down->links[h]] += m.bytes;
  }
  climb_top.flush();
  descent_top.flush();
}

void FlowNetwork::start_flow(int src_rank, int dst_rank, double bytes, FlowListener* listener,
                             int64_t token, const FlowShape& shape) {
  if (src_rank == dst_rank || !(bytes > 0.0)) {
    start_route_flow({}, bytes, listener, token, shape);
    return;
  }
  start_route_flow(graph_.route(src_rank, dst_rank), bytes, listener, token, shape);
}

void FlowNetwork::start_route_flow(std::span<const int> route, double bytes, FlowListener* listener,
                                   int64_t token, const FlowShape& shape) {
  assert(listener != nullptr);
  State& s = *state_;
  const int f = s.allocate();
  State::Flow& flow = s.flows[f];
  flow.listener = listener;
  flow.token = token;
  flow.bytes = bytes;
  ++s.active;
  ++flows_started_;
  const double now = queue_.now();
  if (route.empty() || !(bytes > 0.0)) {
    // Nothing to transmit: delivered now, but through the queue so the
    // listener never runs inside start_flow.
    flow.hops = 0;
    flow.phase = FlowPhase::kArriving;
    queue_.schedule(now, this, f, pack(flow.generation, kArrived));
    return;
  }

  assert(route.size() <= static_cast<size_t>(kMaxHops));
  flow.route = route.data();
  flow.hops = static_cast<int>(route.size());
  flow.bottleneck = std::numeric_limits<double>::infinity();
  flow.latency = 0.0;
  for (int l : route) {
    flow.bottleneck = std::min(flow.bottleneck, s.capacity[l]);
    flow.latency += graph_.links()[l].latency_ms;
  }
  if (shape.rate_cap < flow.bottleneck) flow.bottleneck = shape.rate_cap;
  if (shape.latency_ms >= 0.0) flow.latency = shape.latency_ms;
  flow.remaining = bytes;
  flow.rate = 0.0;
  flow.updated_at = now;
  flow.phase = FlowPhase::kTransmitting;
  if (!contention_) {
    s.set_rate(f, flow.bottleneck);
    return;
  }

  s.attach(f);
  bool saturates = false;
  for (int l : route) {
    if (!s.saturable(l)) continue;
    saturates = true;
    s.mark_dirty(l);
  }
  // When every link fits all its flows' bottlenecks nobody's rate changes;
  // otherwise the flow gets its rate (and its end event) from the recomputation
  // later at this instant.
  if (!saturates) s.set_rate(f, flow.bottleneck);
}

void FlowNetwork::State::rerate(std::span<const int> seeds) {
  discover(seeds);
  fill();
  for (int f : component) {
    const Flow& flow = flows[f];
    if (flow.rate > 0.0 && std::abs(flow.new_rate - flow.rate) <= kRateSlack * flow.rate) continue;
    set_rate(f, flow.new_rate);
  }
}

void FlowNetwork::State::set_rate(int f, double rate) {
  assert(rate > 0.0);
  Flow& flow = flows[f];
  const double now = queue->now();
  if (flow.rate > 0.0) {
    // Rounding may leave a hair below zero for a flow re-rated at its end time.
    flow.remaining = std::max(0.0, flow.remaining - flow.rate * (now - flow.updated_at));
  }
  flow.updated_at = now;
  flow.rate = rate;
  ++flow.generation;
  queue->schedule(now + flow.remaining / rate, handler, f, pack(flow.generation, kTransmitted));
}

void FlowNetwork::on_event(int64_t a, int64_t b) {
  State& s = *state_;
  if ((b & kKindMask) == kRecompute) {
    s.recompute();
    return;
  }
  const int f = static_cast<int>(a);
  State::Flow& flow = s.flows[f];
  if ((b & kKindMask) == kArrived) {
    assert(flow.phase == FlowPhase::kArriving);
    FlowListener* listener = flow.listener;
    const int64_t token = flow.token;
    flow.phase = FlowPhase::kFree;
    s.free_flows.push_back(f);
    --s.active;
    listener->on_flow_done(token);  // last: it may start flows that reuse the slot
    return;
  }
  if (flow.phase != FlowPhase::kTransmitting || pack(flow.generation, kTransmitted) != b)
    return;  // stale

  const double now = queue_.now();
  for (int h = 0; h < flow.hops; ++h) link_bytes_[flow.route[h]] += flow.bytes;
  flow.remaining = 0.0;
  flow.phase = FlowPhase::kArriving;
  if (contention_) {
    // Only links that saturated with this flow can give its bandwidth to others.
    for (int h = 0; h < flow.hops; ++h) {
      if (s.saturable(flow.route[h])) s.mark_dirty(flow.route[h]);
    }
    s.detach(f);
  }
  ++flow.generation;
  queue_.schedule(now + flow.latency, this, f, pack(flow.generation, kArrived));
}

}  // namespace shardlab::sim
