#include "shardlab/sim/collectives.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

namespace shardlab::sim {
namespace {

using planner::FabricSpec;
using planner::TopologySpec;

void expect_close(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, std::abs(expected)));
}

// One host of `gpus` GPUs; each GPU <-> fabric link has bandwidth `bw` and
// latency `link_latency`, so a route inside the host has 2 * link_latency.
TopologyGraph single_host(int gpus, double bw, double link_latency) {
  TopologySpec t;
  t.world_size = gpus;
  t.intra_host_bw = bw;
  FabricSpec f;
  f.intra_host_latency_ms = link_latency;
  return std::move(TopologyGraph::build(t, f)).value();
}

// Hosts of `local` GPUs, `world` in all, with the given bandwidths (bytes/ms).
TopologyGraph hosts_of(int world, int local, double intra_bw, double inter_bw,
                       const FabricSpec& fabric = {}) {
  TopologySpec t;
  t.world_size = world;
  t.local_world_size = local;
  t.intra_host_bw = intra_bw;
  t.inter_host_bw = inter_bw;
  return std::move(TopologyGraph::build(t, fabric)).value();
}

// Drives one collective: joins members at given times through the queue and
// records when each member is reported done.
class Harness : public CollectiveListener, public EventHandler {
 public:
  // Flows by default: these tests pin down the flow model itself; the
  // closed-form all-to-all is compared against it separately.
  explicit Harness(const TopologyGraph& graph, bool contention = true,
                   bool allow_closed_form = false)
      : net(queue, graph, contention, allow_closed_form) {}

  void on_member_done(int64_t tag, int member) override {
    EXPECT_EQ(tag, kTag);
    EXPECT_FALSE(inside_join) << "member done reported inside join()";
    ASSERT_GE(member, 0);
    ASSERT_LT(member, static_cast<int>(done.size()));
    EXPECT_LT(done[member], 0.0) << "member " << member << " reported twice";
    done[member] = queue.now();
  }
  void on_event(int64_t member, int64_t) override {
    inside_join = true;
    collective->join(static_cast<int>(member));
    inside_join = false;
  }

  // Joins member i at join_at[i] (all at 0 when empty) and runs to the end.
  const std::vector<double>& run(std::unique_ptr<Collective> c, std::vector<double> join_at = {}) {
    collective = std::move(c);
    const int n = collective->size();
    done.assign(n, -1.0);
    join_at.resize(n, 0.0);
    for (int i = 0; i < n; ++i) queue.schedule(join_at[i], this, i);
    queue.run();
    for (int i = 0; i < n; ++i) EXPECT_GE(done[i], 0.0) << "member " << i << " never done";
    EXPECT_EQ(net.active_flows(), 0);
    return done;
  }

  static constexpr int64_t kTag = 42;
  EventQueue queue;
  FlowNetwork net;
  std::unique_ptr<Collective> collective;
  std::vector<double> done;
  bool inside_join = false;
};

std::vector<int> iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(CollectivesTest, RingAllReduceOnOneHost) {
  const double S = 4000.0, B = 1000.0, link_lat = 0.25;
  for (int n : {2, 3, 4, 8}) {
    const TopologyGraph g = single_host(n, B, link_lat);
    Harness h(g);
    const auto& done = h.run(make_ring_all_reduce(h.net, iota(n), S, &h, Harness::kTag));
    const double expected = 2.0 * (n - 1) / n * S / B + 2 * (n - 1) * (2 * link_lat);
    for (int i = 0; i < n; ++i) expect_close(done[i], expected);
    EXPECT_EQ(h.net.flows_started(), static_cast<uint64_t>(2 * (n - 1) * n));
  }
}

TEST(CollectivesTest, RingReduceScatterAndAllGatherOnOneHost) {
  const double S = 6000.0, B = 1000.0, link_lat = 0.25;
  const int n = 4;
  const TopologyGraph g = single_host(n, B, link_lat);
  const double expected = (n - 1.0) / n * S / B + (n - 1) * (2 * link_lat);
  {
    Harness h(g);
    const auto& done = h.run(
        make_ring_reduce_scatter(h.net, iota(n), std::vector<double>(n, S / n), &h, Harness::kTag));
    for (int i = 0; i < n; ++i) expect_close(done[i], expected);
  }
  {
    Harness h(g);
    const auto& done = h.run(
        make_ring_all_gather(h.net, iota(n), std::vector<double>(n, S / n), &h, Harness::kTag));
    for (int i = 0; i < n; ++i) expect_close(done[i], expected);
  }
}

TEST(CollectivesTest, RingReduceScatterWithUnevenChunks) {
  // B = 1000 bytes/ms, route latency 0.5 ms; chunks of 1, 2, 3 ms.
  // Step 0: member i sends chunk i-1: 0->1 c2 ends 3.5, 1->2 c0 ends 1.5,
  //         2->0 c1 ends 2.5.
  // Step 1: member i sends chunk i-2 once its send and its receive of step 0
  //         are done: 0 at max(3.5, 2.5) sends c1 -> 6.0;
  //         1 at max(1.5, 3.5) sends c2 -> 7.0; 2 at max(2.5, 1.5) sends c0 -> 4.0.
  // Done: 0 = max(6.0, recv 4.0) = 6; 1 = max(7.0, 6.0) = 7; 2 = max(4.0, 7.0) = 7.
  const TopologyGraph g = single_host(3, 1000.0, 0.25);
  Harness h(g);
  const auto& done =
      h.run(make_ring_reduce_scatter(h.net, iota(3), {1000.0, 2000.0, 3000.0}, &h, Harness::kTag));
  expect_close(done[0], 6.0);
  expect_close(done[1], 7.0);
  expect_close(done[2], 7.0);
  // All-gather forwards chunk i-s: step 0 member i sends its own chunk.
  // Step 0: 0->1 c0 1.5, 1->2 c1 2.5, 2->0 c2 3.5.
  // Step 1: 0 at max(1.5, 3.5) sends c2 -> 7.0; 1 at max(2.5, 1.5) sends c0 -> 4.0;
  //         2 at max(3.5, 2.5) sends c1 -> 6.0.
  // Done: 0 = max(7, 6) = 7; 1 = max(4, 7) = 7; 2 = max(6, 4) = 6.
  Harness h2(g);
  const auto& done2 =
      h2.run(make_ring_all_gather(h2.net, iota(3), {1000.0, 2000.0, 3000.0}, &h2, Harness::kTag));
  expect_close(done2[0], 7.0);
  expect_close(done2[1], 7.0);
  expect_close(done2[2], 6.0);
}

TEST(CollectivesTest, RingWaitsForLateMembers) {
  // Uniform 1000-byte chunks: 1 ms plus 1 ms of latency per message. Member 2
  // joins at 5: 0->1 runs 0..2 at once; 1->2 and 2->0 wait for the join (5..7);
  // step 1 starts at 7 everywhere (0 waits for 2's chunk, 1 and 2 for their
  // own sends) and ends at 9.
  const TopologyGraph g = single_host(3, 1000.0, 0.5);
  Harness h(g);
  const auto& done = h.run(
      make_ring_reduce_scatter(h.net, iota(3), std::vector<double>(3, 1000.0), &h, Harness::kTag),
      {0, 0, 5});
  for (int i = 0; i < 3; ++i) expect_close(done[i], 9.0);
}

TEST(CollectivesTest, RingUsesMemberOrderNotRankOrder) {
  // Ranks 0, 1 on host 0 and 2, 3 on host 1; the ring 0 -> 2 -> 1 -> 3 -> 0
  // crosses hosts at every hop, so no host-fabric link carries a byte.
  const TopologyGraph g = hosts_of(4, 2, 1000.0, 100.0);
  Harness h(g);
  const auto& done = h.run(make_ring_all_reduce(h.net, {0, 2, 1, 3}, 4000.0, &h, Harness::kTag));
  // 6 steps of 1000 bytes at 100 bytes/ms plus 6 link latencies.
  for (int i = 0; i < 4; ++i)
    expect_close(done[i], 6 * (1000.0 / 100.0 + 6 * FabricSpec{}.inter_host_latency_ms));
  for (size_t l = 0; l < g.links().size(); ++l) {
    const LinkKind kind = g.links()[l].kind;
    const bool fabric = kind == LinkKind::kGpuFabric || kind == LinkKind::kFabricGpu;
    const bool uplink =
        kind == LinkKind::kLeafCore || kind == LinkKind::kCoreLeaf;  // both GPUs of a host
    EXPECT_EQ(h.net.link_bytes()[l], fabric ? 0.0 : (uplink ? 12000.0 : 6000.0))
        << g.links()[l].name;
  }
}

TEST(CollectivesTest, AllToAllUniformMatchesAlphaBeta) {
  const double m = 2500.0, B = 1000.0, link_lat = 0.25;
  for (int n : {2, 4, 8}) {
    const TopologyGraph g = single_host(n, B, link_lat);
    Harness h(g);
    const auto& done = h.run(make_all_to_all(
        h.net, iota(n), [m](int, int) { return m; }, &h, Harness::kTag));
    const double expected = (n - 1) * (2 * link_lat + m / B);
    for (int i = 0; i < n; ++i) expect_close(done[i], expected);
    EXPECT_EQ(h.net.flows_started(), static_cast<uint64_t>(n * (n - 1)));
    for (int r = 0; r < n; ++r)
      EXPECT_EQ(h.net.link_bytes()[g.route(r, (r + 1) % n)[0]], (n - 1) * m);
  }
}

// bytes[i][j] for n = 3, with a zero-byte message 2 -> 0.
double uneven(int i, int j) {
  static const double bytes[3][3] = {{0, 2000, 500}, {3000, 0, 1000}, {0, 4000, 0}};
  return bytes[i][j];
}

TEST(CollectivesTest, AllToAllUnevenSplits) {
  // B = 1000 bytes/ms, route latency 1 ms.
  // Step 1 (all joined at 0): 0->1 2000 ends 3; 1->2 1000 ends 2; 2->0 empty, done at 0.
  //   Step 1 finished: member 0 at max(3, 0) = 3, 1 at max(2, 3) = 3, 2 at max(0, 2) = 2.
  // Step 2: 0->2 starts max(3, 2) = 3, 500 -> 4.5; 1->0 starts 3, 3000 -> 7;
  //   2->1 starts 3, 4000 -> 8.
  // Done: 0 = max(4.5, 7) = 7; 1 = max(7, 8) = 8; 2 = max(8, 4.5) = 8.
  const TopologyGraph g = single_host(3, 1000.0, 0.5);
  Harness h(g);
  const auto& done = h.run(make_all_to_all(h.net, iota(3), uneven, &h, Harness::kTag));
  expect_close(done[0], 7.0);
  expect_close(done[1], 8.0);
  expect_close(done[2], 8.0);
  EXPECT_EQ(h.net.flows_started(), 5u);  // the empty message is no flow
}

// Records the network's state at a given time.
class Probe : public EventHandler {
 public:
  explicit Probe(const FlowNetwork& net) : net_(net) {}
  void on_event(int64_t, int64_t) override {
    flows.push_back(net_.flows_started());
    bytes.push_back(net_.link_bytes());
  }
  std::vector<uint64_t> flows;
  std::vector<std::vector<double>> bytes;

 private:
  const FlowNetwork& net_;
};

TEST(CollectivesTest, AllToAllLateJoinDelaysOnlyDependentMessages) {
  // As AllToAllUnevenSplits, but member 1 joins at 2.5.
  // Step 1: 2->0 (empty) does not involve member 1: done at 0.
  //   0->1 starts 2.5, ends 5.5; 1->2 starts 2.5, ends 4.5.
  //   Step 1 finished: 0 at 5.5, 1 at 5.5, 2 at 4.5.
  // Step 2: all three start at 5.5: 0->2 ends 7, 1->0 ends 9.5, 2->1 ends 10.5.
  // Done: 0 = 9.5, 1 = 10.5, 2 = 10.5.
  const TopologyGraph g = single_host(3, 1000.0, 0.5);
  Harness h(g);
  Probe probe(h.net);
  h.queue.schedule(2.4, &probe);  // nothing started: every message needs member 1 or is empty
  h.queue.schedule(4.0, &probe);  // 0->1 and 1->2 started at the join; 1->2 transmitted
                                  // (2.5 + 1 ms), 0->1 still transmitting (until 4.5)
  const auto& done =
      h.run(make_all_to_all(h.net, iota(3), uneven, &h, Harness::kTag), {0.0, 2.5, 0.0});
  expect_close(done[0], 9.5);
  expect_close(done[1], 10.5);
  expect_close(done[2], 10.5);
  ASSERT_EQ(probe.flows.size(), 2u);
  EXPECT_EQ(probe.flows[0], 0u);
  EXPECT_EQ(probe.flows[1], 2u);
  EXPECT_EQ(probe.bytes[1][g.route(1, 2)[0]], 1000.0);
  EXPECT_EQ(probe.bytes[1][g.route(0, 1)[0]], 0.0);
}

TEST(CollectivesTest, AllToAllAcrossHostsOnNonBlockingFabric) {
  // 4 hosts of 4 GPUs, one NIC per GPU, oversubscription 1: no link ever
  // carries more than it can, so each message takes its alpha-beta time and
  // total link traffic is exact.
  TopologySpec t;
  t.world_size = 16;
  t.local_world_size = 4;
  const TopologyGraph g = std::move(TopologyGraph::build(t, FabricSpec{})).value();
  Harness with(g, true);
  Harness without(g, false);
  const auto split = [](int i, int j) { return 1000.0 * (1 + (i * 7 + j) % 5); };
  const auto done = with.run(make_all_to_all(with.net, iota(16), split, &with, Harness::kTag));
  const auto reference =
      without.run(make_all_to_all(without.net, iota(16), split, &without, Harness::kTag));
  for (int i = 0; i < 16; ++i) expect_close(done[i], reference[i]);
  EXPECT_EQ(with.net.flows_started(), 16u * 15u);
}

// On a non-blocking fabric the all-to-all is solved in closed form; it must
// give the flow model's times and link bytes on the same input: uneven
// splits, empty messages, members joining at different times, two hosts.
TEST(CollectivesTest, AllToAllClosedFormEqualsFlowModel) {
  TopologySpec t;
  t.world_size = 12;
  t.local_world_size = 4;
  const TopologyGraph graph = std::move(TopologyGraph::build(t, FabricSpec{})).value();
  ASSERT_TRUE(graph.non_blocking());
  auto split = [](int i, int j) {
    return (i * 7 + j * 3) % 5 == 0 ? 0.0 : 1e5 * (1 + (i * 31 + j * 17) % 13);
  };
  const std::vector<double> joins = {0.0, 0.3, 0.01, 0.0, 1.2, 0.05,
                                     0.0, 0.7, 0.02, 0.0, 0.4, 0.09};
  Harness closed(graph, true, true);
  Harness flows(graph);
  ASSERT_TRUE(closed.net.closed_form_exact());
  ASSERT_FALSE(flows.net.closed_form_exact());
  const auto done =
      closed.run(make_all_to_all(closed.net, iota(12), split, &closed, Harness::kTag), joins);
  const auto reference =
      flows.run(make_all_to_all(flows.net, iota(12), split, &flows, Harness::kTag), joins);
  for (int i = 0; i < 12; ++i) expect_close(done[i], reference[i]);
  EXPECT_EQ(closed.net.link_bytes(), flows.net.link_bytes());
  EXPECT_EQ(closed.net.flows_started(), flows.net.flows_started());
}

// A rail-optimized network (two rail groups of 2 hosts, 3 hosts of 4 GPUs):
// messages between GPUs of one rail and group stop at the rail's leaf, the
// others climb to the core; the closed form stays exact, bit for bit, and
// moves the same bytes over the same links as the flows.
TEST(CollectivesTest, AllToAllOnRailsClosedFormEqualsFlowModel) {
  TopologySpec t;
  t.world_size = 12;
  t.local_world_size = 4;
  FabricSpec rails;
  rails.rail_optimized = true;
  rails.rail_group_size = 2;
  const TopologyGraph graph = std::move(TopologyGraph::build(t, rails)).value();
  ASSERT_TRUE(graph.non_blocking());
  EXPECT_EQ(graph.reach(1, 5), Reach::kLeaf);  // rail 1, group 0
  EXPECT_EQ(graph.reach(1, 9), Reach::kCore);  // rail 1, group 1
  EXPECT_EQ(graph.reach(1, 6), Reach::kCore);  // rails 1 and 2
  auto split = [](int i, int j) {
    return (i * 7 + j * 3) % 5 == 0 ? 0.0 : 1e5 * (1 + (i * 31 + j * 17) % 13);
  };
  const std::vector<double> joins = {0.0, 0.3, 0.01, 0.0, 1.2, 0.05,
                                     0.0, 0.7, 0.02, 0.0, 0.4, 0.09};
  Harness closed(graph, true, true);
  Harness flows(graph);
  ASSERT_TRUE(closed.net.closed_form_exact());
  const auto done =
      closed.run(make_all_to_all(closed.net, iota(12), split, &closed, Harness::kTag), joins);
  const auto reference =
      flows.run(make_all_to_all(flows.net, iota(12), split, &flows, Harness::kTag), joins);
  EXPECT_EQ(done, reference);
  EXPECT_EQ(closed.net.link_bytes(), flows.net.link_bytes());
  // PXN relays through another GPU's links: no closed form, flows only.
  rails.pxn = true;
  const TopologyGraph relayed = std::move(TopologyGraph::build(t, rails)).value();
  EXPECT_FALSE(relayed.non_blocking());
  Harness pxn(relayed, true, true);
  EXPECT_FALSE(pxn.net.closed_form_exact());
}

// Runs the collective `make` builds once in closed form and once as flows,
// with members joining at `joins`, and expects the same member completion
// times, link bytes and flow count, bit for bit.
using MakeCollective =
    std::function<std::unique_ptr<Collective>(FlowNetwork&, CollectiveListener*)>;
void expect_closed_form_exact(const TopologyGraph& graph, bool contention,
                              const MakeCollective& make, const std::vector<double>& joins) {
  Harness closed(graph, contention, true);
  Harness flows(graph, contention, false);
  ASSERT_TRUE(closed.net.closed_form_exact());
  ASSERT_FALSE(flows.net.closed_form_exact());
  const std::vector<double> done = closed.run(make(closed.net, &closed), joins);
  const std::vector<double>& reference = flows.run(make(flows.net, &flows), joins);
  EXPECT_EQ(done, reference);
  EXPECT_EQ(closed.net.link_bytes(), flows.net.link_bytes());
  EXPECT_EQ(closed.net.flows_started(), flows.net.flows_started());
  EXPECT_GT(flows.net.flows_started(), 0u);
  // No flow ran: the closed form did the work.
  EXPECT_LT(closed.queue.events_processed(), flows.queue.events_processed());
}

// Three hosts of four GPUs, one NIC each: non-blocking.
TopologyGraph three_hosts_of_four() { return hosts_of(12, 4, 3e5, 5e4); }

// An NCCL-like shape: a fraction of line rate, a cap, own latencies or the
// route's, small messages slower, and a base latency per member.
CollectiveShape nccl_like_shape() {
  CollectiveShape shape;
  shape.intra = {.fraction = 0.8, .cap = 2e5, .latency_ms = 0.004};
  shape.inter = {.fraction = 0.7, .latency_ms = -1.0};
  shape.small_bytes = 3e4;
  shape.small_intra = {.fraction = 0.3, .latency_ms = 0.001};
  shape.small_inter = {.fraction = 0.25, .cap = 1e4, .latency_ms = 0.0015};
  shape.base_ms = 0.007;
  return shape;
}

// Join patterns: all at once; scattered; the last member first and the rest
// later; one member's successor (member 6) joining long after everyone else.
std::vector<std::vector<double>> join_patterns(int n) {
  std::vector<double> scattered(n), last_first(n), late_successor(n);
  for (int i = 0; i < n; ++i) {
    scattered[i] = 0.013 * ((i * 7) % 5) + 0.002 * (i % 3);
    last_first[i] = i == n - 1 ? 0.0 : 0.05 + 0.001 * i;
    late_successor[i] = i == 6 % n ? 1.5 : 0.001 * ((i * 5) % 3);
  }
  return {std::vector<double>(n, 0.0), scattered, last_first, late_successor};
}

// Runs `check` with the plain and the NCCL-like shape, under every join
// pattern of n members.
void for_each_shape_and_joins(
    int n, const std::function<void(const CollectiveShape&, const std::vector<double>&)>& check) {
  for (const CollectiveShape& shape : {CollectiveShape{}, nccl_like_shape()}) {
    for (const std::vector<double>& joins : join_patterns(n)) {
      SCOPED_TRACE(shape.plain() ? "plain" : "nccl-like");
      check(shape, joins);
    }
  }
}

// A ring that crosses hosts at most of its hops, some inside a host.
const std::vector<int> kRingOrder = {0, 5, 1, 4, 8, 2, 11, 3, 9, 6, 10, 7};

// Uneven whole-byte chunks with empty ones and some under the shape's
// small-message threshold.
std::vector<double> uneven_chunks(int n) {
  std::vector<double> chunks(n);
  for (int i = 0; i < n; ++i) chunks[i] = i % 5 == 3 ? 0.0 : 7919.0 * (1 + (i * 13) % 11);
  return chunks;
}

TEST(CollectivesTest, RingClosedFormEqualsFlowModel) {
  const TopologyGraph graph = three_hosts_of_four();
  ASSERT_TRUE(graph.non_blocking());
  const int n = static_cast<int>(kRingOrder.size());
  for_each_shape_and_joins(n, [&](const CollectiveShape& shape, const std::vector<double>& joins) {
    expect_closed_form_exact(
        graph, true,
        [&](FlowNetwork& net, CollectiveListener* l) {
          return make_ring_reduce_scatter(net, kRingOrder, uneven_chunks(n), l, Harness::kTag,
                                          shape);
        },
        joins);
    expect_closed_form_exact(
        graph, true,
        [&](FlowNetwork& net, CollectiveListener* l) {
          return make_ring_all_gather(net, kRingOrder, uneven_chunks(n), l, Harness::kTag, shape);
        },
        joins);
    // 1e6 / 12 is no whole number of bytes; every chunk has the same size.
    for (const double bytes : {1e6, 12.0 * 2e3}) {
      expect_closed_form_exact(
          graph, true,
          [&](FlowNetwork& net, CollectiveListener* l) {
            return make_ring_all_reduce(net, kRingOrder, bytes, l, Harness::kTag, shape);
          },
          joins);
    }
  });
}

// The hierarchical all-reduce composes rings whose members join as their
// previous phase ends, each ring in closed form.
TEST(CollectivesTest, HierarchicalAllReduceClosedFormEqualsFlowModel) {
  const TopologyGraph graph = three_hosts_of_four();
  const int n = static_cast<int>(kRingOrder.size());
  for_each_shape_and_joins(n, [&](const CollectiveShape& shape, const std::vector<double>& joins) {
    for (const double bytes : {1e6, 4.8e4}) {
      expect_closed_form_exact(
          graph, true,
          [&](FlowNetwork& net, CollectiveListener* l) {
            return make_hierarchical_all_reduce(net, net.graph(), kRingOrder, bytes, l,
                                                Harness::kTag, shape);
          },
          joins);
    }
  });
}

// Two hosts of four GPUs sharing two NICs each: links can saturate.
TopologyGraph two_hosts_sharing_nics() {
  TopologySpec t;
  t.world_size = 8;
  t.local_world_size = 4;
  FabricSpec f;
  f.nics_per_host = 2;
  return std::move(TopologyGraph::build(t, f)).value();
}

// With contention off every flow runs at its bottleneck on any fabric, so a
// ring over shared NICs is solved in closed form too.
TEST(CollectivesTest, RingClosedFormWithoutContention) {
  const TopologyGraph graph = two_hosts_sharing_nics();
  ASSERT_FALSE(graph.non_blocking());
  const std::vector<int> order = {0, 4, 1, 5, 2, 6, 3, 7};
  for (const std::vector<double>& joins : join_patterns(8)) {
    expect_closed_form_exact(
        graph, false,
        [&](FlowNetwork& net, CollectiveListener* l) {
          return make_ring_all_reduce(net, order, 1e6, l, Harness::kTag, nccl_like_shape());
        },
        joins);
    expect_closed_form_exact(
        graph, false,
        [&](FlowNetwork& net, CollectiveListener* l) {
          return make_hierarchical_all_reduce(net, net.graph(), order, 1e6, l, Harness::kTag);
        },
        joins);
  }
}

// The traffic model's all-to-all (bytes = what the sender sends everyone +
// what everyone sends the receiver) on hosts of different bandwidths, with
// link latencies, a member order that is not rank order and an NCCL-like
// shape: closed form and flows agree bit for bit, and the separable form
// agrees with the same split given as a function.
TEST(CollectivesTest, SeparableAllToAllClosedFormEqualsFlowModel) {
  FabricSpec f;
  f.intra_host_latency_ms = 0.0011;
  f.inter_host_latency_ms = 0.0037;
  f.hosts.resize(3);
  f.hosts[1].intra_host_bw = 1.7e5;
  f.hosts[2].nic_bw = 2.3e4;
  const TopologyGraph graph = hosts_of(12, 4, 3e5, 5e4, f);
  ASSERT_TRUE(graph.non_blocking());
  const int n = static_cast<int>(kRingOrder.size());
  std::vector<double> from(n), to(n);
  for (int i = 0; i < n; ++i) {
    from[i] = i % 4 == 1 ? 0.0 : 3001.0 * (1 + (i * 7) % 9);
    to[i] = i % 5 == 2 ? 0.0 : 1009.0 * (1 + (i * 5) % 7);
  }
  from[3] = to[3] = 0.0;  // member 3 exchanges nothing
  for_each_shape_and_joins(n, [&](const CollectiveShape& shape, const std::vector<double>& joins) {
    expect_closed_form_exact(
        graph, true,
        [&](FlowNetwork& net, CollectiveListener* l) {
          return make_all_to_all(net, kRingOrder, from, to, l, Harness::kTag, shape);
        },
        joins);
    Harness separable(graph, true, true);
    Harness split(graph, true, true);
    const std::vector<double> a = separable.run(
        make_all_to_all(separable.net, kRingOrder, from, to, &separable, Harness::kTag, shape),
        joins);
    const std::vector<double>& b =
        split.run(make_all_to_all(
                      split.net, kRingOrder, [&](int i, int j) { return from[i] + to[j]; }, &split,
                      Harness::kTag, shape),
                  joins);
    EXPECT_EQ(a, b);
    EXPECT_EQ(separable.net.link_bytes(), split.net.link_bytes());
  });
}

// Sharing a NIC between two GPUs can make links saturate: no closed form.
TEST(CollectivesTest, SharedNicsRuleOutTheClosedForm) {
  EXPECT_FALSE(two_hosts_sharing_nics().non_blocking());
  TopologySpec t;
  t.world_size = 8;
  t.local_world_size = 4;
  FabricSpec over;
  over.oversubscription = 2.0;
  EXPECT_FALSE(std::move(TopologyGraph::build(t, over)).value().non_blocking());
}

TEST(CollectivesTest, HierarchicalAllReduceOnTwoHostsOfTwo) {
  // Intra: 1000 bytes/ms, 0.1 ms per link (0.2 per route). Inter: one NIC per
  // GPU at 100 bytes/ms, 0.05 ms per link (0.3 per route). S = 4000.
  //   intra reduce-scatter, 2 shares of 2000: 1 step of 2000/1000 + 0.2 = 2.2
  //   inter all-reduce of 2000 between 2 hosts: 2 steps of 1000/100 + 0.3 = 20.6
  //   intra all-gather of 2 shares of 2000: 2.2
  FabricSpec f;
  f.intra_host_latency_ms = 0.1;
  f.inter_host_latency_ms = 0.05;
  const TopologyGraph g = hosts_of(4, 2, 1000.0, 100.0, f);
  Harness h(g);
  const auto& done =
      h.run(make_hierarchical_all_reduce(h.net, g, iota(4), 4000.0, &h, Harness::kTag));
  for (int i = 0; i < 4; ++i) expect_close(done[i], 2.2 + 20.6 + 2.2);
  // 2 + 4 + 2 messages per host pair... : 4 intra RS, 8 inter AR, 4 intra AG.
  EXPECT_EQ(h.net.flows_started(), 16u);

  // A late member delays everything through the phases: member 3 joins at 1;
  // host 1's reduce-scatter ends at 3.2, so does the inter all-reduce start for both rings.
  Harness late(g);
  const auto& done_late =
      late.run(make_hierarchical_all_reduce(late.net, g, iota(4), 4000.0, &late, Harness::kTag),
               {0, 0, 0, 1});
  for (int i = 0; i < 4; ++i) expect_close(done_late[i], 1.0 + 2.2 + 20.6 + 2.2);
}

TEST(CollectivesTest, HierarchicalFallsBackToTheRing) {
  const TopologyGraph g = hosts_of(4, 2, 1000.0, 100.0);
  for (const std::vector<int>& members :
       {std::vector<int>{0, 1}, std::vector<int>{0, 1, 2}, std::vector<int>{1, 3}}) {
    Harness hier(g);
    Harness ring(g);
    const auto a =
        hier.run(make_hierarchical_all_reduce(hier.net, g, members, 3000.0, &hier, Harness::kTag));
    const auto b = ring.run(make_ring_all_reduce(ring.net, members, 3000.0, &ring, Harness::kTag));
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) expect_close(a[i], b[i]);
    EXPECT_EQ(hier.net.flows_started(), ring.net.flows_started());
  }
}

TEST(CollectivesTest, SingleMemberIsDoneAtJoin) {
  const TopologyGraph g = single_host(2, 1000.0, 0.25);
  for (int kind = 0; kind < 5; ++kind) {
    Harness h(g);
    std::unique_ptr<Collective> c;
    switch (kind) {
      case 0:
        c = make_all_to_all(
            h.net, {1}, [](int, int) { return 1.0; }, &h, Harness::kTag);
        break;
      case 1:
        c = make_ring_all_reduce(h.net, {1}, 100.0, &h, Harness::kTag);
        break;
      case 2:
        c = make_ring_reduce_scatter(h.net, {1}, {100.0}, &h, Harness::kTag);
        break;
      case 3:
        c = make_ring_all_gather(h.net, {1}, {100.0}, &h, Harness::kTag);
        break;
      default:
        c = make_hierarchical_all_reduce(h.net, g, {1}, 100.0, &h, Harness::kTag);
        break;
    }
    const auto& done = h.run(std::move(c), {3.0});
    EXPECT_EQ(done[0], 3.0) << kind;
    EXPECT_EQ(h.net.flows_started(), 0u);
  }
}

TEST(CollectivesTest, AllEmptyMessagesCompleteWithoutFlows) {
  const TopologyGraph g = single_host(4, 1000.0, 0.25);
  Harness h(g);
  const auto& done = h.run(make_all_to_all(
                               h.net, iota(4), [](int, int) { return 0.0; }, &h, Harness::kTag),
                           {0.0, 1.0, 2.0, 0.5});
  // Nothing to send, but each member still waits for the others to join.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(done[i], 2.0);
  EXPECT_EQ(h.net.flows_started(), 0u);
}

TEST(CollectivesTest, ListenerMayDestroyCollectiveWhenAllAreDone) {
  const TopologyGraph g = single_host(4, 1000.0, 0.25);
  struct Destroyer : Harness {
    using Harness::Harness;
    int left = 4;
    void on_member_done(int64_t tag, int member) override {
      Harness::on_member_done(tag, member);
      if (--left == 0) collective.reset();
    }
  };
  Destroyer h(g);
  h.run(make_ring_all_reduce(h.net, iota(4), 4000.0, &h, Harness::kTag));
  EXPECT_EQ(h.collective, nullptr);
  EXPECT_TRUE(h.queue.empty());
}

}  // namespace
}  // namespace shardlab::sim
