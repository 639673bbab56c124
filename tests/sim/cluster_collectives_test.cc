// Clusters beyond one host (docs/simulation.md "Clusters"): NVLink domains
// that span hosts, and the all-reduces that cross domains through switches
// (CollNet/SHARP, NVLS+SHARP, NVLSTree), each checked against a hand-computed
// time where it is bandwidth-bound and where it is latency-bound, and the
// bytes each stage puts on the links.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/sim/collective_model.h"
#include "shardlab/sim/collectives.h"
#include "shardlab/sim/event_queue.h"
#include "shardlab/sim/flow_network.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::sim {
namespace {

using planner::CollAlgorithm;
using planner::CollProtocol;

constexpr double kGBps = 1e9 / 1e3;  // GB/s in bytes/ms
constexpr double kUs = 1e-3;         // µs in ms

void expect_rel(double actual, double expected, double rel) {
  EXPECT_NEAR(actual, expected, rel * std::abs(expected)) << "expected " << expected;
}

std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// Hosts of `local` GPUs in NVLink domains of `domain`: GPU links of 1000
// bytes/ms, NICs of 100, no link latencies.
TopologyGraph domains_of(int world, int local, int domain) {
  planner::TopologySpec t;
  t.world_size = world;
  t.local_world_size = local;
  t.intra_host_bw = 1000.0;
  t.inter_host_bw = 100.0;
  planner::FabricSpec f;
  f.nvlink_domain_size = domain;
  f.intra_host_latency_ms = 0.0;
  f.inter_host_latency_ms = 0.0;
  auto g = TopologyGraph::build(t, f);
  EXPECT_TRUE(g.is_ok()) << g.status().message();
  return std::move(g).value();
}

TEST(ClusterTopology, AnNvlinkDomainSpansHosts) {
  // 16 GPUs on hosts of 4, domains of 8: hosts 0-1 share domain 0.
  const TopologyGraph g = domains_of(16, 4, 8);
  EXPECT_EQ(g.num_hosts(), 4);
  EXPECT_EQ(g.num_domains(), 2);
  EXPECT_EQ(g.host_of(5), 1);
  EXPECT_EQ(g.domain_of(5), 0);
  EXPECT_EQ(g.domain_of(8), 1);
  // Host 0 to host 1 inside the domain: through its NVLink fabric.
  std::vector<std::string> names;
  for (int l : g.route(0, 5)) names.push_back(g.links()[l].name);
  EXPECT_EQ(names, (std::vector<std::string>{"domain0/gpu0->domain0/fabric",
                                             "domain0/fabric->domain0/gpu5"}));
  // Across domains: the network, the GPU on its own NIC (8 per domain).
  names.clear();
  for (int l : g.route(5, 9)) names.push_back(g.links()[l].name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"domain0/gpu5->domain0/nic5", "domain0/nic5->domain0/leaf",
                                      "domain0/leaf->core", "core->domain1/leaf",
                                      "domain1/leaf->domain1/nic1", "domain1/nic1->domain1/gpu1"}));
  EXPECT_TRUE(g.non_blocking());
  // The domain's uplink carries its eight NICs.
  for (const Link& l : g.links()) {
    if (l.kind == LinkKind::kLeafCore) EXPECT_DOUBLE_EQ(l.capacity, 800.0);
  }
}

TEST(ClusterTopology, RefusesADomainThatIsNotWholeHosts) {
  planner::TopologySpec t;
  t.world_size = 16;
  t.local_world_size = 4;
  planner::FabricSpec f;
  f.nvlink_domain_size = 6;
  auto g = TopologyGraph::build(t, f);
  ASSERT_FALSE(g.is_ok());
  EXPECT_NE(g.status().message().find("nvlink_domain_size"), std::string::npos);
  f.nvlink_domain_size = 8;
  f.hosts.resize(4);
  EXPECT_FALSE(TopologyGraph::build(t, f).is_ok());
}

// Runs one collective with every member joining at 0; the time the last
// member is done.
class Driver : public CollectiveListener, public EventHandler {
 public:
  explicit Driver(const TopologyGraph& graph) : net(queue, graph) {}
  void on_member_done(int64_t, int) override { last = std::max(last, queue.now()); }
  void on_event(int64_t member, int64_t) override { c->join(static_cast<int>(member)); }
  double run(std::unique_ptr<Collective> collective) {
    c = std::move(collective);
    for (int m = 0; m < c->size(); ++m) queue.schedule(0.0, this, m);
    queue.run();
    return last;
  }
  EventQueue queue;
  FlowNetwork net;
  std::unique_ptr<Collective> c;
  double last = 0.0;
};

// Message shapes with fixed per-message latencies at line rate.
CollectiveShape shape(double intra_latency, double inter_latency) {
  CollectiveShape s;
  s.intra.latency_ms = intra_latency;
  s.inter.latency_ms = inter_latency;
  return s;
}

TEST(ClusterCollectives, SharpAllReduceStagesByHand) {
  // 4 domains of 8 GPUs (hosts of 8): rings of 7 steps inside, SHARP across.
  const TopologyGraph g = domains_of(32, 8, 8);
  const double l = 8.0;
  // Bandwidth-bound: 2·7 ring steps of S/8 at 1000, then S/8 up and down at
  // 100 at once.
  const double big = 8e6;
  Driver bw(g);
  const double t_big = bw.run(make_hierarchical_all_reduce(bw.net, g, iota(32), big, &bw, 0,
                                                           shape(0.0, 0.0), {.sharp_inter = true}));
  expect_rel(t_big, 2 * 7 * big / l / 1000.0 + big / l / 100.0, 1e-9);
  // Each NIC carries its share once each way; each domain's uplink all eight.
  for (const Link& link : g.links()) {
    const double bytes = bw.net.link_bytes()[static_cast<size_t>(&link - g.links().data())];
    if (link.kind == LinkKind::kGpuNic || link.kind == LinkKind::kNicGpu)
      expect_rel(bytes, big / l, 1e-12);
    if (link.kind == LinkKind::kLeafCore || link.kind == LinkKind::kCoreLeaf)
      expect_rel(bytes, big, 1e-12);
  }
  // Latency-bound: 8 bytes, 3.7 µs per NVLink step and 31 µs through the
  // network once (NCCL's CollNetDirect latencies); the bytes add 1 µs per
  // ring step and 10 µs through the network on these slow links.
  Driver lat(g);
  const double t_small = lat.run(make_hierarchical_all_reduce(
      lat.net, g, iota(32), 8.0, &lat, 0, shape(3.7 * kUs, 31 * kUs), {.sharp_inter = true}));
  expect_rel(t_small, 14 * (3.7 * kUs + 1.0 / 1000.0) + 31 * kUs + 1.0 / 100.0, 1e-9);
  EXPECT_GT(14 * 3.7 * kUs + 31 * kUs, 0.75 * t_small);  // mostly latency
}

TEST(ClusterCollectives, LargeAllReducesPipelineTheirStages) {
  // Shares of 8 MiB go in 4 pieces of one NCCL chunk (2 MiB).
  const TopologyGraph g = domains_of(32, 8, 8);
  const double share = 8.0 * 1024 * 1024;
  const double bytes = 8 * share;
  ASSERT_EQ(pipeline_chunks(share), 4);
  // Rings inside the domains: I = 2·7 steps of S/8 at 1000 bytes/ms.
  const double inside = 14 * share / 1000.0;
  // Rings across 4 domains are the slower: N = 2·3 steps of S/32 at 100. The
  // first piece's reduce-scatter, then N, then the last piece's all-gather.
  Driver ring(g);
  const double across = 6 * share / 4 / 100.0;
  ASSERT_GT(across + inside / 4, inside);
  expect_rel(ring.run(make_hierarchical_all_reduce(ring.net, g, iota(32), bytes, &ring, 0,
                                                   shape(0.0, 0.0))),
             across + inside / 4, 1e-9);
  // SHARP across (S/8 up and down at 100) runs under the rings inside.
  Driver sharp(g);
  ASSERT_LT(share / 100.0 + inside / 4, inside);
  expect_rel(sharp.run(make_hierarchical_all_reduce(sharp.net, g, iota(32), bytes, &sharp, 0,
                                                    shape(0.0, 0.0), {.sharp_inter = true})),
             inside, 1e-9);
  EXPECT_EQ(pipeline_chunks(1.0), 1);
  EXPECT_EQ(pipeline_chunks(1e12), kMaxPipelineChunks);
}

TEST(ClusterCollectives, NvlsStagesByHand) {
  const TopologyGraph g = domains_of(32, 8, 8);
  const double l = 8.0;
  const double big = 8e6;
  // NVLS+SHARP: the switch's reduce-scatter (S up, S/8 down), SHARP (S/8
  // each way), the switch's all-gather (S/8 up, S down).
  Driver both(g);
  const double t =
      both.run(make_hierarchical_all_reduce(both.net, g, iota(32), big, &both, 0, shape(0.0, 0.0),
                                            {.nvls_intra = true, .sharp_inter = true}));
  expect_rel(t, big / 1000.0 + big / l / 100.0 + big / 1000.0, 1e-9);
  for (const Link& link : g.links()) {
    const double bytes = both.net.link_bytes()[static_cast<size_t>(&link - g.links().data())];
    if (link.kind == LinkKind::kGpuFabric || link.kind == LinkKind::kFabricGpu)
      expect_rel(bytes, big + big / l, 1e-12);
  }
  // NVLSTree: the switch inside, a ring of 2·3 steps of S/32 across.
  Driver tree(g);
  const double t_tree = tree.run(make_hierarchical_all_reduce(
      tree.net, g, iota(32), big, &tree, 0, shape(0.0, 0.0), {.nvls_intra = true}));
  expect_rel(t_tree, 2 * big / 1000.0 + 2 * 3 * big / 32 / 100.0, 1e-9);
  // Latency-bound: one 25 µs switch latency per NVLS stage, one network
  // latency (NVLS+SHARP) or 2·3 (the tree's steps on these flows), and the
  // few bytes at these slow links' rates.
  Driver small(g);
  expect_rel(small.run(make_hierarchical_all_reduce(small.net, g, iota(32), 8.0, &small, 0,
                                                    shape(25 * kUs, 18 * kUs),
                                                    {.nvls_intra = true, .sharp_inter = true})),
             2 * (25 * kUs + 8.0 / 1000.0) + 18 * kUs + 1.0 / 100.0, 1e-9);
  Driver small_tree(g);
  expect_rel(
      small_tree.run(make_hierarchical_all_reduce(small_tree.net, g, iota(32), 8.0, &small_tree, 0,
                                                  shape(25 * kUs, 7 * kUs), {.nvls_intra = true})),
      2 * (25 * kUs + 8.0 / 1000.0) + 6 * (7 * kUs + 8.0 / 32 / 100.0), 1e-9);
}

planner::Scenario scenario(const std::string& topology) {
  const std::string text = R"({"name": "c", "topology": )" + topology +
                           R"(, "tables": [{"name": "t", "num_embeddings": 10, "embedding_dim": 8,
                                              "feature_names": ["f"]}]})";
  auto s = data::parse_scenario(text, "test.json");
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  return *s;
}

SweepPoint sweep_one(const planner::Scenario& s, CollectiveKind kind, double size) {
  auto r = collective_sweep(s, kind, {size});
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r.is_ok() ? r->at(0) : SweepPoint{};
}

TEST(ClusterCollectives, NcclPicksCollNetOnSharpAndRingWhenSmall) {
  // 4 DGX H100 with SHARP: NVLink 450 GB/s at 0.822, NICs 50 GB/s at 0.95.
  const planner::Scenario s =
      scenario(R"({"system": "dgx-h100", "nodes": 4, "fabric": {"sharp": true}})");
  ASSERT_EQ(s.topology.world_size, 32);
  const double size = 16.0 * (1 << 30);
  const SweepPoint big = sweep_one(s, CollectiveKind::kAllReduce, size);
  EXPECT_EQ(big.algorithm, CollAlgorithm::kCollNet);
  const double intra = 0.822 * 450 * kGBps;
  const double inter = 0.95 * 50 * kGBps;
  // Pipelined over 16 pieces of the 2 GiB shares: the latencies once, then
  // the rings inside the nodes (2·7 steps of S/8) end last, the network's
  // S/8 running under them.
  const double rings = 14 * size / 8 / intra;
  const double network = size / 8 / inter;
  ASSERT_GT(rings, network + rings / 16);
  expect_rel(big.time_ms, 14 * 3.7 * kUs + 31 * kUs + rings, 1e-3);
  // Small: ring LL, 6.6 µs, 14 NVLink steps of 0.6 µs and 6 network steps of 2.7 µs.
  const SweepPoint small = sweep_one(s, CollectiveKind::kAllReduce, 8);
  EXPECT_EQ(small.algorithm, CollAlgorithm::kRing);
  EXPECT_EQ(small.protocol, CollProtocol::kLl);
  expect_rel(small.time_ms, (6.6 + 14 * 0.6 + 6 * 2.7) * kUs, 1e-3);
  // Without SHARP the same cluster has no CollNet.
  const planner::Scenario plain = scenario(R"({"system": "dgx-h100", "nodes": 4})");
  EXPECT_NE(sweep_one(plain, CollectiveKind::kAllReduce, size).algorithm, CollAlgorithm::kCollNet);
}

TEST(ClusterCollectives, OneNvlinkDomainOfFourHostsNeverTouchesANic) {
  // Four hosts of 4 H100s in one domain of 16: an all-to-all at NVLink rate
  // (Simple: 8.4 µs, 15 steps of 3.4 µs and S/16 at 0.822 x 450 GB/s), and
  // the all-reduce is NVLS over the whole domain.
  const planner::Scenario s = scenario(
      R"({"world_size": 16, "local_world_size": 4, "gpu": "h100-sxm",
          "fabric": {"nvlink_domain_size": 16}})");
  const double size = 4.0 * (1 << 30);
  const SweepPoint a2a = sweep_one(s, CollectiveKind::kAllToAll, size);
  expect_rel(a2a.time_ms, 8.4 * kUs + 15 * (3.4 * kUs + size / 16 / (0.822 * 450 * kGBps)), 1e-9);
  EXPECT_EQ(sweep_one(s, CollectiveKind::kAllReduce, size).algorithm, CollAlgorithm::kNvls);
  // The same GPUs as four hosts of their own cross NICs at 50 GB/s.
  const planner::Scenario hosts =
      scenario(R"({"world_size": 16, "local_world_size": 4, "gpu": "h100-sxm"})");
  EXPECT_GT(sweep_one(hosts, CollectiveKind::kAllToAll, size).time_ms, 3 * a2a.time_ms);
}

}  // namespace
}  // namespace shardlab::sim
