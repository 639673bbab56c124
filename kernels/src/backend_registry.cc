// The backends this build offers, by name.

#include <string>

#include "shardlab/kernels/backend.h"
#include "shardlab/kernels/cpu_backend.h"
#if defined(SHARDLAB_HAVE_CUDA)
#include "shardlab/kernels/cuda_backend.h"
#endif

namespace shardlab::kernels {

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
    return make_cuda_backend();
#else
    return Status::invalid_scenario(
        "backend 'cuda': this shardlab was built without CUDA (configure with the CUDA toolkit installed, see "
        "README)");
#endif
  }
  return Status::invalid_scenario("unknown backend '" + std::string(name) + "' (expected cpu or cuda)");
}

int replay_process_rank() {
#if defined(SHARDLAB_HAVE_CUDA)
  return cuda_process_rank();
#else
  return 0;
#endif
}

}  // namespace shardlab::kernels
