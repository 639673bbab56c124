// A backend module for the loader's tests (backend_module_test.cc): backend
// "test", whose replay and bench-kernels fail saying so. Built twice: as a
// module of this build, and with SHARDLAB_TEST_MODULE_OLD_ABI as one that
// claims another module interface, which the loader must refuse before using
// anything else it exports.

#include <memory>

#include "backend_module.h"

namespace {

using shardlab::Result;
using shardlab::Status;
using namespace shardlab::kernels;

class TestBackend final : public ReplayBackend {
 public:
  std::string_view name() const override { return "test"; }
  std::string device_name() const override { return "test module"; }
  Result<ReplayResult> replay(const ReplayWorkload&, const ReplayOptions&,
                              const ProgressFn&) override {
    return Status::unavailable("the test module replays nothing");
  }
  Result<KernelBenchResult> bench_kernels(const KernelBenchOptions&, const ProgressFn&) override {
    return Status::unavailable("the test module benchmarks nothing");
  }
};

Result<std::unique_ptr<ReplayBackend>> create() {
  return std::unique_ptr<ReplayBackend>(new TestBackend());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const BackendModuleInfo*
shardlab_backend_module_v1() {
  static const BackendModuleInfo info {
#if defined(SHARDLAB_TEST_MODULE_OLD_ABI)
    .abi = kBackendModuleAbi + 1000,
#else
    .abi = kBackendModuleAbi,
#endif
    .layout = backend_layout_fingerprint(), .shardlab_version = SHARDLAB_VERSION,
    .compiler = __VERSION__, .backend = "test", .create = &create,
  };
  return &info;
}
