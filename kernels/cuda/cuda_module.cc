// The entry point of libshardlab_cuda_backend.so (backend_module.h): the one
// symbol the module exports.

#include "backend_module.h"
#include "cuda_backend.h"

extern "C" __attribute__((visibility("default"))) const shardlab::kernels::BackendModuleInfo*
shardlab_backend_module_v1() {
  static const shardlab::kernels::BackendModuleInfo info{
      .abi = shardlab::kernels::kBackendModuleAbi,
      .layout = shardlab::kernels::backend_layout_fingerprint(),
      .shardlab_version = shardlab::kernels::backend_module_version(),
      .compiler = shardlab::kernels::backend_module_compiler(),
      .backend = "cuda",
      .create = &shardlab::kernels::make_cuda_backend,
  };
  return &info;
}
