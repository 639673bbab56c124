// How fast `shardlab trace summarize` reads a trace, and in how much memory
// (docs/traces.md "Speed and memory"): a synthetic Kineto trace of about
// 100 MB, plain JSON, shaped like the shared A100 traces (per launch a CPU op,
// a runtime call, a flow event and a kernel), written once to the temporary
// folder. Counters: MB/s of file read, the file's size and the process's peak
// resident memory, to set against the 2x-the-file budget.
//
//   build/benchmarks/trace_bench
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "shardlab/trace/trace_summary.h"

namespace {

namespace fs = std::filesystem;

// Writes the synthetic trace once; returns its path.
const std::string& synthetic_trace() {
  static const std::string path = [] {
    const fs::path p = fs::temp_directory_path() / "shardlab_trace_bench_100mb.json";
    std::ofstream out(p, std::ios::binary);
    out << R"({"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},)"
        << "\n\"traceEvents\": [\n";
    constexpr int64_t kLaunchesPerStep = 20000;
    constexpr int kSteps = 7;  // about 112 MB
    int64_t ts = 1000000;
    int64_t corr = 1;
    for (int step = 0; step < kSteps; ++step) {
      const int64_t start = ts;
      const int64_t dur = kLaunchesPerStep * 10;
      out << R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" << step
          << R"(", "pid": 1, "tid": 1, "ts": )" << start << R"(, "dur": )" << dur
          << R"(, "args": {"External id": 1}},)"
          << "\n";
      for (int64_t k = 0; k < kLaunchesPerStep; ++k, ++corr, ts += 10) {
        out << R"({"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": )"
            << ts << R"(, "dur": 8, "args": {"External id": )" << corr
            << R"(, "Input Dims": [[8192, 512], [256, 512], [256]]}},)"
            << "\n"
            << R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )"
            << ts + 2 << R"(, "dur": 4, "args": {"External id": )" << corr
            << R"(, "cbid": 211, "correlation": )" << corr << "}},\n"
            << R"({"ph": "s", "id": )" << corr << R"(, "pid": 1, "tid": 1, "ts": )" << ts + 2
            << R"(, "cat": "ac2g", "name": "ac2g"},)"
            << "\n"
            << R"({"ph": "X", "cat": "kernel", "name": "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3", "pid": 0, "tid": 7, "ts": )"
            << ts + 20 << R"(, "dur": 7, "args": {"External id": )" << corr
            << R"(, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": )" << corr
            << R"(, "registers per thread": 72, "shared memory": 13824, "grid": [32, 2, 1], "block": [128, 1, 1]}},)"
            << "\n";
      }
    }
    out << R"({"ph": "X", "cat": "Trace", "name": "end", "ts": 0, "dur": 0}]})"
        << "\n";
    return p.string();
  }();
  return path;
}

double peak_rss_mib() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

void BM_SummarizeTrace(benchmark::State& state) {
  const std::string& path = synthetic_trace();
  const auto bytes = static_cast<double>(fs::file_size(path));
  for (auto _ : state) {
    auto r = shardlab::trace::summarize_trace_file(path);
    if (!r) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(r->steps.size());
  }
  state.counters["file_MB"] = bytes / 1e6;
  state.counters["MB_per_s"] = benchmark::Counter(
      bytes / 1e6 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

}  // namespace

BENCHMARK(BM_SummarizeTrace)
    ->Name("trace/summarize/100MB")
    ->Unit(benchmark::kSecond)
    ->Iterations(2);

BENCHMARK_MAIN();
