// Hierarchical all-reduce: a composition of ring collectives, one phase after
// the other per member (a member enters the next phase as soon as its part of
// the current one is done). NVLS all-reduce. Message shapes.
#include "shardlab/sim/collectives.h"

#include <algorithm>
#include <cassert>

#include "collective_base.h"

namespace shardlab::sim {

bool CollectiveShape::plain() const {
  const auto plain_message = [](const MessageShape& m) {
    return m.fraction >= 1.0 && m.cap == std::numeric_limits<double>::infinity() &&
           m.latency_ms < 0.0;
  };
  return plain_message(intra) && plain_message(inter) && small_bytes < 0.0 && base_ms == 0.0;
}

FlowShape CollectiveShape::flow(const TopologyGraph& graph, int src_rank, int dst_rank,
                                double bytes) const {
  const bool across = graph.host_of(src_rank) != graph.host_of(dst_rank);
  const MessageShape& m = message(across, bytes);
  // The route is walked only when the fraction needs its bottleneck.
  return m.fraction < 1.0 ? flow(across, graph.route_bottleneck(src_rank, dst_rank), bytes)
                          : FlowShape{.rate_cap = m.cap, .latency_ms = m.latency_ms};
}

FlowShape CollectiveShape::flow(bool across_hosts, double route_bottleneck, double bytes) const {
  const MessageShape& m = message(across_hosts, bytes);
  FlowShape f;
  f.latency_ms = m.latency_ms;
  f.rate_cap = m.cap;
  if (m.fraction < 1.0) f.rate_cap = std::min(f.rate_cap, m.fraction * route_bottleneck);
  return f;
}

const MessageShape& CollectiveShape::message(bool across_hosts, double bytes) const {
  const bool small = small_bytes >= 0.0 && bytes <= small_bytes;
  return small ? (across_hosts ? small_inter : small_intra) : (across_hosts ? inter : intra);
}

namespace {

// NVLS all-reduce on one host: every member pushes its buffer into the switch
// (which reduces it) and pulls the result back, S·(n+1)/n bytes each way per
// member, both directions at once. Data moves once every member has joined.
class NvlsAllReduce final : public detail::CollectiveBase {
 public:
  NvlsAllReduce(FlowNetwork& network, std::vector<int> members, double bytes,
                CollectiveListener* listener, int64_t tag, const CollectiveShape& shape)
      : CollectiveBase(network, std::move(members), listener, tag, shape) {
    const double n = static_cast<double>(size());
    per_direction_ = size() > 1 ? bytes * (n + 1.0) / n : 0.0;
    arrived_.assign(size(), 0);
  }

  void join([[maybe_unused]] int member) override {
    assert(member >= 0 && member < size() && "each member joins once");
    if (++joined_ < size()) return;
    const TopologyGraph& graph = network_.graph();
    for (int m = 0; m < size(); ++m) {
      if (!(per_direction_ > 0.0)) {
        report_done(m);
        continue;
      }
      const int rank = members_[m];
      for (const int link : {graph.fabric_uplink(rank), graph.fabric_downlink(rank)}) {
        FlowShape f;
        f.latency_ms = shape_.intra.latency_ms;
        f.rate_cap = shape_.intra.cap;
        if (shape_.intra.fraction < 1.0) {
          f.rate_cap = std::min(f.rate_cap, shape_.intra.fraction * graph.links()[link].capacity);
        }
        network_.start_route_flow(graph.link_route(link), per_direction_, this, m, f);
      }
    }
  }

 private:
  void on_message_done(int64_t member) override {
    if (++arrived_[member] == 2) report_done(static_cast<int>(member));
  }

  double per_direction_ = 0.0;
  int joined_ = 0;
  std::vector<int> arrived_;
};

class HierarchicalAllReduce final : public Collective, private CollectiveListener {
 public:
  // groups[h][j]: index in `members` of the j-th member on the h-th host;
  // every group has the same size L >= 2 and there are H >= 2 groups.
  HierarchicalAllReduce(FlowNetwork& network, std::vector<int> members,
                        std::vector<std::vector<int>> groups, double bytes,
                        CollectiveListener* listener, int64_t tag, const CollectiveShape& shape)
      : Collective(network, std::move(members), listener, tag, shape), groups_(std::move(groups)) {
    // The base latency is charged once, by the last stage.
    CollectiveShape inner = shape;
    inner.base_ms = 0.0;
    const int hosts = static_cast<int>(groups_.size());
    const int local = static_cast<int>(groups_[0].size());
    const double share = bytes / local;
    host_.assign(size(), 0);
    local_.assign(size(), 0);
    for (int h = 0; h < hosts; ++h) {
      std::vector<int> ranks;
      for (int j = 0; j < local; ++j) {
        host_[groups_[h][j]] = h;
        local_[groups_[h][j]] = j;
        ranks.push_back(members_[groups_[h][j]]);
      }
      reduce_scatter_.push_back(make_ring_reduce_scatter(network, ranks,
                                                         std::vector<double>(local, share), this,
                                                         sub_tag(h, kIntraReduce), inner));
      all_gather_.push_back(make_ring_all_gather(network, ranks, std::vector<double>(local, share),
                                                 this, sub_tag(h, kIntraGather), shape));
    }
    for (int j = 0; j < local; ++j) {
      std::vector<int> ranks;
      for (int h = 0; h < hosts; ++h) ranks.push_back(members_[groups_[h][j]]);
      all_reduce_.push_back(make_ring_all_reduce(network, std::move(ranks), share, this,
                                                 sub_tag(j, kInterReduce), inner));
    }
  }

  void join(int member) override { reduce_scatter_[host_[member]]->join(local_[member]); }

 private:
  enum SubPhase { kIntraReduce = 0, kInterReduce = 1, kIntraGather = 2 };
  static int64_t sub_tag(int group, SubPhase phase) { return int64_t{group} * 3 + phase; }

  // Runs from the sub-collectives' events, so calling the outer listener here
  // is event processing too, never inside join().
  void on_member_done(int64_t tag, int sub_member) override {
    const int group = static_cast<int>(tag / 3);
    switch (static_cast<SubPhase>(tag % 3)) {
      case kIntraReduce:  // host `group`, local index sub_member: holds its reduced share
        all_reduce_[sub_member]->join(group);
        break;
      case kInterReduce:  // local index `group`, host sub_member: share reduced across hosts
        all_gather_[sub_member]->join(group);
        break;
      case kIntraGather:  // host `group`, local index sub_member: holds the whole result
        listener_->on_member_done(tag_, groups_[group][sub_member]);
        break;
    }
  }

  std::vector<std::vector<int>> groups_;
  std::vector<int> host_;                                    // per member: its group
  std::vector<int> local_;                                   // per member: its index in the group
  std::vector<std::unique_ptr<Collective>> reduce_scatter_;  // per host
  std::vector<std::unique_ptr<Collective>> all_reduce_;      // per local index
  std::vector<std::unique_ptr<Collective>> all_gather_;      // per host
};

}  // namespace

std::unique_ptr<Collective> make_nvls_all_reduce(FlowNetwork& network, std::vector<int> members,
                                                 double bytes, CollectiveListener* listener,
                                                 int64_t tag, const CollectiveShape& shape) {
  return std::make_unique<NvlsAllReduce>(network, std::move(members), bytes, listener, tag, shape);
}

std::unique_ptr<Collective> make_hierarchical_all_reduce(FlowNetwork& network,
                                                         const TopologyGraph& graph,
                                                         std::vector<int> members, double bytes,
                                                         CollectiveListener* listener, int64_t tag,
                                                         const CollectiveShape& shape) {
  // Group members by host, hosts in order of first appearance.
  std::vector<int> group_of_host(graph.num_hosts(), -1);
  std::vector<std::vector<int>> groups;
  for (int i = 0; i < static_cast<int>(members.size()); ++i) {
    const int host = graph.host_of(members[i]);
    if (group_of_host[host] < 0) {
      group_of_host[host] = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[group_of_host[host]].push_back(i);
  }
  bool uniform = groups.size() >= 2 && groups[0].size() >= 2;
  for (const std::vector<int>& g : groups) uniform = uniform && g.size() == groups[0].size();
  // One host, uneven hosts, or one member per host (where the hierarchy is the
  // flat ring anyway): the flat ring.
  if (!uniform)
    return make_ring_all_reduce(network, std::move(members), bytes, listener, tag, shape);
  return std::make_unique<HierarchicalAllReduce>(network, std::move(members), std::move(groups),
                                                 bytes, listener, tag, shape);
}

}  // namespace shardlab::sim
