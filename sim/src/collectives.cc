// Hierarchical all-reduce: a composition of ring or switch collectives, one
// phase after the other per member (a member enters the next phase as soon as
// its part of the current one is done). Switch collectives: NVLS and SHARP.
// Message shapes.
#include "shardlab/sim/collectives.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <span>
#include <utility>

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
  const bool across = graph.domain_of(src_rank) != graph.domain_of(dst_rank);
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

// Once every member has joined, each sends `up` bytes into a switch that
// reduces or multicasts and receives `down` bytes from it, both at once:
// through the NVLink domain's switches (NVLS; the GPU's fabric links) or
// through the network's (SHARP; the GPU's climb to the core and descent).
// A member is done when both of its transfers are.
class SwitchCollective final : public detail::CollectiveBase {
 public:
  SwitchCollective(FlowNetwork& network, std::vector<int> members, double up, double down,
                   bool network_switch, CollectiveListener* listener, int64_t tag,
                   const CollectiveShape& shape)
      : CollectiveBase(network, std::move(members), listener, tag, shape),
        up_(up),
        down_(down),
        network_switch_(network_switch) {
    arrived_.assign(size(), 0);
  }

  void join([[maybe_unused]] int member) override {
    assert(member >= 0 && member < size() && "each member joins once");
    if (++joined_ < size()) return;
    const TopologyGraph& graph = network_.graph();
    const MessageShape& m = network_switch_ ? shape_.inter : shape_.intra;
    for (int member_index = 0; member_index < size(); ++member_index) {
      const int rank = members_[member_index];
      const std::span<const int> climb =
          network_switch_ ? graph.climb(rank, true) : graph.link_route(graph.fabric_uplink(rank));
      const std::span<const int> descent = network_switch_
                                               ? graph.descent(rank, true)
                                               : graph.link_route(graph.fabric_downlink(rank));
      for (const auto& [route, bytes] : {std::pair{climb, up_}, std::pair{descent, down_}}) {
        if (!(bytes > 0.0)) {
          message_done(member_index);
          continue;
        }
        FlowShape f{.rate_cap = m.cap, .latency_ms = m.latency_ms};
        if (m.fraction < 1.0) {
          double line = std::numeric_limits<double>::infinity();
          for (const int link : route) line = std::min(line, graph.links()[link].capacity);
          f.rate_cap = std::min(f.rate_cap, m.fraction * line);
        }
        network_.start_route_flow(route, bytes, this, member_index, f);
      }
    }
    drain();
  }

 private:
  void on_message_done(int64_t member) override {
    if (++arrived_[member] == 2) report_done(static_cast<int>(member));
  }

  double up_ = 0.0;
  double down_ = 0.0;
  bool network_switch_ = false;
  int joined_ = 0;
  std::vector<int> arrived_;
};

class HierarchicalAllReduce final : public Collective, private CollectiveListener {
 public:
  // groups[h][j]: index in `members` of the j-th member on the h-th host;
  // every group has the same size L >= 2 and there are H >= 2 groups.
  HierarchicalAllReduce(FlowNetwork& network, std::vector<int> members,
                        std::vector<std::vector<int>> groups, double bytes,
                        CollectiveListener* listener, int64_t tag, const CollectiveShape& shape,
                        HierarchyStages stages)
      : Collective(network, std::move(members), listener, tag, shape), groups_(std::move(groups)) {
    // The base latency is charged once, by the last stage.
    CollectiveShape inner = shape;
    inner.base_ms = 0.0;
    const int hosts = static_cast<int>(groups_.size());
    const int local = static_cast<int>(groups_[0].size());
    const double share = bytes / local;
    CollectiveListener* const self = this;  // the base is private: convert here
    host_.assign(size(), 0);
    local_.assign(size(), 0);
    for (int h = 0; h < hosts; ++h) {
      std::vector<int> ranks;
      for (int j = 0; j < local; ++j) {
        host_[groups_[h][j]] = h;
        local_[groups_[h][j]] = j;
        ranks.push_back(members_[groups_[h][j]]);
      }
      if (stages.nvls_intra) {
        // The switch reduces each share from every member's buffer, then
        // multicasts each member's reduced share to all.
        reduce_scatter_.push_back(std::make_unique<SwitchCollective>(
            network, ranks, bytes, share, false, self, sub_tag(h, kIntraReduce), inner));
        all_gather_.push_back(std::make_unique<SwitchCollective>(
            network, ranks, share, bytes, false, self, sub_tag(h, kIntraGather), shape));
      } else {
        reduce_scatter_.push_back(make_ring_reduce_scatter(network, ranks,
                                                           std::vector<double>(local, share), this,
                                                           sub_tag(h, kIntraReduce), inner));
        all_gather_.push_back(make_ring_all_gather(network, ranks,
                                                   std::vector<double>(local, share), this,
                                                   sub_tag(h, kIntraGather), shape));
      }
    }
    for (int j = 0; j < local; ++j) {
      std::vector<int> ranks;
      for (int h = 0; h < hosts; ++h) ranks.push_back(members_[groups_[h][j]]);
      if (stages.sharp_inter) {
        all_reduce_.push_back(std::make_unique<SwitchCollective>(
            network, std::move(ranks), share, share, true, self, sub_tag(j, kInterReduce), inner));
      } else {
        all_reduce_.push_back(make_ring_all_reduce(network, std::move(ranks), share, this,
                                                   sub_tag(j, kInterReduce), inner));
      }
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
  // Reduce-scatter and all-gather through the switch at once: S·(n+1)/n
  // bytes each way per member.
  const double n = static_cast<double>(members.size());
  const double per_direction = members.size() > 1 ? bytes * (n + 1.0) / n : 0.0;
  return std::make_unique<SwitchCollective>(network, std::move(members), per_direction,
                                            per_direction, false, listener, tag, shape);
}

std::unique_ptr<Collective> make_hierarchical_all_reduce(FlowNetwork& network,
                                                         const TopologyGraph& graph,
                                                         std::vector<int> members, double bytes,
                                                         CollectiveListener* listener, int64_t tag,
                                                         const CollectiveShape& shape,
                                                         HierarchyStages stages) {
  // Group members by NVLink domain, domains in order of first appearance.
  std::vector<int> group_of_host(graph.num_domains(), -1);
  std::vector<std::vector<int>> groups;
  for (int i = 0; i < static_cast<int>(members.size()); ++i) {
    const int host = graph.domain_of(members[i]);
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
                                                 bytes, listener, tag, shape, stages);
}

}  // namespace shardlab::sim
