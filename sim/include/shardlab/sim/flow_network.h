// Point-to-point flows over the topology graph, sharing links with max-min
// fairness.
//
// A flow of S bytes from rank a to rank b transmits along route(a, b) at a
// rate set by max-min fair sharing (progressive filling) among the flows
// active on each link; rates are recomputed whenever a flow starts or ends.
// Its last byte arrives route_latency(a, b) after transmission ends, so one
// flow alone on one link takes S / capacity + latency.
//
// Recomputation is incremental: only flows connected to the changed flow
// through links that can saturate are re-rated. A link cannot saturate when the
// sum of its flows' standalone bottlenecks fits in its capacity; such links
// never constrain a max-min allocation and are skipped, which keeps a
// pairwise all-to-all on a non-blocking fabric at O(1) work per flow. When
// links do saturate, the changes of one instant are re-rated together, from one
// event at that same time (a collective step starts many flows at once).
//
// With contention off, every flow gets its route's bottleneck bandwidth as if
// it were alone (the alpha-beta view).
//
// A flow may carry a FlowShape: a rate cap below its route's bottleneck (what
// a collective's protocol achieves of the line rate) and its own latency in
// place of the route's summed link latencies. The cap is the flow's
// standalone rate: max-min sharing treats it as the flow's own bottleneck.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "shardlab/sim/event_queue.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::sim {

class FlowListener {
 public:
  // Called at the time the flow's last byte arrives.
  virtual void on_flow_done(int64_t token) = 0;

 protected:
  ~FlowListener() = default;
};

struct FlowShape {
  double rate_cap = std::numeric_limits<double>::infinity();  // bytes/ms, > 0
  double latency_ms = -1.0;  // < 0: the route's summed link latencies
};

class FlowNetwork : private EventHandler {
 public:
  // `allow_closed_form` false makes collectives always start flows (tests
  // compare the two paths on the same input).
  FlowNetwork(EventQueue& queue, const TopologyGraph& graph, bool contention = true,
              bool allow_closed_form = true);
  ~FlowNetwork();
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  // Starts a flow now. `listener->on_flow_done(token)` runs when it has
  // arrived. src == dst or bytes <= 0 completes at now() through the queue
  // (never re-entrantly).
  void start_flow(int src_rank, int dst_rank, double bytes, FlowListener* listener, int64_t token,
                  const FlowShape& shape = {});
  // Starts a flow over the given links (ids of graph().links(), in path
  // order), e.g. one GPU's link into its host fabric. `links` must stay valid
  // until the flow is done (TopologyGraph::link_route()).
  void start_route_flow(std::span<const int> links, double bytes, FlowListener* listener,
                        int64_t token, const FlowShape& shape = {});

  // True when every flow runs at its route's bottleneck whatever else is in
  // flight (contention off, or a non-blocking graph): a collective may then
  // compute its messages in closed form instead of starting flows.
  bool closed_form_exact() const { return closed_form_exact_; }
  // closed_form_exact() of a network that would be built with these
  // arguments, known before it is (the simulation's memory estimate counts
  // the route cache only when flows fill it).
  static bool closed_form_exact(const TopologyGraph& graph, bool contention,
                                bool allow_closed_form) {
    return allow_closed_form && (!contention || graph.non_blocking());
  }
  // A message computed in closed form: its bytes, its ends, and its route's
  // bottleneck and latency (the graph's route_bottleneck and route_latency:
  // the same min, and the same sum in route order); alone on its route it
  // takes bytes / bottleneck + latency. `moves` is false for an empty message
  // or src == dst, which take no time.
  struct ClosedFormMessage {
    double bytes = 0.0;
    double bottleneck = 0.0;  // bytes/ms, the route's narrowest link
    double latency_ms = 0.0;
    int src = 0;  // ranks
    int dst = 0;
    bool across = false;           // between NVLink domains
    Reach reach = Reach::kDomain;  // how far its route climbs
    bool moves = false;
  };
  // Writes the message from src to dst to *m, reading its route as the
  // graph's climb and descent (no route cache, O(1) per message).
  void closed_form_message(int src_rank, int dst_rank, double bytes, ClosedFormMessage* m) const;
  // Accounts a message computed in closed form: its bytes on every link of
  // the route, in route order, and one more flow (none for an empty message).
  void account_closed_form(const ClosedFormMessage& m);
  // Both at once for messages k = 0, 1, ... in order, from src[k] to dst[k]
  // of bytes[k], written to out[k]: the same messages and the same additions
  // to each link in the same order as closed_form_message then
  // account_closed_form one message at a time. The top link of a climb and
  // of a descent, which successive messages from one host share, keeps its
  // running sum in a register (one of an all-to-all step's costs).
  void send_closed_form(std::span<const int> src, std::span<const int> dst,
                        std::span<const double> bytes, std::span<ClosedFormMessage> out);

  // Bytes carried by each link so far (index = link id).
  const std::vector<double>& link_bytes() const { return link_bytes_; }
  // Flows started whose listener has not run yet.
  int active_flows() const;
  uint64_t flows_started() const { return flows_started_; }
  // The queue the network schedules on (collectives schedule their own events there).
  EventQueue& queue() const { return queue_; }
  const TopologyGraph& graph() const { return graph_; }

 private:
  void on_event(int64_t a, int64_t b) override;

  EventQueue& queue_;
  const TopologyGraph& graph_;
  bool contention_;
  bool closed_form_exact_;
  std::vector<double> link_bytes_;
  uint64_t flows_started_ = 0;

  // One half of a route with what a closed form needs of it (flow_network.cc).
  struct HalfRoute;
  const HalfRoute& climb(const ClosedFormMessage& m) const;
  const HalfRoute& descent(const ClosedFormMessage& m) const;
  void fill_moving(const HalfRoute& up, const HalfRoute& down, Reach reach,
                   ClosedFormMessage* m) const;
  std::pair<const HalfRoute*, const HalfRoute*> fill_message(int src_rank, int dst_rank,
                                                             double bytes,
                                                             ClosedFormMessage* m) const;
  void add_link_bytes(const HalfRoute& up, const HalfRoute& down, double bytes);

  // Per rank and reach, [kNumReaches * rank + reach]: its climb and descent
  // (built only where closed forms are exact).
  std::vector<HalfRoute> climbs_;
  std::vector<HalfRoute> descents_;
  std::vector<int> domain_;  // per rank: its NVLink domain
  // Per rank on a rail-optimized network: rail x rail groups + rail, the
  // leaf it reaches (empty otherwise).
  std::vector<int> leaf_;
  bool uniform_climb_latency_[kNumReaches] = {false, false, false};
  // No link is both the top of a half and another link of a half, or the top
  // of a climb and of a descent: send_closed_form may hold the tops' sums.
  bool tops_apart_ = false;
  // Flows, per-link membership and free lists (flow_network.cc).
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace shardlab::sim
