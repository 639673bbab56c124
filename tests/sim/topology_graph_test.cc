#include "shardlab/sim/topology_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace shardlab::sim {
namespace {

using planner::FabricSpec;
using planner::HostFabricSpec;
using planner::TopologySpec;

TopologySpec topology(int world, int local) {
  TopologySpec t;
  t.world_size = world;
  t.local_world_size = local;
  t.intra_host_bw = 1000.0;
  t.inter_host_bw = 100.0;
  return t;
}

TopologyGraph build_ok(const TopologySpec& t, const FabricSpec& f) {
  Result<TopologyGraph> g = TopologyGraph::build(t, f);
  EXPECT_TRUE(g.is_ok()) << g.status().message();
  return std::move(g).value();
}

std::vector<std::string> route_names(const TopologyGraph& g, int src, int dst) {
  std::vector<std::string> names;
  for (int l : g.route(src, dst)) names.push_back(g.links()[l].name);
  return names;
}

int count_kind(const TopologyGraph& g, VertexKind kind) {
  int n = 0;
  for (const Vertex& v : g.vertices()) n += v.kind == kind;
  return n;
}

TEST(TopologyGraphTest, TwoHostsOfFourGpus) {
  const TopologyGraph g = build_ok(topology(8, 4), FabricSpec{});
  EXPECT_EQ(g.num_ranks(), 8);
  EXPECT_EQ(g.num_hosts(), 2);
  EXPECT_EQ(g.local_world_size(), 4);
  EXPECT_EQ(g.host_of(3), 0);
  EXPECT_EQ(g.host_of(4), 1);
  // 8 GPUs, 2 fabrics, 8 NICs (one per GPU), 2 leaves, 1 core.
  EXPECT_EQ(g.vertices().size(), 21u);
  EXPECT_EQ(count_kind(g, VertexKind::kGpu), 8);
  EXPECT_EQ(count_kind(g, VertexKind::kHostFabric), 2);
  EXPECT_EQ(count_kind(g, VertexKind::kNic), 8);
  EXPECT_EQ(count_kind(g, VertexKind::kLeaf), 2);
  EXPECT_EQ(count_kind(g, VertexKind::kCore), 1);
  // Duplex links: 8 gpu-fabric, 8 gpu-nic, 8 nic-leaf, 2 leaf-core.
  EXPECT_EQ(g.links().size(), 52u);
  const Vertex& gpu = g.vertices()[g.gpu_vertex(6)];
  EXPECT_EQ(gpu.kind, VertexKind::kGpu);
  EXPECT_EQ(gpu.rank, 6);
  EXPECT_EQ(gpu.host, 1);
  EXPECT_EQ(gpu.index, 2);
  EXPECT_EQ(gpu.name, "host1/gpu2");
}

TEST(TopologyGraphTest, RoutesInsideAndAcrossHosts) {
  const FabricSpec fabric;  // defaults: latencies 0.0025 and 0.002 ms
  const TopologyGraph g = build_ok(topology(8, 4), fabric);

  EXPECT_EQ(route_names(g, 1, 3),
            (std::vector<std::string>{"host0/gpu1->host0/fabric", "host0/fabric->host0/gpu3"}));
  const auto same = g.route(1, 3);
  EXPECT_EQ(g.links()[same[0]].kind, LinkKind::kGpuFabric);
  EXPECT_EQ(g.links()[same[1]].kind, LinkKind::kFabricGpu);
  EXPECT_DOUBLE_EQ(g.route_latency(1, 3), 2 * 0.0025);
  EXPECT_DOUBLE_EQ(g.route_bottleneck(1, 3), 1000.0);

  EXPECT_EQ(route_names(g, 1, 6),
            (std::vector<std::string>{"host0/gpu1->host0/nic1", "host0/nic1->host0/leaf",
                                      "host0/leaf->core", "core->host1/leaf",
                                      "host1/leaf->host1/nic2", "host1/nic2->host1/gpu2"}));
  const std::vector<LinkKind> kinds = {LinkKind::kGpuNic,   LinkKind::kNicLeaf, LinkKind::kLeafCore,
                                       LinkKind::kCoreLeaf, LinkKind::kLeafNic, LinkKind::kNicGpu};
  const auto cross = g.route(1, 6);
  ASSERT_EQ(cross.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(g.links()[cross[i]].kind, kinds[i]);
  EXPECT_DOUBLE_EQ(g.route_latency(1, 6), 6 * 0.002);
  // One NIC per GPU: each NIC gets inter_host_bw; the uplink is 4 NICs' worth.
  EXPECT_DOUBLE_EQ(g.route_bottleneck(1, 6), 100.0);
  EXPECT_DOUBLE_EQ(g.links()[cross[2]].capacity, 400.0);

  EXPECT_TRUE(g.route(5, 5).empty());
  EXPECT_EQ(g.route_latency(5, 5), 0.0);
  EXPECT_TRUE(std::isinf(g.route_bottleneck(5, 5)));
}

// A rail-optimized network (a DGX SuperPOD's): NIC n of every host on rail
// n's leaf. Same rail: through that leaf only; another rail: up to the core
// and down the other rail, or, with PXN, across NVLink to the source host's
// GPU on the destination's rail, then down that rail.
TEST(TopologyGraphTest, RailOptimizedRoutesByRailAndPxn) {
  FabricSpec rails;
  rails.rail_optimized = true;
  const TopologyGraph g = build_ok(topology(8, 4), rails);
  EXPECT_TRUE(g.rail_optimized());
  EXPECT_EQ(count_kind(g, VertexKind::kLeaf), 4);  // a leaf per rail
  EXPECT_EQ(g.rail_of(6), 2);
  EXPECT_EQ(route_names(g, 1, 5),
            (std::vector<std::string>{"host0/gpu1->host0/nic1", "host0/nic1->rail1/leaf",
                                      "rail1/leaf->host1/nic1", "host1/nic1->host1/gpu1"}));
  EXPECT_DOUBLE_EQ(g.route_latency(1, 5), 4 * 0.002);
  EXPECT_EQ(route_names(g, 1, 6),
            (std::vector<std::string>{"host0/gpu1->host0/nic1", "host0/nic1->rail1/leaf",
                                      "rail1/leaf->core", "core->rail2/leaf",
                                      "rail2/leaf->host1/nic2", "host1/nic2->host1/gpu2"}));
  // A rail's leaf serves one NIC of each of the 2 hosts: its uplink is 2 NICs' worth.
  const auto cross = g.route(1, 6);
  EXPECT_DOUBLE_EQ(g.links()[cross[2]].capacity, 200.0);
  EXPECT_TRUE(g.non_blocking());

  rails.pxn = true;
  const TopologyGraph p = build_ok(topology(8, 4), rails);
  EXPECT_TRUE(p.relays(1, 6));
  EXPECT_FALSE(p.relays(1, 5));
  EXPECT_EQ(route_names(p, 1, 6),
            (std::vector<std::string>{"host0/gpu1->host0/fabric", "host0/fabric->host0/gpu2",
                                      "host0/gpu2->host0/nic2", "host0/nic2->rail2/leaf",
                                      "rail2/leaf->host1/nic2", "host1/nic2->host1/gpu2"}));
  EXPECT_DOUBLE_EQ(p.route_latency(1, 6), 2 * 0.0025 + 4 * 0.002);
  EXPECT_FALSE(p.non_blocking());

  // Rail groups of one host: even one rail crosses the core between groups,
  // and PXN's relay then climbs there too.
  rails.rail_group_size = 1;
  const TopologyGraph q = build_ok(topology(8, 4), rails);
  EXPECT_EQ(count_kind(q, VertexKind::kLeaf), 8);
  EXPECT_EQ(q.reach(1, 5), Reach::kCore);
  EXPECT_EQ(route_names(q, 1, 6),
            (std::vector<std::string>{"host0/gpu1->host0/fabric", "host0/fabric->host0/gpu2",
                                      "host0/gpu2->host0/nic2", "host0/nic2->group0/rail2/leaf",
                                      "group0/rail2/leaf->core", "core->group1/rail2/leaf",
                                      "group1/rail2/leaf->host1/nic2", "host1/nic2->host1/gpu2"}));
}

TEST(TopologyGraphTest, SharedNicsAndOversubscription) {
  FabricSpec fabric;
  fabric.nics_per_host = 2;
  fabric.oversubscription = 4.0;
  const TopologyGraph g = build_ok(topology(8, 4), fabric);
  EXPECT_EQ(count_kind(g, VertexKind::kNic), 4);
  // 8 gpu-fabric, 8 gpu-nic, 4 nic-leaf, 2 leaf-core duplex links.
  EXPECT_EQ(g.links().size(), 44u);
  // GPU k of 4 with 2 NICs uses NIC k*2/4.
  EXPECT_EQ(route_names(g, 1, 6),
            (std::vector<std::string>{"host0/gpu1->host0/nic0", "host0/nic0->host0/leaf",
                                      "host0/leaf->core", "core->host1/leaf",
                                      "host1/leaf->host1/nic1", "host1/nic1->host1/gpu2"}));
  const auto cross = g.route(1, 6);
  const double nic_bw = 4 * 100.0 / 2;  // the host's 4 GPUs' inter_host_bw over 2 NICs
  EXPECT_DOUBLE_EQ(g.links()[cross[0]].capacity, nic_bw);
  EXPECT_DOUBLE_EQ(g.links()[cross[1]].capacity, nic_bw);
  EXPECT_DOUBLE_EQ(g.links()[cross[2]].capacity, 2 * nic_bw / 4.0);
  EXPECT_DOUBLE_EQ(g.links()[cross[3]].capacity, 2 * nic_bw / 4.0);
  EXPECT_DOUBLE_EQ(g.links()[cross[5]].capacity, nic_bw);
  EXPECT_DOUBLE_EQ(g.route_bottleneck(1, 6), 100.0);
  // GPUs 0 and 1 share NIC 0, yet talk through the fabric.
  EXPECT_EQ(route_names(g, 0, 1),
            (std::vector<std::string>{"host0/gpu0->host0/fabric", "host0/fabric->host0/gpu1"}));
  EXPECT_EQ(route_names(g, 1, 0),
            (std::vector<std::string>{"host0/gpu1->host0/fabric", "host0/fabric->host0/gpu0"}));
}

TEST(TopologyGraphTest, PerHostOverrides) {
  FabricSpec fabric;
  fabric.nic_bw = 50.0;
  fabric.intra_host_latency_ms = 0.01;
  fabric.inter_host_latency_ms = 0.1;
  fabric.oversubscription = 2.0;
  fabric.hosts.resize(2);
  fabric.hosts[0].intra_host_bw = 300.0;
  fabric.hosts[1].nic_bw = 80.0;
  fabric.hosts[1].nics = 1;
  const TopologyGraph g = build_ok(topology(8, 4), fabric);
  EXPECT_EQ(count_kind(g, VertexKind::kNic), 5);  // 4 + 1

  EXPECT_DOUBLE_EQ(g.route_bottleneck(0, 2), 300.0);
  EXPECT_DOUBLE_EQ(g.route_bottleneck(5, 7), 1000.0);
  EXPECT_DOUBLE_EQ(g.route_latency(5, 7), 0.02);

  // Host 0 -> host 1: host 0's NIC at 50, uplinks 4*50/2 = 100 and 1*80/2 = 40,
  // host 1's single NIC at 80.
  const auto r = g.route(0, 7);
  ASSERT_EQ(r.size(), 6u);
  const double expected[] = {50.0, 50.0, 100.0, 40.0, 80.0, 80.0};
  for (int i = 0; i < 6; ++i) EXPECT_DOUBLE_EQ(g.links()[r[i]].capacity, expected[i]) << i;
  EXPECT_EQ(g.links()[r[4]].name, "host1/leaf->host1/nic0");
  EXPECT_DOUBLE_EQ(g.route_bottleneck(0, 7), 40.0);
  EXPECT_DOUBLE_EQ(g.route_latency(0, 7), 0.6);
  for (int l : r) EXPECT_DOUBLE_EQ(g.links()[l].latency_ms, 0.1);
}

TEST(TopologyGraphTest, DefaultNicBandwidthFollowsPerHostNicCount) {
  FabricSpec fabric;
  fabric.hosts.resize(2);
  fabric.hosts[1].nics = 2;
  const TopologyGraph g = build_ok(topology(8, 4), fabric);
  const auto r = g.route(0, 4);
  EXPECT_DOUBLE_EQ(g.links()[r[0]].capacity, 100.0);      // host 0: 4 NICs share 4 * 100
  EXPECT_DOUBLE_EQ(g.links()[r[5]].capacity, 200.0);      // host 1: 2 NICs share 4 * 100
  EXPECT_DOUBLE_EQ(g.links()[r[3]].capacity, 2 * 200.0);  // host 1's uplink
}

TEST(TopologyGraphTest, SingleHostHasNoNetwork) {
  TopologySpec t = topology(4, 4);
  t.local_world_size.reset();  // absent: world_size
  const TopologyGraph g = build_ok(t, FabricSpec{});
  EXPECT_EQ(g.num_hosts(), 1);
  EXPECT_EQ(g.vertices().size(), 5u);
  EXPECT_EQ(g.links().size(), 8u);
  EXPECT_EQ(g.route(3, 0).size(), 2u);
}

TEST(TopologyGraphTest, LastHostHoldsTheRemainder) {
  const TopologyGraph g = build_ok(topology(6, 4), FabricSpec{});
  EXPECT_EQ(g.num_hosts(), 2);
  EXPECT_EQ(g.host_of(5), 1);
  EXPECT_EQ(count_kind(g, VertexKind::kGpu), 6);
  // The short host is built like the others: 4 NICs, 2 of them without a GPU.
  EXPECT_EQ(count_kind(g, VertexKind::kNic), 8);
  EXPECT_EQ(g.vertices()[g.gpu_vertex(5)].name, "host1/gpu1");
  EXPECT_EQ(g.route(5, 0).size(), 6u);
  EXPECT_EQ(g.route(4, 5).size(), 2u);
}

TEST(TopologyGraphTest, EveryPairHasAShortestRouteAtScale) {
  const TopologyGraph g = build_ok(topology(1024, 8), FabricSpec{});
  for (int src = 0; src < 1024; src += 97) {
    for (int dst = 0; dst < 1024; ++dst) {
      const size_t expected = src == dst ? 0 : (g.host_of(src) == g.host_of(dst) ? 2 : 6);
      ASSERT_EQ(g.route(src, dst).size(), expected) << src << "->" << dst;
    }
  }
  // Spans stay valid after other sources were filled.
  const auto r = g.route(3, 1000);
  (void)g.route(999, 5);
  EXPECT_EQ(g.links()[r.back()].to, g.gpu_vertex(1000));
  EXPECT_EQ(g.links()[r.front()].from, g.gpu_vertex(3));
}

// Every route is the source's climb then the destination's descent, on
// fabrics of every shape the graph builds: one host, a short last host,
// shared NICs, more NICs than GPUs, per-host overrides, oversubscription.
TEST(TopologyGraphTest, EveryRouteIsAClimbThenADescent) {
  FabricSpec shared;
  shared.nics_per_host = 2;
  FabricSpec wide;
  wide.nics_per_host = 6;
  FabricSpec mixed;
  mixed.oversubscription = 3.0;
  mixed.hosts.resize(3);
  mixed.hosts[0].nics = 1;
  mixed.hosts[1].intra_host_bw = 250.0;
  mixed.hosts[2].nic_bw = 70.0;
  const struct {
    TopologySpec topology;
    FabricSpec fabric;
  } cases[] = {{topology(4, 4), {}},   {topology(6, 4), {}},     {topology(8, 4), shared},
               {topology(8, 4), wide}, {topology(12, 4), mixed}, {topology(7, 1), {}},
               {topology(64, 8), {}}};
  for (const auto& c : cases) {
    const TopologyGraph g = build_ok(c.topology, c.fabric);
    for (int src = 0; src < g.num_ranks(); ++src) {
      for (int dst = 0; dst < g.num_ranks(); ++dst) {
        if (src == dst) continue;
        const Reach reach = g.host_of(src) != g.host_of(dst) ? Reach::kCore : Reach::kDomain;
        EXPECT_EQ(g.reach(src, dst), reach);
        std::vector<int> halves;
        for (int l : g.climb(src, reach)) halves.push_back(l);
        for (int l : g.descent(dst, reach)) halves.push_back(l);
        const auto route = g.route(src, dst);
        ASSERT_EQ(halves, std::vector<int>(route.begin(), route.end()))
            << c.topology.world_size << " ranks: " << src << "->" << dst;
      }
    }
  }
}

std::string build_error(const TopologySpec& t, const FabricSpec& f) {
  Result<TopologyGraph> g = TopologyGraph::build(t, f);
  EXPECT_FALSE(g.is_ok());
  if (g.is_ok()) return "";
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  return g.status().message();
}

TEST(TopologyGraphTest, RejectsInvalidFabric) {
  const TopologySpec t = topology(8, 4);
  FabricSpec f;
  f.pxn = true;
  EXPECT_EQ(build_error(t, f),
            "topology.fabric.pxn: PXN relays to another rail's NIC, which needs "
            "topology.fabric.rail_optimized");
  f = FabricSpec{};
  f.rail_optimized = true;
  f.rail_group_size = -1;
  EXPECT_EQ(build_error(t, f), "topology.fabric.rail_group_size: must be >= 0, got -1");
  f.rail_group_size = 0;
  f.hosts.resize(2);
  f.hosts[0].nics = 2;
  EXPECT_EQ(build_error(t, f),
            "topology.fabric.hosts: per-host NIC counts cannot be used on a rail-optimized "
            "network (every host has one NIC per rail)");

  f = FabricSpec{};
  f.hosts.resize(3);
  EXPECT_EQ(build_error(t, f), "topology.fabric.hosts: 3 entries but the topology has 2 hosts");

  f = FabricSpec{};
  f.hosts.resize(2);
  f.hosts[1].nics = 0;
  EXPECT_EQ(build_error(t, f), "topology.fabric.hosts[1].nics: must be >= 1, got 0");

  f = FabricSpec{};
  f.hosts.resize(2);
  f.hosts[0].intra_host_bw = -5.0;
  EXPECT_EQ(build_error(t, f), "topology.fabric.hosts[0].intra_host_bw: must be > 0, got -5");

  f = FabricSpec{};
  f.hosts.resize(2);
  f.hosts[1].nic_bw = 0.0;
  EXPECT_EQ(build_error(t, f), "topology.fabric.hosts[1].nic_bw: must be > 0, got 0");

  f = FabricSpec{};
  f.oversubscription = 0.5;
  EXPECT_EQ(build_error(t, f), "topology.fabric.oversubscription: must be >= 1, got 0.5");

  f = FabricSpec{};
  f.nic_bw = 0.0;
  EXPECT_EQ(build_error(t, f), "topology.fabric.nic_bw: must be > 0, got 0");

  f = FabricSpec{};
  f.nics_per_host = -1;
  EXPECT_EQ(build_error(t, f), "topology.fabric.nics_per_host: must be >= 0, got -1");

  f = FabricSpec{};
  f.inter_host_latency_ms = -1.0;
  EXPECT_EQ(build_error(t, f), "topology.fabric.inter_host_latency_ms: must be >= 0, got -1");

  f = FabricSpec{};
  f.intra_host_latency_ms = -0.25;
  EXPECT_EQ(build_error(t, f), "topology.fabric.intra_host_latency_ms: must be >= 0, got -0.25");

  TopologySpec bad = t;
  bad.inter_host_bw = 0.0;
  EXPECT_EQ(build_error(bad, FabricSpec{}), "topology.inter_host_bw: must be > 0, got 0");
  bad = t;
  bad.world_size = 0;
  EXPECT_EQ(build_error(bad, FabricSpec{}), "topology.world_size: must be >= 1, got 0");
}

TEST(TopologyGraphTest, MovesKeepRoutes) {
  TopologyGraph a = build_ok(topology(8, 4), FabricSpec{});
  const auto before = a.route(0, 7);
  TopologyGraph b = std::move(a);
  EXPECT_EQ(b.route(0, 7).data(), before.data());  // the cache moved with the graph
  EXPECT_EQ(b.route(0, 7).size(), 6u);
}

}  // namespace
}  // namespace shardlab::sim

namespace shardlab::sim {
namespace {

// route_latency and route_bottleneck read the route's halves; they equal the
// fold over route()'s links (same additions in the same order, same min) for
// every pair, on single hosts, hosts with shared and per-host NICs, and
// NVLink domains that span hosts.
TEST(TopologyGraphTest, RouteLatencyAndBottleneckEqualTheRoutesFolds) {
  std::vector<std::pair<TopologySpec, FabricSpec>> cases;
  cases.emplace_back(topology(8, 8), FabricSpec{});
  cases.emplace_back(topology(32, 8), FabricSpec{.nics_per_host = 2});
  {
    FabricSpec f;
    f.hosts.resize(3);
    f.hosts[1] = HostFabricSpec{.intra_host_bw = 700.0, .nic_bw = 45.0, .nics = 1};
    f.hosts[2] = HostFabricSpec{.nic_bw = 80.0};
    f.intra_host_latency_ms = 0.0013;
    f.inter_host_latency_ms = 0.0071;
    cases.emplace_back(topology(24, 8), f);
  }
  cases.emplace_back(topology(32, 4), FabricSpec{.nvlink_domain_size = 16});
  for (const auto& [t, f] : cases) {
    SCOPED_TRACE(std::to_string(t.world_size) + " ranks");
    const TopologyGraph g = build_ok(t, f);
    for (int src = 0; src < g.num_ranks(); ++src) {
      for (int dst = 0; dst < g.num_ranks(); ++dst) {
        double latency = 0.0;
        double bottleneck = std::numeric_limits<double>::infinity();
        for (int l : g.route(src, dst)) {
          latency += g.links()[l].latency_ms;
          bottleneck = std::min(bottleneck, g.links()[l].capacity);
        }
        ASSERT_EQ(g.route_latency(src, dst), latency) << src << " -> " << dst;
        ASSERT_EQ(g.route_bottleneck(src, dst), bottleneck) << src << " -> " << dst;
      }
    }
  }
}

}  // namespace
}  // namespace shardlab::sim
