#include "cpu_backend.h"

#include <fstream>
#include <string>
#include <thread>

#include "cpu_replay.h"

namespace shardlab::kernels {
namespace {

class CpuBackend final : public ReplayBackend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string device_name() const override { return cpu_device_name(); }
  Result<ReplayResult> replay(const ReplayWorkload& workload, const ReplayOptions& options,
                              const ProgressFn& progress) override {
    return detail::cpu_replay(workload, options, progress);
  }
  Result<KernelBenchResult> bench_kernels(const KernelBenchOptions& options,
                                          const ProgressFn& progress) override {
    return detail::cpu_bench_kernels(options, progress);
  }
};

}  // namespace

std::unique_ptr<ReplayBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

std::string cpu_device_name() {
  std::string model = "unknown CPU";
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) model = line.substr(start);
    break;
  }
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  return model + " (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

}  // namespace shardlab::kernels
