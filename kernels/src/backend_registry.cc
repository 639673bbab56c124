// The backends this build offers, by name. The CPU reference backend is part
// of this library; the CUDA backend is a module opened on first use
// (backend_module.h), so only processes that ask for it load the CUDA
// runtime, NCCL and MPI.

#include <string>

#include "backend_module.h"
#include "cpu_backend.h"
#include "process_launch.h"
#include "shardlab/kernels/backend.h"

namespace shardlab::kernels {

// The CUDA backend module's file and the variable that overrides where it is.
inline constexpr std::string_view kCudaModuleFile = "libshardlab_cuda_backend.so";
inline constexpr const char* kCudaModuleVariable = "SHARDLAB_CUDA_BACKEND";

std::vector<std::string> available_backends() {
#if defined(SHARDLAB_HAVE_CUDA)
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

Result<std::unique_ptr<ReplayBackend>> make_backend(std::string_view name) {
  if (name == "cpu") return make_cpu_backend();
  if (name == "cuda") {
#if defined(SHARDLAB_HAVE_CUDA)
    Result<const BackendModuleInfo*> module =
        find_backend_module("cuda", kCudaModuleFile, kCudaModuleVariable);
    if (!module) return module.status();
    return (*module)->create();
#else
    return Status::unavailable(
        "backend 'cuda': this shardlab was built without CUDA (configure with the CUDA toolkit "
        "installed, see "
        "README)");
#endif
  }
  return Status::invalid_argument("unknown backend '" + std::string(name) +
                                  "' (expected cpu or cuda)");
}

int replay_process_rank() { return detect_launch().rank; }

}  // namespace shardlab::kernels
