#include "shardlab/sim/topology_graph.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <cassert>
#include <cstdint>
#include <limits>
#include <sstream>
#include <utility>

namespace shardlab::sim {

namespace {

// Directed multigraph; each edge carries its link id so BFS results map back
// to links_ directly.
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                    boost::property<boost::edge_index_t, int>>;

// Records, for each discovered vertex, the link that discovered it.
class PredecessorLinkRecorder : public boost::default_bfs_visitor {
 public:
  explicit PredecessorLinkRecorder(std::vector<int>& pred_link) : pred_link_(&pred_link) {}
  template <typename Edge, typename G>
  void tree_edge(Edge e, const G& g) const {
    (*pred_link_)[boost::target(e, g)] = boost::get(boost::edge_index, g, e);
  }

 private:
  std::vector<int>* pred_link_;
};

std::string num(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

Status must_be_positive(const std::string& field, double v) {
  if (v > 0.0) return Status::ok();
  return Status::invalid_argument(field + ": must be > 0, got " + num(v));
}

Status must_be_non_negative(const std::string& field, double v) {
  if (v >= 0.0) return Status::ok();
  return Status::invalid_argument(field + ": must be >= 0, got " + num(v));
}

// What one host looks like once the fabric-wide values and its overrides are
// combined.
struct HostPlan {
  int first_rank = 0;
  int gpus = 0;
  int nics = 0;
  double intra_bw = 0.0;
  double nic_bw = 0.0;
};

int local_world_size_of(const planner::TopologySpec& topology) {
  return topology.local_world_size.value_or(topology.world_size);
}

Status validate(const planner::TopologySpec& topology, const planner::FabricSpec& fabric) {
  if (topology.world_size < 1) {
    return Status::invalid_argument("topology.world_size: must be >= 1, got " +
                                    std::to_string(topology.world_size));
  }
  const int local = local_world_size_of(topology);
  if (local < 1) {
    return Status::invalid_argument("topology.local_world_size: must be >= 1, got " +
                                    std::to_string(local));
  }
  const int hosts = (topology.world_size + local - 1) / local;
  if (Status s = must_be_positive("topology.intra_host_bw", topology.intra_host_bw); !s) return s;
  if (Status s = must_be_positive("topology.inter_host_bw", topology.inter_host_bw); !s) return s;
  if (fabric.nics_per_host < 0) {
    return Status::invalid_argument("topology.fabric.nics_per_host: must be >= 0, got " +
                                    std::to_string(fabric.nics_per_host));
  }
  if (fabric.nic_bw) {
    if (Status s = must_be_positive("topology.fabric.nic_bw", *fabric.nic_bw); !s) return s;
  }
  if (!(fabric.oversubscription >= 1.0)) {
    return Status::invalid_argument("topology.fabric.oversubscription: must be >= 1, got " +
                                    num(fabric.oversubscription));
  }
  if (Status s = must_be_non_negative("topology.fabric.intra_host_latency_ms",
                                      fabric.intra_host_latency_ms);
      !s) {
    return s;
  }
  if (Status s = must_be_non_negative("topology.fabric.inter_host_latency_ms",
                                      fabric.inter_host_latency_ms);
      !s) {
    return s;
  }
  if (fabric.nvlink_domain_size < 0 ||
      (fabric.nvlink_domain_size > 0 && (fabric.nvlink_domain_size % local != 0 ||
                                         topology.world_size % fabric.nvlink_domain_size != 0))) {
    return Status::invalid_argument("topology.fabric.nvlink_domain_size: must be whole hosts of " +
                                    std::to_string(local) + " GPUs that divide world_size " +
                                    std::to_string(topology.world_size) + ", got " +
                                    std::to_string(fabric.nvlink_domain_size));
  }
  if (fabric.nvlink_domain_size > local && !fabric.hosts.empty()) {
    return Status::invalid_argument(
        "topology.fabric.hosts: per-host overrides cannot be used inside an NVLink domain of "
        "several hosts");
  }
  if (fabric.pxn && !fabric.rail_optimized) {
    return Status::invalid_argument(
        "topology.fabric.pxn: PXN relays to another rail's NIC, which needs "
        "topology.fabric.rail_optimized");
  }
  if (fabric.rail_group_size < 0) {
    return Status::invalid_argument("topology.fabric.rail_group_size: must be >= 0, got " +
                                    std::to_string(fabric.rail_group_size));
  }
  if (fabric.rail_optimized &&
      std::any_of(fabric.hosts.begin(), fabric.hosts.end(),
                  [](const planner::HostFabricSpec& h) { return h.nics.has_value(); })) {
    return Status::invalid_argument(
        "topology.fabric.hosts: per-host NIC counts cannot be used on a rail-optimized network "
        "(every host has one NIC per rail)");
  }
  if (!fabric.hosts.empty() && static_cast<int>(fabric.hosts.size()) != hosts) {
    return Status::invalid_argument(
        "topology.fabric.hosts: " + std::to_string(fabric.hosts.size()) +
        " entries but the topology has " + std::to_string(hosts) + " hosts");
  }
  for (size_t h = 0; h < fabric.hosts.size(); ++h) {
    const planner::HostFabricSpec& host = fabric.hosts[h];
    const std::string field = "topology.fabric.hosts[" + std::to_string(h) + "]";
    if (host.intra_host_bw) {
      if (Status s = must_be_positive(field + ".intra_host_bw", *host.intra_host_bw); !s) return s;
    }
    if (host.nic_bw) {
      if (Status s = must_be_positive(field + ".nic_bw", *host.nic_bw); !s) return s;
    }
    if (host.nics && *host.nics < 1) {
      return Status::invalid_argument(field + ".nics: must be >= 1, got " +
                                      std::to_string(*host.nics));
    }
  }
  return Status::ok();
}

// GPUs per NVLink domain: the fabric's nvlink_domain_size, else one host.
int domain_size_of(const planner::TopologySpec& topology, const planner::FabricSpec& fabric) {
  return fabric.nvlink_domain_size > 0 ? fabric.nvlink_domain_size : local_world_size_of(topology);
}

// One plan per NVLink domain (a host unless the domain spans several).
std::vector<HostPlan> plan_hosts(const planner::TopologySpec& topology,
                                 const planner::FabricSpec& fabric) {
  const int local = local_world_size_of(topology);
  const int domain = domain_size_of(topology, fabric);
  const int hosts_per_domain = domain / local;
  const int num_domains = (topology.world_size + domain - 1) / domain;
  std::vector<HostPlan> plans(num_domains);
  for (int h = 0; h < num_domains; ++h) {
    HostPlan& p = plans[h];
    const planner::HostFabricSpec* over = fabric.hosts.empty() ? nullptr : &fabric.hosts[h];
    p.first_rank = h * domain;
    p.gpus = std::min(domain, topology.world_size - p.first_rank);
    // A short last host is a host of the same build with fewer GPUs in use, so
    // its NIC count and bandwidth follow local_world_size, not its GPU count.
    const int host_nics = (over && over->nics)
                              ? *over->nics
                              : (fabric.nics_per_host > 0 ? fabric.nics_per_host : local);
    p.nics = host_nics * hosts_per_domain;
    p.intra_bw = (over && over->intra_host_bw) ? *over->intra_host_bw : topology.intra_host_bw;
    if (over && over->nic_bw) {
      p.nic_bw = *over->nic_bw;
    } else if (fabric.nic_bw) {
      p.nic_bw = *fabric.nic_bw;
    } else {
      p.nic_bw = topology.inter_host_bw * local / host_nics;
    }
  }
  return plans;
}

}  // namespace

struct TopologyGraph::Impl {
  int num_ranks = 0;
  int local_world_size = 1;     // GPUs per host
  int domain_size = 1;          // GPUs per NVLink domain
  std::vector<HostPlan> hosts;  // one per NVLink domain
  std::vector<Vertex> vertices;
  std::vector<Link> links;
  std::vector<int> link_ids;     // link_ids[l] == l: one-link routes point here
  std::vector<int> fabric_up;    // per rank: GPU -> host fabric link
  std::vector<int> fabric_down;  // per rank: host fabric -> GPU link
  // Per rank, the climb and the descent to the core (kHalfLinks link ids
  // each: gpu -> nic -> leaf -> core and back); their first two links are
  // the climb and descent to the leaf. Within a domain they are fabric_up
  // and fabric_down.
  static constexpr int kHalfLinks = kMaxHalfLinks;
  std::vector<int> climb_across;
  std::vector<int> descent_across;
  // Rail-optimized networks: per rank its rail and rail group; per host and
  // rail, the host's GPU whose NIC is on that rail (PXN's relay), or -1.
  bool rails = false;
  bool pxn = false;
  int host_nics = 1;  // NICs per host: rails
  std::vector<int> rail_of;
  std::vector<int> group_of;
  std::vector<int> rail_gpu;
  Graph graph;

  // Route cache, filled per source on its first query: kMaxRouteLinks link ids
  // per destination plus the route's length. 1024 ranks: ~25 MB when every
  // source has been queried.
  mutable std::vector<std::vector<int>> route_links;
  mutable std::vector<std::vector<uint8_t>> route_len;
  mutable std::vector<int> pred_link;  // BFS scratch, one entry per vertex

  int add_vertex(VertexKind kind, int host, int index, int rank, std::string name) {
    vertices.push_back(Vertex{kind, host, index, rank, std::move(name)});
    boost::add_vertex(graph);
    return static_cast<int>(vertices.size()) - 1;
  }

  void add_link(LinkKind kind, int from, int to, double capacity, double latency_ms) {
    const int id = static_cast<int>(links.size());
    links.push_back(
        Link{kind, from, to, capacity, latency_ms, vertices[from].name + "->" + vertices[to].name});
    boost::add_edge(from, to, id, graph);
  }

  // Both directions of a physical link.
  void add_duplex(LinkKind there, LinkKind back, int a, int b, double capacity, double latency_ms) {
    add_link(there, a, b, capacity, latency_ms);
    add_link(back, b, a, capacity, latency_ms);
  }

  void build(const planner::FabricSpec& fabric);
  void build_rails(const planner::FabricSpec& fabric);
  void fill_routes(int src) const;
  Reach reach(int src, int dst) const;
  // PXN's relay for src -> dst: the GPU of src's host on dst's rail, or -1.
  int relay(int src, int dst) const;
  std::span<const int> climb(int rank, Reach reach) const;
  std::span<const int> descent(int rank, Reach reach) const;
  // The route as its halves say it (a relayed one: src to the relay inside
  // the domain, then the relay's halves); returns its length.
  int pair_route(int src, int dst, int* out) const;
  std::span<const int> route(int src, int dst) const;
};

void TopologyGraph::Impl::build(const planner::FabricSpec& fabric) {
  const int num_hosts = static_cast<int>(hosts.size());  // NVLink domains
  // Vertices of a domain that spans hosts are named by the domain.
  const std::string unit = domain_size > local_world_size ? "domain" : "host";
  // GPUs first, so a rank's GPU vertex id is the rank itself.
  for (int h = 0; h < num_hosts; ++h) {
    for (int k = 0; k < hosts[h].gpus; ++k) {
      add_vertex(VertexKind::kGpu, h, k, hosts[h].first_rank + k,
                 unit + std::to_string(h) + "/gpu" + std::to_string(k));
    }
  }
  std::vector<int> fabric_vertex(num_hosts);
  for (int h = 0; h < num_hosts; ++h) {
    fabric_vertex[h] =
        add_vertex(VertexKind::kHostFabric, h, 0, -1, unit + std::to_string(h) + "/fabric");
  }
  // GPU <-> fabric edges come before GPU <-> NIC edges: BFS explores a GPU's
  // out-edges in insertion order, so between two GPUs sharing a NIC the
  // equally short path through the fabric wins.
  for (int h = 0; h < num_hosts; ++h) {
    for (int k = 0; k < hosts[h].gpus; ++k) {
      fabric_up.push_back(static_cast<int>(links.size()));
      fabric_down.push_back(static_cast<int>(links.size()) + 1);
      add_duplex(LinkKind::kGpuFabric, LinkKind::kFabricGpu, hosts[h].first_rank + k,
                 fabric_vertex[h], hosts[h].intra_bw, fabric.intra_host_latency_ms);
    }
  }
  if (num_hosts <= 1) return;

  if (fabric.rail_optimized) {
    build_rails(fabric);
    return;
  }
  const double lat = fabric.inter_host_latency_ms;
  std::vector<int> first_nic(num_hosts);
  std::vector<int> leaf(num_hosts);
  for (int h = 0; h < num_hosts; ++h) {
    first_nic[h] = static_cast<int>(vertices.size());
    for (int n = 0; n < hosts[h].nics; ++n) {
      add_vertex(VertexKind::kNic, h, n, -1, unit + std::to_string(h) + "/nic" + std::to_string(n));
    }
    leaf[h] = add_vertex(VertexKind::kLeaf, h, 0, -1, unit + std::to_string(h) + "/leaf");
  }
  const int core = add_vertex(VertexKind::kCore, -1, 0, -1, "core");
  climb_across.assign(static_cast<size_t>(num_ranks) * kHalfLinks, -1);
  descent_across.assign(static_cast<size_t>(num_ranks) * kHalfLinks, -1);
  for (int h = 0; h < num_hosts; ++h) {
    const HostPlan& p = hosts[h];
    const int first_link = static_cast<int>(links.size());
    std::vector<int> gpu_nic(p.gpus);
    for (int k = 0; k < p.gpus; ++k) {
      gpu_nic[k] = static_cast<int>(int64_t{k} * p.nics / domain_size);
      add_duplex(LinkKind::kGpuNic, LinkKind::kNicGpu, p.first_rank + k, first_nic[h] + gpu_nic[k],
                 p.nic_bw, lat);
    }
    const int first_nic_link = static_cast<int>(links.size());
    for (int n = 0; n < p.nics; ++n) {
      add_duplex(LinkKind::kNicLeaf, LinkKind::kLeafNic, first_nic[h] + n, leaf[h], p.nic_bw, lat);
    }
    const int uplink = static_cast<int>(links.size());
    add_duplex(LinkKind::kLeafCore, LinkKind::kCoreLeaf, leaf[h], core,
               p.nics * p.nic_bw / fabric.oversubscription, lat);
    // gpu -> nic -> leaf -> core, and core -> leaf -> nic -> gpu (duplex
    // links are added there-and-back, so a link's reverse is the next id).
    for (int k = 0; k < p.gpus; ++k) {
      int* up = climb_across.data() + static_cast<size_t>(p.first_rank + k) * kHalfLinks;
      int* down = descent_across.data() + static_cast<size_t>(p.first_rank + k) * kHalfLinks;
      const int to_nic = first_link + 2 * k;
      const int nic_up = first_nic_link + 2 * gpu_nic[k];
      up[0] = to_nic;
      up[1] = nic_up;
      up[2] = uplink;
      down[0] = uplink + 1;
      down[1] = nic_up + 1;
      down[2] = to_nic + 1;
    }
  }
}

// A rail-optimized network (docs/simulation.md "Rail-optimized networks").
void TopologyGraph::Impl::build_rails(const planner::FabricSpec& fabric) {
  const int num_hosts = static_cast<int>(hosts.size());  // NVLink domains
  const std::string unit = domain_size > local_world_size ? "domain" : "host";
  const double lat = fabric.inter_host_latency_ms;
  const int hosts_per_domain = domain_size / local_world_size;
  host_nics = std::max(1, hosts[0].nics / hosts_per_domain);
  rails = fabric.rail_optimized;
  pxn = rails && fabric.pxn;
  std::vector<int> first_nic(num_hosts);
  for (int h = 0; h < num_hosts; ++h) {
    first_nic[h] = static_cast<int>(vertices.size());
    for (int n = 0; n < hosts[h].nics; ++n) {
      add_vertex(VertexKind::kNic, h, n, -1, unit + std::to_string(h) + "/nic" + std::to_string(n));
    }
  }
  // Leaves: one per domain, or one per rail and rail group.
  const int total_hosts = num_hosts * hosts_per_domain;
  const int group_hosts =
      fabric.rail_group_size > 0 ? std::min(fabric.rail_group_size, total_hosts) : total_hosts;
  const int groups = (total_hosts + group_hosts - 1) / group_hosts;
  std::vector<int> leaf;                    // vertex ids
  const auto leaf_of = [&](int h, int n) {  // NIC n of domain h
    if (!rails) return leaf[h];
    const int host = h * hosts_per_domain + n / host_nics;
    return leaf[(host / group_hosts) * host_nics + n % host_nics];
  };
  if (rails) {
    for (int g = 0; g < groups; ++g) {
      for (int r = 0; r < host_nics; ++r) {
        leaf.push_back(add_vertex(VertexKind::kLeaf, -1, r, -1,
                                  (groups > 1 ? "group" + std::to_string(g) + "/" : std::string()) +
                                      "rail" + std::to_string(r) + "/leaf"));
      }
    }
  } else {
    for (int h = 0; h < num_hosts; ++h)
      leaf.push_back(add_vertex(VertexKind::kLeaf, h, 0, -1, unit + std::to_string(h) + "/leaf"));
  }
  const int core = add_vertex(VertexKind::kCore, -1, 0, -1, "core");
  climb_across.assign(static_cast<size_t>(num_ranks) * kHalfLinks, -1);
  descent_across.assign(static_cast<size_t>(num_ranks) * kHalfLinks, -1);
  rail_of.assign(static_cast<size_t>(num_ranks), 0);
  group_of.assign(static_cast<size_t>(num_ranks), 0);
  rail_gpu.assign(static_cast<size_t>(total_hosts) * host_nics, -1);
  std::vector<int> nic_up_link;     // per NIC vertex: NIC -> leaf
  std::vector<double> leaf_demand;  // per vertex: the NICs' bandwidth into a leaf
  nic_up_link.assign(vertices.size(), -1);
  leaf_demand.assign(vertices.size(), 0.0);
  std::vector<int> gpu_link(static_cast<size_t>(num_ranks), -1);  // GPU -> NIC
  std::vector<int> gpu_nic_vertex(static_cast<size_t>(num_ranks), -1);
  for (int h = 0; h < num_hosts; ++h) {
    const HostPlan& p = hosts[h];
    for (int k = 0; k < p.gpus; ++k) {
      const int rank = p.first_rank + k;
      const int n = static_cast<int>(int64_t{k} * p.nics / domain_size);
      gpu_link[rank] = static_cast<int>(links.size());
      gpu_nic_vertex[rank] = first_nic[h] + n;
      add_duplex(LinkKind::kGpuNic, LinkKind::kNicGpu, rank, first_nic[h] + n, p.nic_bw, lat);
      const int host = h * hosts_per_domain + n / host_nics;
      rail_of[rank] = n % host_nics;
      group_of[rank] = host / group_hosts;
      int& relay_gpu = rail_gpu[static_cast<size_t>(rank / local_world_size) * host_nics +
                                static_cast<size_t>(rail_of[rank])];
      if (relay_gpu < 0) relay_gpu = rank;
    }
    for (int n = 0; n < p.nics; ++n) {
      const int nic = first_nic[h] + n;
      nic_up_link[nic] = static_cast<int>(links.size());
      add_duplex(LinkKind::kNicLeaf, LinkKind::kLeafNic, nic, leaf_of(h, n), p.nic_bw, lat);
      leaf_demand[leaf_of(h, n)] += p.nic_bw;
    }
  }
  // A leaf's uplink carries its NICs' bandwidth over the oversubscription.
  std::vector<int> leaf_up(vertices.size(), -1);
  for (const int l : leaf) {
    leaf_up[l] = static_cast<int>(links.size());
    add_duplex(LinkKind::kLeafCore, LinkKind::kCoreLeaf, l, core,
               leaf_demand[l] / fabric.oversubscription, lat);
  }
  // gpu -> nic -> leaf -> core, and core -> leaf -> nic -> gpu (duplex
  // links are added there-and-back, so a link's reverse is the next id).
  for (int rank = 0; rank < num_ranks; ++rank) {
    int* up = climb_across.data() + static_cast<size_t>(rank) * kHalfLinks;
    int* down = descent_across.data() + static_cast<size_t>(rank) * kHalfLinks;
    const int nic = gpu_nic_vertex[rank];
    const int uplink = leaf_up[links[nic_up_link[nic]].to];
    up[0] = gpu_link[rank];
    up[1] = nic_up_link[nic];
    up[2] = uplink;
    down[0] = uplink + 1;
    down[1] = nic_up_link[nic] + 1;
    down[2] = gpu_link[rank] + 1;
  }
}

void TopologyGraph::Impl::fill_routes(int src) const {
  std::vector<int>& out = route_links[src];
  std::vector<uint8_t>& len = route_len[src];
  out.assign(static_cast<size_t>(num_ranks) * kMaxRouteLinks, -1);
  len.assign(num_ranks, 0);
  if (rails) {
    // Between two rails several routes are equally short (through the core,
    // or NVLink then another GPU's NIC): the halves (and PXN) say which.
    for (int dst = 0; dst < num_ranks; ++dst) {
      if (dst == src) continue;
      len[dst] = static_cast<uint8_t>(
          pair_route(src, dst, out.data() + static_cast<size_t>(dst) * kMaxRouteLinks));
    }
    return;
  }
  pred_link.assign(vertices.size(), -1);
  boost::breadth_first_search(graph, boost::vertex(src, graph),
                              boost::visitor(PredecessorLinkRecorder(pred_link)));

  for (int dst = 0; dst < num_ranks; ++dst) {
    if (dst == src) continue;
    // Walk back from dst's GPU to src's, then reverse into path order.
    int* path = out.data() + static_cast<size_t>(dst) * kMaxRouteLinks;
    int hops = 0;
    for (int v = dst; v != src;) {
      const int link = pred_link[v];
      assert(link >= 0 && "topology graph is connected");
      assert(hops < kMaxRouteLinks && "routes have at most kMaxRouteLinks links");
      path[hops++] = link;
      v = links[link].from;
    }
    std::reverse(path, path + hops);
    len[dst] = static_cast<uint8_t>(hops);
#ifndef NDEBUG
    int halves[kMaxRouteLinks];
    const int n = pair_route(src, dst, halves);
    assert(n == hops && std::equal(halves, halves + n, path) && "a route is its two halves");
#endif
  }
}

Reach TopologyGraph::Impl::reach(int src, int dst) const {
  if (src / domain_size == dst / domain_size) return Reach::kDomain;  // domain_of
  if (rails && rail_of[src] == rail_of[dst] && group_of[src] == group_of[dst]) return Reach::kLeaf;
  return Reach::kCore;
}

int TopologyGraph::Impl::relay(int src, int dst) const {
  if (!pxn || src / domain_size == dst / domain_size || rail_of[src] == rail_of[dst]) return -1;
  return rail_gpu[static_cast<size_t>(src / local_world_size) * host_nics +
                  static_cast<size_t>(rail_of[dst])];
}

std::span<const int> TopologyGraph::Impl::climb(int rank, Reach reach) const {
  assert(rank >= 0 && rank < num_ranks && (reach == Reach::kDomain || !climb_across.empty()));
  if (reach == Reach::kDomain) return {fabric_up.data() + rank, 1};
  return {climb_across.data() + static_cast<size_t>(rank) * kHalfLinks,
          reach == Reach::kLeaf ? size_t{2} : size_t{kHalfLinks}};
}

std::span<const int> TopologyGraph::Impl::descent(int rank, Reach reach) const {
  assert(rank >= 0 && rank < num_ranks && (reach == Reach::kDomain || !descent_across.empty()));
  if (reach == Reach::kDomain) return {fabric_down.data() + rank, 1};
  // The descent from a leaf is the last two links of the one from the core.
  const int* down = descent_across.data() + static_cast<size_t>(rank) * kHalfLinks;
  if (reach == Reach::kLeaf) return {down + 1, 2};
  return {down, kHalfLinks};
}

int TopologyGraph::Impl::pair_route(int src, int dst, int* out) const {
  int hops = 0;
  const auto append = [&](std::span<const int> half) {
    for (const int l : half) out[hops++] = l;
  };
  const int via = relay(src, dst);
  if (via >= 0 && via != src) {
    out[hops++] = fabric_up[src];
    out[hops++] = fabric_down[via];
    src = via;
  }
  const Reach r = reach(src, dst);
  append(climb(src, r));
  append(descent(dst, r));
  return hops;
}

std::span<const int> TopologyGraph::Impl::route(int src, int dst) const {
  assert(src >= 0 && src < num_ranks && dst >= 0 && dst < num_ranks);
  if (route_len[src].empty()) fill_routes(src);
  return {route_links[src].data() + static_cast<size_t>(dst) * kMaxRouteLinks, route_len[src][dst]};
}

Result<TopologyGraph> TopologyGraph::build(const planner::TopologySpec& topology,
                                           const planner::FabricSpec& fabric) {
  if (Status s = validate(topology, fabric); !s) return s;
  auto impl = std::make_unique<Impl>();
  impl->num_ranks = topology.world_size;
  impl->local_world_size = local_world_size_of(topology);
  impl->domain_size = domain_size_of(topology, fabric);
  impl->hosts = plan_hosts(topology, fabric);
  impl->build(fabric);
  impl->link_ids.resize(impl->links.size());
  for (size_t l = 0; l < impl->links.size(); ++l) impl->link_ids[l] = static_cast<int>(l);
  impl->route_links.resize(impl->num_ranks);
  impl->route_len.resize(impl->num_ranks);
  return TopologyGraph(std::move(impl));
}

TopologyGraph::TopologyGraph(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TopologyGraph::TopologyGraph(TopologyGraph&&) noexcept = default;
TopologyGraph& TopologyGraph::operator=(TopologyGraph&&) noexcept = default;
TopologyGraph::~TopologyGraph() = default;

int TopologyGraph::num_ranks() const { return impl_->num_ranks; }
int TopologyGraph::num_hosts() const {
  return (impl_->num_ranks + impl_->local_world_size - 1) / impl_->local_world_size;
}
int TopologyGraph::local_world_size() const { return impl_->local_world_size; }
int TopologyGraph::host_of(int rank) const { return rank / impl_->local_world_size; }
int TopologyGraph::num_domains() const { return static_cast<int>(impl_->hosts.size()); }
int TopologyGraph::domain_size() const { return impl_->domain_size; }
int TopologyGraph::domain_of(int rank) const { return rank / impl_->domain_size; }
bool TopologyGraph::rail_optimized() const { return impl_->rails; }
int TopologyGraph::rail_of(int rank) const {
  return impl_->rails ? impl_->rail_of[static_cast<size_t>(rank)] : 0;
}
int TopologyGraph::rail_group_of(int rank) const {
  return impl_->rails ? impl_->group_of[static_cast<size_t>(rank)] : 0;
}
bool TopologyGraph::relays(int src_rank, int dst_rank) const {
  const int via = impl_->relay(src_rank, dst_rank);
  return via >= 0 && via != src_rank;
}
Reach TopologyGraph::reach(int src_rank, int dst_rank) const {
  return impl_->reach(src_rank, dst_rank);
}
const std::vector<Vertex>& TopologyGraph::vertices() const { return impl_->vertices; }
const std::vector<Link>& TopologyGraph::links() const { return impl_->links; }
int TopologyGraph::gpu_vertex(int rank) const { return rank; }

bool TopologyGraph::non_blocking() const {
  if (impl_->pxn) return false;  // a relay shares another GPU's links
  const std::vector<Link>& links = impl_->links;
  std::vector<int> gpus_per_nic(impl_->vertices.size(), 0);
  std::vector<double> up_demand(impl_->vertices.size(), 0.0);    // per leaf: NIC -> leaf capacity
  std::vector<double> down_demand(impl_->vertices.size(), 0.0);  // per leaf: leaf -> NIC capacity
  for (const Link& l : links) {
    if (l.kind == LinkKind::kGpuNic && ++gpus_per_nic[l.to] > 1) return false;
    if (l.kind == LinkKind::kNicLeaf) up_demand[l.to] += l.capacity;
    if (l.kind == LinkKind::kLeafNic) down_demand[l.from] += l.capacity;
  }
  constexpr double kSlack = 1e-12;  // the uplink is a product of the same numbers
  for (const Link& l : links) {
    if (l.kind == LinkKind::kLeafCore && l.capacity < up_demand[l.from] * (1 - kSlack))
      return false;
    if (l.kind == LinkKind::kCoreLeaf && l.capacity < down_demand[l.to] * (1 - kSlack))
      return false;
  }
  return true;
}

std::span<const int> TopologyGraph::route(int src_rank, int dst_rank) const {
  return impl_->route(src_rank, dst_rank);
}

std::span<const int> TopologyGraph::climb(int rank, Reach reach) const {
  return impl_->climb(rank, reach);
}

std::span<const int> TopologyGraph::descent(int rank, Reach reach) const {
  return impl_->descent(rank, reach);
}

std::span<const int> TopologyGraph::link_route(int link) const {
  assert(link >= 0 && link < static_cast<int>(impl_->link_ids.size()));
  return {impl_->link_ids.data() + link, 1};
}

int TopologyGraph::fabric_uplink(int rank) const {
  return impl_->fabric_up[static_cast<size_t>(rank)];
}
int TopologyGraph::fabric_downlink(int rank) const {
  return impl_->fabric_down[static_cast<size_t>(rank)];
}

// A route is what Impl::pair_route says (checked against the breadth-first
// routes as they are filled): the same links in the same order as route().
double TopologyGraph::route_latency(int src_rank, int dst_rank) const {
  if (src_rank == dst_rank) return 0.0;  // empty route
  int path[kMaxRouteLinks];
  const int hops = impl_->pair_route(src_rank, dst_rank, path);
  double total = 0.0;
  for (int h = 0; h < hops; ++h) total += impl_->links[path[h]].latency_ms;
  return total;
}

double TopologyGraph::route_bottleneck(int src_rank, int dst_rank) const {
  // Empty route (src == dst): nothing limits it.
  double bottleneck = std::numeric_limits<double>::infinity();
  if (src_rank == dst_rank) return bottleneck;
  int path[kMaxRouteLinks];
  const int hops = impl_->pair_route(src_rank, dst_rank, path);
  for (int h = 0; h < hops; ++h) bottleneck = std::min(bottleneck, impl_->links[path[h]].capacity);
  return bottleneck;
}

}  // namespace shardlab::sim
