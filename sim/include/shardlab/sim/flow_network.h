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
// pairwise all-to-all on a non-blocking fabric at O(1) work per flow.
//
// With contention off, every flow gets its route's bottleneck bandwidth as if
// it were alone (the alpha-beta view).
#pragma once

#include <cstdint>
#include <memory>
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

class FlowNetwork : private EventHandler {
 public:
  FlowNetwork(EventQueue& queue, const TopologyGraph& graph, bool contention = true);
  ~FlowNetwork();
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  // Starts a flow now. `listener->on_flow_done(token)` runs when it has
  // arrived. src == dst or bytes <= 0 completes at now() through the queue
  // (never re-entrantly).
  void start_flow(int src_rank, int dst_rank, double bytes, FlowListener* listener, int64_t token);

  // Bytes carried by each link so far (index = link id).
  const std::vector<double>& link_bytes() const { return link_bytes_; }
  int active_flows() const;
  uint64_t flows_started() const { return flows_started_; }

 private:
  void on_event(int64_t a, int64_t b) override;

  EventQueue& queue_;
  const TopologyGraph& graph_;
  bool contention_;
  std::vector<double> link_bytes_;
  uint64_t flows_started_ = 0;
  // Flows, per-link membership and free lists (flow_network.cc).
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace shardlab::sim
