// The cluster as a graph (Boost.Graph): GPUs, each NVLink domain's fabric
// (an NVSwitch-like crossbar), NICs, leaf switches and the network core. An
// NVLink domain is one host unless fabric.nvlink_domain_size spans several
// (a GB200 NVL72 rack: 18 hosts of 4 GPUs in one domain of 72). Leaves are
// one per domain, or, on a rail-optimized network (fabric.rail_optimized,
// a DGX SuperPOD's), one per rail and group of rail_group_size hosts: NIC n
// of each host of the group is on rail n's leaf.
//
// Every physical link is two directed edges (full duplex), each with its own
// capacity (bytes/ms) and latency (ms). Switch vertices are non-blocking: only
// edges limit bandwidth. A GPU-to-GPU route is the fewest-hop path (a
// breadth-first search per source rank, cached), which is always the source's
// climb then the destination's descent (below):
//
//   same domain:               gpu -> fabric -> gpu
//   same rail leaf:            gpu -> nic -> leaf -> nic -> gpu
//   otherwise:                 gpu -> nic -> leaf -> core -> leaf -> nic -> gpu
//   with PXN, another rail:    gpu -> fabric -> gpu' -> nic' -> leaf -> nic -> gpu
//                              (gpu' the source host's GPU on the destination's
//                              rail; its leaf, or its leaf and the core and the
//                              destination's leaf when the groups differ)
//
// Capacities come from the scenario: gpu<->fabric = intra_host_bw (per host
// override), gpu<->nic and nic<->leaf = the NIC's bandwidth, leaf<->core =
// the leaf's NICs · nic_bw / oversubscription. A domain of D GPUs over hosts
// of L holds the NICs of its D/L hosts, m in all; its GPU k uses NIC k·m / D,
// and NIC n is on rail n mod (NICs per host).
//
// Hosts (local_world_size ranks, TorchRec's) and NVLink domains are both
// asked for: host_of() for what runs per host (TorchRec's process groups,
// the CPU), domain_of() for whether traffic crosses a NIC.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"

namespace shardlab::sim {

enum class VertexKind { kGpu, kHostFabric, kNic, kLeaf, kCore };
enum class LinkKind {
  kGpuFabric,
  kFabricGpu,
  kGpuNic,
  kNicGpu,
  kNicLeaf,
  kLeafNic,
  kLeafCore,
  kCoreLeaf
};

struct Vertex {
  VertexKind kind = VertexKind::kGpu;
  int host = -1;  // the NVLink domain (a host unless domains span hosts); -1 for the core
  int index = 0;  // GPU: index in the domain; NIC: NIC index; else 0
  int rank = -1;  // GPU: global rank
  // "host0/gpu3", "host0/fabric", "host0/nic1", "host0/leaf", "core"; "domain0/..."
  // where domains span hosts.
  std::string name;
};

struct Link {
  LinkKind kind = LinkKind::kGpuFabric;
  int from = 0;  // vertex ids
  int to = 0;
  double capacity = 0.0;  // bytes/ms
  double latency_ms = 0.0;
  std::string name;  // "host0/gpu3->host0/fabric"
};

// How far a message climbs: within its NVLink domain (the fabric), to a
// leaf both ends share (a rail's), or to the core.
enum class Reach : uint8_t { kDomain, kLeaf, kCore };
inline constexpr int kNumReaches = 3;

class TopologyGraph {
 public:
  // The longest route: PXN between rail groups (gpu -> fabric -> gpu ->
  // nic -> leaf -> core -> leaf -> nic -> gpu); without PXN six.
  static constexpr int kMaxRouteLinks = 8;
  // The longest climb or descent (gpu -> nic -> leaf -> core).
  static constexpr int kMaxHalfLinks = 3;

  // Ranks: topology.world_size; hosts of local_world_size GPUs (the last host
  // holds the remainder when world_size is not a multiple).
  static Result<TopologyGraph> build(const planner::TopologySpec& topology,
                                     const planner::FabricSpec& fabric);

  TopologyGraph(TopologyGraph&&) noexcept;
  TopologyGraph& operator=(TopologyGraph&&) noexcept;
  ~TopologyGraph();

  int num_ranks() const;
  int num_hosts() const;
  int local_world_size() const;
  int host_of(int rank) const;
  // NVLink domains: hosts unless fabric.nvlink_domain_size spans several.
  int num_domains() const;
  int domain_size() const;
  int domain_of(int rank) const;
  // Whether the network is rail-optimized, and a message from src to dst
  // goes through NVLink to the GPU on dst's rail first (PXN).
  bool rail_optimized() const;
  // A rank's rail (its NIC's index in its host) and rail group; 0 when the
  // network is not rail-optimized.
  int rail_of(int rank) const;
  int rail_group_of(int rank) const;
  bool relays(int src_rank, int dst_rank) const;
  // How far the message from src to dst climbs (without PXN's relay).
  Reach reach(int src_rank, int dst_rank) const;

  const std::vector<Vertex>& vertices() const;
  const std::vector<Link>& links() const;
  int gpu_vertex(int rank) const;

  // True when no link can be a bottleneck shared by flows of collectives in
  // which every GPU sends and receives one message at a time: each NIC serves
  // at most one GPU, each leaf's links to the core carry the sum of its
  // NICs' bandwidth, and no message relays through another GPU (PXN). Flows
  // then always run at their route's bottleneck.
  bool non_blocking() const;

  // Link ids from src's GPU to dst's GPU, in path order; empty when src == dst.
  // The span stays valid while the graph lives. Routes from a source are found
  // on its first query and cached, so route() mutates a cache: not thread-safe.
  std::span<const int> route(int src_rank, int dst_rank) const;
  // Every route without a relay climbs from the source's GPU to its top (the
  // domain's fabric, a shared leaf, or the core) and descends from there to
  // the destination's GPU: for src != dst, route(src, dst) is
  // climb(src, reach) followed by descent(dst, reach), reach = reach(src,
  // dst). The halves are fixed when the graph is built (no cache,
  // thread-safe), so a collective that walks every pair of ranks needs no
  // route cache. A relayed route (PXN) is not two halves.
  std::span<const int> climb(int rank, Reach reach) const;
  std::span<const int> descent(int rank, Reach reach) const;
  // A route of the single link `link` (a link id), valid while the graph lives.
  std::span<const int> link_route(int link) const;
  // The link from rank's GPU into its domain's fabric, and back.
  int fabric_uplink(int rank) const;
  int fabric_downlink(int rank) const;
  // Sum of the route's link latencies (in route order), and its smallest
  // capacity. Read from the route's halves (climb, descent): O(links), and
  // neither fills the route cache route() keeps (ranks x ranks entries), so
  // a caller may ask for every pair of 16,384 ranks; a relayed route is
  // read from route().
  double route_latency(int src_rank, int dst_rank) const;
  double route_bottleneck(int src_rank, int dst_rank) const;

 private:
  struct Impl;
  explicit TopologyGraph(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardlab::sim
