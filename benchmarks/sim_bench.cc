// Speed of the simulator: one simulated iteration of a planned synthetic
// model (benchmarks/synthetic_scenario.h) with 1,000 tables on 8 to 1,024
// ranks (and 1,152 in NVL72-shaped racks), and the bundled Criteo Kaggle
// scenario. The `preset_dense` variants
// add an H100 preset (the NCCL-like layer) and a DLRM-DCNv2 dense model with
// DDP's bucket all-reduces (hierarchical rings, in closed form on this
// non-blocking fabric). Counters: events and flows per second, simulated
// iterations, peak resident memory of the process.
//
//   build/benchmarks/sim_bench --benchmark_filter=sim/
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "shardlab/data/host_profiles.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/scenario_writer.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/simulation.h"
#include "synthetic_scenario.h"

namespace {

using shardlab::planner::PlannerResult;
using shardlab::planner::Scenario;

struct Planned {
  Scenario scenario;
  PlannerResult result;
};

// Planning a 1,024-rank model takes seconds: plan each scenario once.
const Planned& planned(const std::string& key, Scenario (*make)()) {
  static std::map<std::string, std::unique_ptr<Planned>> cache;
  auto& slot = cache[key];
  if (!slot) {
    slot = std::make_unique<Planned>();
    slot->scenario = make();
    slot->result = shardlab::planner::plan(slot->scenario);
  }
  return *slot;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void run_sim(benchmark::State& state, const Planned& p, int iterations) {
  if (!p.result.ok()) {
    state.SkipWithError(("planning failed: " + p.result.error.message()).c_str());
    return;
  }
  shardlab::sim::SimOptions options;
  options.iterations = iterations;
  uint64_t events = 0;
  uint64_t flows = 0;
  bool host_lane = false;
  for (auto _ : state) {
    auto r = shardlab::sim::simulate(p.scenario, *p.result.search_space, *p.result.best, options);
    if (!r) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    events += r->events;
    flows += r->flows;
    host_lane = r->host.modelled;
    benchmark::DoNotOptimize(r->iteration_ms);
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["flows_per_s"] =
      benchmark::Counter(static_cast<double>(flows), benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  state.counters["ranks"] = p.scenario.topology.world_size;
  state.counters["peak_rss_MiB"] = peak_rss_mib();
  state.counters["host_lane"] = host_lane ? 1 : 0;  // the host model ran (docs/host-model.md)
}

// 1,000 tables need more than 8 × 80 GiB: the 8-rank point gets 320 GiB per
// GPU so that the same model can be placed and simulated at every scale.
// The host side as a scenario that names none gets it from the loader:
// TorchRec eager under the default host profile.
template <int Tables, int Ranks>
Scenario synthetic() {
  Scenario s = shardlab::bench::synthetic_scenario(
      Tables, Ranks, Ranks < 16 ? int64_t{320} << 30 : int64_t{80} << 30);
  const auto& profiles = shardlab::data::builtin_host_profiles();
  if (profiles) {
    if (const auto* host = profiles->find(shardlab::planner::kDefaultHostProfile)) {
      s.workload.host = *host;
    }
  }
  return s;
}

// The synthetic model on H100s with a DLRM-DCNv2 dense model, through the
// loader (which applies the preset): the scenario written, the preset and the
// workload spliced into it, and read back.
template <int Tables, int Ranks>
Scenario synthetic_preset_dense() {
  std::string text = shardlab::data::scenario_to_json(synthetic<Tables, Ranks>());
  const std::string topology = "\"topology\": {";
  text.insert(text.find(topology) + topology.size(), "\"gpu\": \"h100-sxm\", ");
  text.insert(text.rfind('}'),
              R"(, "workload": {"dense": {"dense_features": 13, "bottom_mlp": [512, 256, 128],
                   "interaction": {"kind": "dcn", "layers": 3, "low_rank": 512},
                   "top_mlp": [1024, 1024, 512, 256, 1], "precision": "bf16"}})");
  auto s = shardlab::data::parse_scenario(text, "synthetic_preset_dense");
  return s ? std::move(s).value() : Scenario{};
}

// The same on clusters (docs/simulation.md "Clusters"): GB200 NVL72-shaped
// racks (hosts of 4 in NVLink domains of 72; H100 numbers, the shape is what
// is timed) and 8-GPU hosts whose network reduces (SHARP: CollNet all-reduces).
template <int Tables, int Ranks>
Scenario synthetic_nvl72() {
  Scenario s = synthetic_preset_dense<Tables, Ranks>();
  s.topology.local_world_size = 4;
  s.fabric.nvlink_domain_size = 72;
  return s;
}

template <int Tables, int Ranks>
Scenario synthetic_sharp() {
  Scenario s = synthetic_preset_dense<Tables, Ranks>();
  s.fabric.sharp = true;
  return s;
}

// A rail-optimized network (the DGX SuperPOD's: rails in units of 32 hosts),
// closed forms; and with PXN, whose relays make every collective flows.
template <int Tables, int Ranks, bool Pxn>
Scenario synthetic_rails() {
  Scenario s = synthetic_preset_dense<Tables, Ranks>();
  s.fabric.rail_optimized = true;
  s.fabric.rail_group_size = 32;
  s.fabric.pxn = Pxn;
  return s;
}

Scenario criteo_kaggle() {
  auto s = shardlab::data::load_scenario_file(SHARDLAB_SOURCE_DIR
                                              "/data/scenarios/dlrm_criteo_kaggle.json");
  return s ? std::move(s).value() : Scenario{};
}

template <int Tables, int Ranks>
void BM_Synthetic(benchmark::State& state) {
  const std::string key = std::to_string(Tables) + "x" + std::to_string(Ranks);
  run_sim(state, planned(key, &synthetic<Tables, Ranks>), static_cast<int>(state.range(0)));
}

template <int Tables, int Ranks>
void BM_SyntheticPresetDense(benchmark::State& state) {
  const std::string key = "preset_dense_" + std::to_string(Tables) + "x" + std::to_string(Ranks);
  run_sim(state, planned(key, &synthetic_preset_dense<Tables, Ranks>),
          static_cast<int>(state.range(0)));
}

template <int Tables, int Ranks>
void BM_SyntheticNvl72(benchmark::State& state) {
  const std::string key = "nvl72_" + std::to_string(Tables) + "x" + std::to_string(Ranks);
  run_sim(state, planned(key, &synthetic_nvl72<Tables, Ranks>), static_cast<int>(state.range(0)));
}

template <int Tables, int Ranks>
void BM_SyntheticSharp(benchmark::State& state) {
  const std::string key = "sharp_" + std::to_string(Tables) + "x" + std::to_string(Ranks);
  run_sim(state, planned(key, &synthetic_sharp<Tables, Ranks>), static_cast<int>(state.range(0)));
}

template <int Tables, int Ranks, bool Pxn>
void BM_SyntheticRails(benchmark::State& state) {
  const std::string key =
      std::string(Pxn ? "pxn_" : "rails_") + std::to_string(Tables) + "x" + std::to_string(Ranks);
  run_sim(state, planned(key, &synthetic_rails<Tables, Ranks, Pxn>),
          static_cast<int>(state.range(0)));
}

void BM_CriteoKaggle(benchmark::State& state) {
  run_sim(state, planned("criteo", &criteo_kaggle), static_cast<int>(state.range(0)));
}

}  // namespace

BENCHMARK(BM_CriteoKaggle)
    ->Name("sim/criteo_kaggle/iterations")
    ->Arg(1)
    ->Arg(4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Synthetic<1000, 8>)
    ->Name("sim/1000_tables/8_ranks/iterations")
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Synthetic<1000, 64>)
    ->Name("sim/1000_tables/64_ranks/iterations")
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Synthetic<1000, 128>)
    ->Name("sim/1000_tables/128_ranks/iterations")
    ->Arg(1)
    ->Arg(4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Synthetic<1000, 512>)
    ->Name("sim/1000_tables/512_ranks/iterations")
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Synthetic<1000, 1024>)
    ->Name("sim/1000_tables/1024_ranks/iterations")
    ->Arg(1)
    ->Arg(4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SyntheticPresetDense<1000, 128>)
    ->Name("sim/preset_dense/1000_tables/128_ranks/iterations")
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SyntheticPresetDense<1000, 1024>)
    ->Name("sim/preset_dense/1000_tables/1024_ranks/iterations")
    ->Arg(1)
    ->Arg(4)
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_SyntheticNvl72<1000, 1152>)
    ->Name("sim/preset_dense/1000_tables/1152_ranks_nvl72/iterations")
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SyntheticRails<1000, 1024, false>)
    ->Name("sim/preset_dense/1000_tables/1024_ranks_rails/iterations")
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SyntheticRails<1000, 1024, true>)
    ->Name("sim/preset_dense/1000_tables/1024_ranks_rails_pxn/iterations")
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SyntheticSharp<1000, 1024>)
    ->Name("sim/preset_dense/1000_tables/1024_ranks_sharp/iterations")
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
