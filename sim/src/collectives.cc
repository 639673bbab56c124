// Hierarchical all-reduce: a composition of ring collectives, one phase after
// the other per member (a member enters the next phase as soon as its part of
// the current one is done).
#include <cassert>

#include "shardlab/sim/collectives.h"

namespace shardlab::sim {

namespace {

class HierarchicalAllReduce final : public Collective, private CollectiveListener {
 public:
  // groups[h][j]: index in `members` of the j-th member on the h-th host;
  // every group has the same size L >= 2 and there are H >= 2 groups.
  HierarchicalAllReduce(FlowNetwork& network, std::vector<int> members, std::vector<std::vector<int>> groups,
                        double bytes, CollectiveListener* listener, int64_t tag)
      : Collective(network, std::move(members), listener, tag), groups_(std::move(groups)) {
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
      reduce_scatter_.push_back(
          make_ring_reduce_scatter(network, ranks, std::vector<double>(local, share), this, sub_tag(h, kIntraReduce)));
      all_gather_.push_back(
          make_ring_all_gather(network, ranks, std::vector<double>(local, share), this, sub_tag(h, kIntraGather)));
    }
    for (int j = 0; j < local; ++j) {
      std::vector<int> ranks;
      for (int h = 0; h < hosts; ++h) ranks.push_back(members_[groups_[h][j]]);
      all_reduce_.push_back(make_ring_all_reduce(network, std::move(ranks), share, this, sub_tag(j, kInterReduce)));
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
  std::vector<int> host_;   // per member: its group
  std::vector<int> local_;  // per member: its index in the group
  std::vector<std::unique_ptr<Collective>> reduce_scatter_;  // per host
  std::vector<std::unique_ptr<Collective>> all_reduce_;      // per local index
  std::vector<std::unique_ptr<Collective>> all_gather_;      // per host
};

}  // namespace

std::unique_ptr<Collective> make_hierarchical_all_reduce(FlowNetwork& network, const TopologyGraph& graph,
                                                         std::vector<int> members, double bytes,
                                                         CollectiveListener* listener, int64_t tag) {
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
  if (!uniform) return make_ring_all_reduce(network, std::move(members), bytes, listener, tag);
  return std::make_unique<HierarchicalAllReduce>(network, std::move(members), std::move(groups), bytes, listener,
                                                 tag);
}

}  // namespace shardlab::sim
