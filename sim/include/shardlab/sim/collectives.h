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
//                   for members in several NVLink domains: reduce-scatter
//                   inside each domain, all-reduce of each 1/L share across
//                   domains among members with the same local index,
//                   all-gather inside each domain; each stage a ring or a
//                   switch (NVLS inside, SHARP across: HierarchyStages),
//                   pipelined over pieces of the buffer (pipeline_chunks).
//   NvlsAllReduce   members of one domain whose switch reduces (NVLink SHARP):
//                   once every member joined, each sends S·(n+1)/n bytes
//                   into the host fabric and receives as much from it (the
//                   switch reduces and multicasts), both at once.
//
// Where every flow runs at its route's bottleneck (FlowNetwork::
// closed_form_exact()), the all-to-all and the rings start no flows: once the
// last member has joined they solve their step schedule in closed form, with
// the flows' arithmetic, so member completion times, link bytes and the flow
// count come out as the flows' would (tests/sim/collectives_test.cc).
//
// A CollectiveShape (from the NCCL-like layer, collective_model.h) caps each
// message's rate and sets its latency, by scope (inside a host or across
// hosts) and, for all-to-all messages, by size; `base_ms` delays each
// member's completion once. The default shape is the plain flow model: line
// rate and the route's link latencies.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "shardlab/sim/flow_network.h"

namespace shardlab::sim {

// How messages of one scope use their route.
struct MessageShape {
  double fraction = 1.0;                                 // of the route's bottleneck, in (0, 1]
  double cap = std::numeric_limits<double>::infinity();  // bytes/ms, > 0
  double latency_ms = -1.0;  // per message; < 0: the route's link latencies
};

struct CollectiveShape {
  MessageShape intra;  // both ends in one NVLink domain
  MessageShape inter;  // ends in different domains
  // All-to-all messages of at most `small_bytes` use these instead (NCCL's
  // LL protocol for small point-to-point messages); < 0: none.
  double small_bytes = -1.0;
  MessageShape small_intra;
  MessageShape small_inter;
  double base_ms = 0.0;  // added once to every member's completion

  // The flow a message of `bytes` between these ranks gets.
  FlowShape flow(const TopologyGraph& graph, int src_rank, int dst_rank, double bytes) const;
  // The same for a message whose ends are on different hosts or not, on a
  // route whose bottleneck is known (the graph's route_bottleneck).
  FlowShape flow(bool across_hosts, double route_bottleneck, double bytes) const;
  bool plain() const;

 private:
  const MessageShape& message(bool across_hosts, double bytes) const;
};

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
  Collective(FlowNetwork& network, std::vector<int> members, CollectiveListener* listener,
             int64_t tag, const CollectiveShape& shape = {})
      : network_(network),
        members_(std::move(members)),
        listener_(listener),
        tag_(tag),
        shape_(shape),
        plain_(shape.plain()) {}
  FlowNetwork& network_;
  std::vector<int> members_;
  CollectiveListener* listener_;
  int64_t tag_;
  CollectiveShape shape_;
  bool plain_;  // shape_ is the default: skip computing flow shapes
};

// bytes(i, j): bytes member i sends member j (i != j asked only), >= 0.
using SplitFn = std::function<double(int from_member, int to_member)>;

std::unique_ptr<Collective> make_all_to_all(FlowNetwork& network, std::vector<int> members,
                                            SplitFn bytes, CollectiveListener* listener,
                                            int64_t tag, const CollectiveShape& shape = {});
// The same with bytes(i, j) = from_bytes[i] + to_bytes[j] (what member i
// sends everyone plus what everyone sends member j, the traffic model's
// splits), read without a call per message.
std::unique_ptr<Collective> make_all_to_all(FlowNetwork& network, std::vector<int> members,
                                            std::vector<double> from_bytes,
                                            std::vector<double> to_bytes,
                                            CollectiveListener* listener, int64_t tag,
                                            const CollectiveShape& shape = {});

// chunk_bytes[i]: size of the chunk member i ends with (reduce-scatter) or
// contributes (all-gather). Every member's buffer is the sum of all chunks.
std::unique_ptr<Collective> make_ring_reduce_scatter(FlowNetwork& network, std::vector<int> members,
                                                     std::vector<double> chunk_bytes,
                                                     CollectiveListener* listener, int64_t tag,
                                                     const CollectiveShape& shape = {});
std::unique_ptr<Collective> make_ring_all_gather(FlowNetwork& network, std::vector<int> members,
                                                 std::vector<double> chunk_bytes,
                                                 CollectiveListener* listener, int64_t tag,
                                                 const CollectiveShape& shape = {});

// Every member holds `bytes`; equal shares of bytes / n.
std::unique_ptr<Collective> make_ring_all_reduce(FlowNetwork& network, std::vector<int> members,
                                                 double bytes, CollectiveListener* listener,
                                                 int64_t tag, const CollectiveShape& shape = {});

// How the stages of a hierarchical all-reduce run (S bytes, L members per
// domain):
//   nvls_intra   the reduce-scatter and the all-gather inside each domain go
//                through its NVLink switches: a member sends S and receives
//                S/L, then sends S/L and receives S (NCCL's NVLS, NVLSTree);
//                else rings;
//   sharp_inter  each share is reduced by the network's switches (SHARP): a
//                member sends its S/L up to the core and receives S/L back,
//                both at once (NCCL's CollNet, NVLS+SHARP); else a ring
//                all-reduce among the members with its local index.
struct HierarchyStages {
  bool nvls_intra = false;
  bool sharp_inter = false;
};

// The hierarchical all-reduce pipelines its stages over pieces of one NCCL
// chunk of each member's share: 2 MiB, the Simple protocol's 512 KiB step
// times ALLREDUCE_CHUNKSTEPS (4) in NCCL's src/include/collectives.h and
// device code; at most kMaxPipelineChunks pieces (the simulation's cost),
// whose fill then costs 1/16 of a stage.
inline constexpr double kPipelineChunkBytes = 2.0 * 1024 * 1024;
inline constexpr int kMaxPipelineChunks = 16;
// Pieces of a hierarchical all-reduce whose members hold `share_bytes` each
// after the reduce-scatter: ceil(share / kPipelineChunkBytes), in
// [1, kMaxPipelineChunks].
int pipeline_chunks(double share_bytes);

// `members` grouped by graph.domain_of(); falls back to the flat ring when
// all members share one domain, domains hold different numbers of members,
// or one member each.
std::unique_ptr<Collective> make_hierarchical_all_reduce(FlowNetwork& network,
                                                         const TopologyGraph& graph,
                                                         std::vector<int> members, double bytes,
                                                         CollectiveListener* listener, int64_t tag,
                                                         const CollectiveShape& shape = {},
                                                         HierarchyStages stages = {});

// REQUIRES: every member in one NVLink domain.
std::unique_ptr<Collective> make_nvls_all_reduce(FlowNetwork& network, std::vector<int> members,
                                                 double bytes, CollectiveListener* listener,
                                                 int64_t tag, const CollectiveShape& shape = {});

}  // namespace shardlab::sim
