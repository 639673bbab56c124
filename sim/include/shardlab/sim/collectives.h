// Collectives built from flows on a FlowNetwork.
//
// A collective runs among `members` (global ranks; member i is members[i]).
// Each member joins when its stream reaches the collective (join(i) at the
// current time); sends and receives that involve a member start only once it
// has joined, so a collective synchronises its ranks the way NCCL's do. Each
// member finishes independently: listener->on_member_done(tag, i) runs when
// member i's last send and receive are complete.
//
// Algorithms (NCCL's, at the level of messages):
//   AllToAll        pairwise exchange: n-1 steps, in step k member i sends
//                   bytes(i, i+k mod n) to i+k and receives from i-k; a step's
//                   message starts when both ends finished the previous step.
//                   Splits may be uneven; zero-byte messages are skipped.
//   RingReduceScatter / RingAllGather
//                   n-1 steps around the ring members[0..n-1]; in each step a
//                   member sends one chunk to its successor once it received
//                   the previous step's chunk from its predecessor.
//   RingAllReduce   reduce-scatter then all-gather on the same ring:
//                   2(n-1) steps of S/n bytes, so S bytes take
//                   2(n-1)/n · S/B plus 2(n-1) latencies.
//   HierarchicalAllReduce
//                   for members on several hosts: ring reduce-scatter inside
//                   each host, ring all-reduce of each 1/L share across hosts
//                   among members with the same local index, ring all-gather
//                   inside each host.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "shardlab/sim/flow_network.h"

namespace shardlab::sim {

class CollectiveListener {
 public:
  virtual void on_member_done(int64_t tag, int member) = 0;

 protected:
  ~CollectiveListener() = default;
};

class Collective {
 public:
  virtual ~Collective() = default;
  // Member `member` joins now. Each member joins exactly once.
  virtual void join(int member) = 0;
  int size() const { return static_cast<int>(members_.size()); }
  const std::vector<int>& members() const { return members_; }

 protected:
  Collective(FlowNetwork& network, std::vector<int> members, CollectiveListener* listener, int64_t tag)
      : network_(network), members_(std::move(members)), listener_(listener), tag_(tag) {}
  FlowNetwork& network_;
  std::vector<int> members_;
  CollectiveListener* listener_;
  int64_t tag_;
};

// bytes(i, j): bytes member i sends member j (i != j asked only), >= 0.
using SplitFn = std::function<double(int from_member, int to_member)>;

std::unique_ptr<Collective> make_all_to_all(FlowNetwork& network, std::vector<int> members, SplitFn bytes,
                                            CollectiveListener* listener, int64_t tag);

// chunk_bytes[i]: size of the chunk member i ends with (reduce-scatter) or
// contributes (all-gather). Every member's buffer is the sum of all chunks.
std::unique_ptr<Collective> make_ring_reduce_scatter(FlowNetwork& network, std::vector<int> members,
                                                     std::vector<double> chunk_bytes,
                                                     CollectiveListener* listener, int64_t tag);
std::unique_ptr<Collective> make_ring_all_gather(FlowNetwork& network, std::vector<int> members,
                                                 std::vector<double> chunk_bytes, CollectiveListener* listener,
                                                 int64_t tag);

// Every member holds `bytes`; equal shares of bytes / n.
std::unique_ptr<Collective> make_ring_all_reduce(FlowNetwork& network, std::vector<int> members, double bytes,
                                                 CollectiveListener* listener, int64_t tag);

// `members` grouped by graph.host_of(); falls back to the ring when all
// members share one host or hosts hold different numbers of members.
std::unique_ptr<Collective> make_hierarchical_all_reduce(FlowNetwork& network, const TopologyGraph& graph,
                                                         std::vector<int> members, double bytes,
                                                         CollectiveListener* listener, int64_t tag);

}  // namespace shardlab::sim
