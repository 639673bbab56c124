// The "cuda" backend object: finds the GPUs, sets up an mpirun launch, and
// hands replay and bench-kernels to cuda_replay.cc and cuda_bench.cc.

#include "cuda_backend.h"

#include <cuda_runtime_api.h>

#include <string>

#include "cuda_check.h"
#include "cuda_context.h"
#include "mpi_bootstrap.h"

namespace shardlab::kernels {
namespace {

class CudaBackend final : public ReplayBackend {
 public:
  explicit CudaBackend(cuda::CudaContext context) : context_(std::move(context)) {}

  std::string_view name() const override { return "cuda"; }
  std::string device_name() const override { return context_.device_name; }

  Result<ReplayResult> replay(const ReplayWorkload& workload, const ReplayOptions& options,
                              const ProgressFn& progress) override {
    return cuda::cuda_replay(context_, workload, options, progress);
  }
  Result<KernelBenchResult> bench_kernels(const KernelBenchOptions& options,
                                          const ProgressFn& progress) override {
    return cuda::cuda_bench_kernels(context_, options, progress);
  }

 private:
  cuda::CudaContext context_;
};

}  // namespace

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: not an error for the caller
    return 0;
  }
  return count;
}

Result<std::unique_ptr<ReplayBackend>> make_cuda_backend() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    return Status::unavailable(std::string("no CUDA device found (cudaGetDeviceCount: ") +
                               (error != cudaSuccess ? cudaGetErrorString(error) : "0 devices") +
                               ")");
  }
  cuda::CudaContext context;
  context.launch = detect_launch();
  if (context.launch.size > 1) {
#if defined(SHARDLAB_HAVE_MPI)
    if (Status st = cuda::mpi_start(context.launch); !st) return st.with_context("starting MPI");
    context.devices = {context.launch.local_rank % count};
#else
    return Status::unavailable(
        "started by mpirun (" + std::to_string(context.launch.size) +
        " processes) but this shardlab was built without MPI; install Open MPI "
        "(libopenmpi-dev) and reconfigure, or run a single process");
#endif
  } else {
    for (int d = 0; d < count; ++d) context.devices.push_back(d);
  }
  cudaDeviceProp prop{};
  const cudaError_t prop_error = cudaGetDeviceProperties(&prop, context.devices.front());
  if (prop_error != cudaSuccess) {
    return cuda::cuda_status(prop_error, "cudaGetDeviceProperties", "cuda_backend.cc", __LINE__);
  }
  context.device_name = prop.name;
  return std::unique_ptr<ReplayBackend>(new CudaBackend(std::move(context)));
}

}  // namespace shardlab::kernels
