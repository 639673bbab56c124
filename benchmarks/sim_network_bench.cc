// Simulator network core speed: collectives as flows over the topology graph
// (event queue, max-min flow network, collective state machines).
//
//   build/benchmarks/sim_network_bench --benchmark_counters_tabular=true
//
// Topologies use the scenario defaults (TopologySpec and FabricSpec) with 8
// GPUs per host: one NIC per GPU, oversubscription 1, so an all-to-all never
// saturates a link and costs O(1) per message.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "shardlab/sim/collectives.h"

namespace {

using shardlab::sim::Collective;
using shardlab::sim::CollectiveListener;
using shardlab::sim::EventHandler;
using shardlab::sim::EventQueue;
using shardlab::sim::FlowNetwork;
using shardlab::sim::TopologyGraph;

constexpr int kGpusPerHost = 8;
constexpr double kSplitBytes = 64.0 * 1024;

TopologyGraph make_graph(int ranks, const shardlab::planner::FabricSpec& fabric = {}) {
  shardlab::planner::TopologySpec topology;
  topology.world_size = ranks;
  topology.local_world_size = kGpusPerHost;
  TopologyGraph graph = std::move(TopologyGraph::build(topology, fabric)).value();
  // Fill every source's route cache up front: the loop measures steady state.
  for (int src = 0; src < ranks; ++src) benchmark::DoNotOptimize(graph.route(src, 0).data());
  return graph;
}

// Joins every member at time 0 through the queue and counts completions.
class Driver : public CollectiveListener, public EventHandler {
 public:
  void on_member_done(int64_t, int) override { ++done; }
  void on_event(int64_t member, int64_t) override { collective->join(static_cast<int>(member)); }
  std::unique_ptr<Collective> collective;
  int done = 0;
};

std::vector<int> all_ranks(int n) {
  std::vector<int> members(n);
  for (int i = 0; i < n; ++i) members[i] = i;
  return members;
}

template <typename Make>
void run_collective(benchmark::State& state, const TopologyGraph& graph, Make make) {
  const int n = graph.num_ranks();
  uint64_t flows = 0;
  uint64_t events = 0;
  double simulated_ms = 0.0;
  for (auto _ : state) {
    EventQueue queue;
    FlowNetwork network(queue, graph);
    Driver driver;
    driver.collective = make(network, all_ranks(n), &driver);
    for (int i = 0; i < n; ++i) queue.schedule(0.0, &driver, i);
    queue.run();
    if (driver.done != n) state.SkipWithError("not every member finished");
    flows = network.flows_started();
    events = queue.events_processed();
    simulated_ms = queue.now();
  }
  using benchmark::Counter;
  state.counters["flows"] = static_cast<double>(flows);
  state.counters["flows/s"] =
      Counter(static_cast<double>(flows), Counter::kIsIterationInvariantRate);
  state.counters["events/s"] =
      Counter(static_cast<double>(events), Counter::kIsIterationInvariantRate);
  state.counters["sim_ms"] = simulated_ms;
}

void BM_AllToAll(benchmark::State& state) {
  const TopologyGraph graph = make_graph(static_cast<int>(state.range(0)));
  run_collective(state, graph, [](FlowNetwork& net, std::vector<int> members, Driver* d) {
    return shardlab::sim::make_all_to_all(
        net, std::move(members), [](int, int) { return kSplitBytes; }, d, 0);
  });
}
BENCHMARK(BM_AllToAll)->Arg(8)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);

// Two GPUs per NIC and a 2:1 uplink: links saturate, so every start and end
// re-rates a component of flows by progressive filling.
void BM_AllToAllOversubscribed(benchmark::State& state) {
  shardlab::planner::FabricSpec fabric;
  fabric.nics_per_host = kGpusPerHost / 2;
  fabric.oversubscription = 2.0;
  const TopologyGraph graph = make_graph(static_cast<int>(state.range(0)), fabric);
  run_collective(state, graph, [](FlowNetwork& net, std::vector<int> members, Driver* d) {
    return shardlab::sim::make_all_to_all(
        net, std::move(members), [](int, int) { return kSplitBytes; }, d, 0);
  });
}
BENCHMARK(BM_AllToAllOversubscribed)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);

// As above with uneven splits (16..80 KiB): flows no longer start and end in
// lockstep, so fewer recomputations coincide.
void BM_AllToAllOversubscribedUneven(benchmark::State& state) {
  shardlab::planner::FabricSpec fabric;
  fabric.nics_per_host = kGpusPerHost / 2;
  fabric.oversubscription = 2.0;
  const TopologyGraph graph = make_graph(static_cast<int>(state.range(0)), fabric);
  run_collective(state, graph, [](FlowNetwork& net, std::vector<int> members, Driver* d) {
    const auto split = [](int i, int j) { return 16.0 * 1024 * (1 + (i * 7 + j * 3) % 5); };
    return shardlab::sim::make_all_to_all(net, std::move(members), split, d, 0);
  });
}
BENCHMARK(BM_AllToAllOversubscribedUneven)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_RingAllReduce(benchmark::State& state) {
  const TopologyGraph graph = make_graph(static_cast<int>(state.range(0)));
  run_collective(state, graph, [](FlowNetwork& net, std::vector<int> members, Driver* d) {
    return shardlab::sim::make_ring_all_reduce(net, std::move(members), 64.0 * 1024 * 1024, d, 0);
  });
}
BENCHMARK(BM_RingAllReduce)->Arg(128)->Unit(benchmark::kMillisecond);

void BM_HierarchicalAllReduce(benchmark::State& state) {
  const TopologyGraph graph = make_graph(static_cast<int>(state.range(0)));
  run_collective(state, graph, [&graph](FlowNetwork& net, std::vector<int> members, Driver* d) {
    return shardlab::sim::make_hierarchical_all_reduce(net, graph, std::move(members),
                                                       64.0 * 1024 * 1024, d, 0);
  });
}
BENCHMARK(BM_HierarchicalAllReduce)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
