// Scenario loading at scale: 100,000 tables, with and without a constraint per
// table. The loader's name lookups and duplicate-key checks must stay linear;
// this is where that is measured (the data tests only check the result).
//
//   build/benchmarks/loader_bench
#include <benchmark/benchmark.h>

#include <string>

#include "shardlab/data/scenario_loader.h"

namespace {

std::string many_tables(int n, bool with_constraints) {
  std::string text = R"({"topology": {"world_size": 64, "local_world_size": 8}, "tables": [)";
  for (int i = 0; i < n; ++i) {
    if (i > 0) text += ',';
    text += R"({"name": "table_)" + std::to_string(i) + R"(", "num_embeddings": )" +
            std::to_string(1000 + i) + R"(, "embedding_dim": 64, "feature_names": ["f_)" +
            std::to_string(i) + R"("]})";
  }
  text += "]";
  if (with_constraints) {
    text += R"(, "constraints": {)";
    for (int i = 0; i < n; ++i) {
      if (i > 0) text += ',';
      text += R"("table_)" + std::to_string(i) +
              R"(": {"pooling_factors": [2.0], "sharding_types": ["row_wise"]})";
    }
    text += "}";
  }
  return text + "}";
}

void BM_LoadTables(benchmark::State& state) {
  const std::string text = many_tables(static_cast<int>(state.range(0)), state.range(1) != 0);
  for (auto _ : state) {
    auto scenario = shardlab::data::parse_scenario(text, "big.json");
    if (!scenario) state.SkipWithError(scenario.status().message().c_str());
    benchmark::DoNotOptimize(scenario);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_LoadTables)
    ->ArgNames({"tables", "constraints"})
    ->Args({100000, 0})
    ->Args({100000, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
