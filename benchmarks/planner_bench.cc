// Planner speed: the full plan() of every golden scenario (compare with
// TorchRec's own wall time in tests/golden/data/timings.json, see
// scripts/compare_timings.py), and synthetic models of T tables over W ranks
// with TorchRec's default proposers. Each runs under both TorchRec model
// versions (docs/torchrec-versions.md): "golden/NAME/2026-08", ...
//
//   build/benchmarks/planner_bench --benchmark_out=bench.json --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>
#include <set>
#include <string>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"

namespace {

using shardlab::planner::ProposerKind;
using shardlab::planner::ProposerSpec;
using shardlab::planner::Scenario;

void run_plan(benchmark::State& state, const Scenario& scenario) {
  int proposals = 0;
  int plans = 0;
  for (auto _ : state) {
    auto result = shardlab::planner::plan(scenario);
    proposals = result.num_proposals;
    plans = result.num_plans;
    benchmark::DoNotOptimize(result.perf_rating);
  }
  state.counters["proposals"] = proposals;
  // Proposals that partitioned: those are the expensive ones (most others
  // stop at the uniform phase).
  state.counters["plans"] = plans;
  state.counters["tables"] = static_cast<double>(scenario.tables.size());
  state.counters["ranks"] = scenario.topology.world_size;
}

// A DLRM-like mix: rows log-uniform in [1e3, 5e7], dims in {16..256}, pooling
// factors in [1, 40], 10% weighted, 25% fp16; 8 ranks per host; defaults for
// everything else (TorchRec's four proposers, greedy partitioner, 32 GiB HBM
// scaled so the model fits).
Scenario synthetic(int tables, int world_size) {
  Scenario s;
  s.name = "synthetic_" + std::to_string(tables) + "x" + std::to_string(world_size);
  s.topology.world_size = world_size;
  s.topology.local_world_size = std::min(world_size, 8);
  s.topology.hbm_cap = int64_t{80} << 30;
  s.planner.proposers = shardlab::planner::default_proposers();
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int dims[] = {16, 32, 64, 128, 256};
  for (int t = 0; t < tables; ++t) {
    shardlab::planner::TableSpec table;
    table.name = "t" + std::to_string(t);
    table.num_embeddings =
        static_cast<int64_t>(std::exp(std::log(1e3) + u(rng) * (std::log(5e7) - std::log(1e3))));
    table.embedding_dim = dims[static_cast<int>(u(rng) * 5) % 5];
    table.feature_names = {table.name + "_f0"};
    table.is_weighted = u(rng) < 0.1;
    table.data_type =
        u(rng) < 0.25 ? shardlab::planner::DataType::kFp16 : shardlab::planner::DataType::kFp32;
    s.tables.push_back(table);
    shardlab::planner::ConstraintSpec c;
    c.pooling_factors =
        std::vector<double>{std::round(std::exp(u(rng) * std::log(40.0)) * 10) / 10};
    s.constraints.emplace_back(c);
  }
  return s;
}

void register_goldens() {
  const std::filesystem::path root(SHARDLAB_SOURCE_DIR);
  std::set<std::string> seen;
  for (const auto& dir : {root / "tests/golden/data", root / "../shared/golden"}) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      const std::string file = path.filename().string();
      if (path.extension() != ".json" || file.find(".golden.") != std::string::npos ||
          file == "timings.json")
        continue;
      const std::string name = path.stem().string();
      if (!seen.insert(name).second) continue;
      auto scenario = shardlab::data::load_scenario_file(path.string());
      if (!scenario) continue;  // build-stage failures have nothing to plan
      for (shardlab::planner::TorchRecVersion v : shardlab::planner::all_torchrec_versions()) {
        Scenario s = *scenario;
        s.planner.torchrec_version = v;
        benchmark::RegisterBenchmark(("golden/" + name + "/" + std::string(to_string(v))).c_str(),
                                     [s = std::move(s)](benchmark::State& st) { run_plan(st, s); })
            ->Unit(benchmark::kMillisecond)
            ->MeasureProcessCPUTime()
            ->UseRealTime();
      }
    }
  }
}

void register_synthetic() {
  for (int tables : {100, 1000, 5000}) {
    for (int ranks : {8, 128, 1024}) {
      for (shardlab::planner::TorchRecVersion v : shardlab::planner::all_torchrec_versions()) {
        Scenario s = synthetic(tables, ranks);
        s.planner.torchrec_version = v;
        benchmark::RegisterBenchmark(("synthetic/" + std::to_string(tables) + "_tables/" +
                                      std::to_string(ranks) + "_ranks/" + std::string(to_string(v)))
                                         .c_str(),
                                     [s = std::move(s)](benchmark::State& st) { run_plan(st, s); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
}

// TorchRec 2026-08's dynamic-programming proposer alone (its target: 1,000
// tables on 128 ranks under 1 s, docs/torchrec-versions.md).
void register_dynamic_programming() {
  for (int ranks : {8, 128}) {
    Scenario s = synthetic(1000, ranks);
    s.planner.proposers = {ProposerSpec{.kind = ProposerKind::kDynamicProgramming}};
    benchmark::RegisterBenchmark(
        ("dynamic_programming/1000_tables/" + std::to_string(ranks) + "_ranks").c_str(),
        [s = std::move(s)](benchmark::State& st) { run_plan(st, s); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_goldens();
  register_synthetic();
  register_dynamic_programming();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
