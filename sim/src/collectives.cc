// Hierarchical all-reduce: a composition of ring or switch collectives, one
// phase after the other per member (a member enters the next phase as soon as
// its part of the current one is done). Switch collectives: NVLS and SHARP.
// Message shapes.
#include "shardlab/sim/collectives.h"

#include <algorithm>
#include <cassert>
#include <cmath>
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
      const std::span<const int> climb = network_switch_
                                             ? graph.climb(rank, Reach::kCore)
                                             : graph.link_route(graph.fabric_uplink(rank));
      const std::span<const int> descent = network_switch_
                                               ? graph.descent(rank, Reach::kCore)
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

// The stages run pipelined over `chunks` equal pieces of the buffer, as NCCL
// pipelines its algorithms' steps, so the domain's links and the network
// work at once. Each resource takes one piece at a time, in order: a member
// runs its reduce-scatters of every piece back to back, then its
// all-gathers (inside the domain), while the pieces it has reduced go
// across the domains one after the other. So at most one ring of a domain
// and one of a local index run at once: rings never share a link among
// themselves and keep their closed form. The per-message latencies are paid
// by the first piece only (the pipeline's fill); the others stream behind it.
class HierarchicalAllReduce final : public Collective, private CollectiveListener {
 public:
  // groups[h][j]: index in `members` of the j-th member on the h-th host;
  // every group has the same size L >= 2 and there are H >= 2 groups.
  HierarchicalAllReduce(FlowNetwork& network, std::vector<int> members,
                        std::vector<std::vector<int>> groups, double bytes,
                        CollectiveListener* listener, int64_t tag, const CollectiveShape& shape,
                        HierarchyStages stages, int chunks)
      : Collective(network, std::move(members), listener, tag, shape),
        groups_(std::move(groups)),
        chunks_(chunks) {
    const int hosts = static_cast<int>(groups_.size());
    const int local = static_cast<int>(groups_[0].size());
    width_ = std::max(hosts, local);
    host_.assign(size(), 0);
    local_.assign(size(), 0);
    progress_.assign(size(), Progress{});
    for (int h = 0; h < hosts; ++h) {
      for (int j = 0; j < local; ++j) {
        host_[groups_[h][j]] = h;
        local_[groups_[h][j]] = j;
      }
    }
    for (int c = 0; c < chunks_; ++c) add_chunk(network, bytes / chunks_, stages, c);
  }

  void join(int member) override { stage(0, kIntraReduce, host_[member]).join(local_[member]); }

 private:
  enum SubPhase { kIntraReduce = 0, kInterReduce = 1, kIntraGather = 2 };
  int64_t sub_tag(int chunk, int group, SubPhase phase) const {
    return (int64_t{chunk} * width_ + group) * 3 + phase;
  }
  // Stage `phase` of piece `chunk` for `group` (a host, or a local index
  // for the stage across hosts).
  Collective& stage(int chunk, SubPhase phase, int group) {
    return *stages_[(static_cast<size_t>(chunk) * 3 + phase) * static_cast<size_t>(width_) +
                    static_cast<size_t>(group)];
  }

  void add_chunk(FlowNetwork& network, double bytes, HierarchyStages stages, int c) {
    const int hosts = static_cast<int>(groups_.size());
    const int local = static_cast<int>(groups_[0].size());
    const double share = bytes / local;
    CollectiveListener* const self = this;  // the base is private: convert here
    // The base latency is charged once, by the last stage; the message
    // latencies by the first piece.
    CollectiveShape inner = shape_;
    inner.base_ms = 0.0;
    CollectiveShape last = shape_;
    if (c > 0) {
      for (CollectiveShape* s : {&inner, &last}) {
        for (MessageShape* m : {&s->intra, &s->inter, &s->small_intra, &s->small_inter})
          m->latency_ms = 0.0;
      }
    }
    std::vector<std::unique_ptr<Collective>> reduce(static_cast<size_t>(width_));
    std::vector<std::unique_ptr<Collective>> across(static_cast<size_t>(width_));
    std::vector<std::unique_ptr<Collective>> gather(static_cast<size_t>(width_));
    for (int h = 0; h < hosts; ++h) {
      std::vector<int> ranks;
      for (int j = 0; j < local; ++j) ranks.push_back(members_[groups_[h][j]]);
      if (stages.nvls_intra) {
        // The switch reduces each share from every member's buffer, then
        // multicasts each member's reduced share to all.
        reduce[h] = std::make_unique<SwitchCollective>(network, ranks, bytes, share, false, self,
                                                       sub_tag(c, h, kIntraReduce), inner);
        gather[h] = std::make_unique<SwitchCollective>(network, ranks, share, bytes, false, self,
                                                       sub_tag(c, h, kIntraGather), last);
      } else {
        reduce[h] = make_ring_reduce_scatter(network, ranks, std::vector<double>(local, share),
                                             self, sub_tag(c, h, kIntraReduce), inner);
        gather[h] = make_ring_all_gather(network, ranks, std::vector<double>(local, share), self,
                                         sub_tag(c, h, kIntraGather), last);
      }
    }
    for (int j = 0; j < local; ++j) {
      std::vector<int> ranks;
      for (int h = 0; h < hosts; ++h) ranks.push_back(members_[groups_[h][j]]);
      across[j] = stages.sharp_inter ? std::make_unique<SwitchCollective>(
                                           network, std::move(ranks), share, share, true, self,
                                           sub_tag(c, j, kInterReduce), inner)
                                     : make_ring_all_reduce(network, std::move(ranks), share, self,
                                                            sub_tag(c, j, kInterReduce), inner);
    }
    for (auto* list : {&reduce, &across, &gather}) {
      for (auto& collective : *list) stages_.push_back(std::move(collective));
    }
  }

  // A member's pieces through each stage: done, and joined.
  struct Progress {
    int reduced = 0;  // reduce-scatters done (joined in order, one at a time)
    int across = 0;   // pieces reduced across domains
    int across_joined = 0;
    int gathered = 0;  // all-gathers done
    int gather_joined = 0;
  };

  // Joins the member's next piece across the domains once it has reduced
  // that piece and finished the previous one across.
  void next_across(int member) {
    Progress& p = progress_[member];
    if (p.across_joined == chunks_ || p.reduced <= p.across_joined || p.across < p.across_joined)
      return;
    stage(p.across_joined++, kInterReduce, local_[member]).join(host_[member]);
  }

  // Joins the member's next all-gather once all its reduce-scatters are done
  // (one ring at a time in the domain), that piece came back from across the
  // domains, and its previous all-gather is done.
  void next_gather(int member) {
    Progress& p = progress_[member];
    if (p.gather_joined == chunks_ || p.reduced < chunks_ || p.across <= p.gather_joined ||
        p.gathered < p.gather_joined) {
      return;
    }
    stage(p.gather_joined++, kIntraGather, host_[member]).join(local_[member]);
  }

  // Runs from the sub-collectives' events, so calling the outer listener here
  // is event processing too, never inside join().
  void on_member_done(int64_t tag, int sub_member) override {
    const auto phase = static_cast<SubPhase>(tag % 3);
    const int group = static_cast<int>((tag / 3) % width_);
    const int chunk = static_cast<int>(tag / 3 / width_);
    // Reduce-scatters and all-gathers are per domain (group = host, sub_member
    // = local index), the stage across per local index (the reverse).
    const int member =
        phase == kInterReduce ? groups_[sub_member][group] : groups_[group][sub_member];
    Progress& p = progress_[member];
    switch (phase) {
      case kIntraReduce:
        ++p.reduced;
        if (chunk + 1 < chunks_) stage(chunk + 1, kIntraReduce, group).join(sub_member);
        next_across(member);
        next_gather(member);
        break;
      case kInterReduce:
        ++p.across;
        next_across(member);
        next_gather(member);
        break;
      case kIntraGather:
        if (++p.gathered == chunks_) {
          listener_->on_member_done(tag_, member);
        } else {
          next_gather(member);
        }
        break;
    }
  }

  std::vector<std::vector<int>> groups_;
  int chunks_ = 1;
  int width_ = 1;                   // max(hosts, local): sub-collectives per stage and piece
  std::vector<int> host_;           // per member: its group
  std::vector<int> local_;          // per member: its index in the group
  std::vector<Progress> progress_;  // per member
  // [chunk][phase][group], width_ groups per (chunk, phase); unused slots empty.
  std::vector<std::unique_ptr<Collective>> stages_;
};

}  // namespace

int pipeline_chunks(double share_bytes) {
  const double pieces = std::ceil(share_bytes / kPipelineChunkBytes);
  return static_cast<int>(std::clamp(pieces, 1.0, static_cast<double>(kMaxPipelineChunks)));
}

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
  const int chunks = pipeline_chunks(bytes / static_cast<double>(groups[0].size()));
  return std::make_unique<HierarchicalAllReduce>(network, std::move(members), std::move(groups),
                                                 bytes, listener, tag, shape, stages, chunks);
}

}  // namespace shardlab::sim
