// Replay backends that live in a shared library opened at run time (a
// "backend module"), so that nothing in the process links what they need
// until they are asked for: the CUDA + NCCL (+ Open MPI) backend is
// libshardlab_cuda_backend.so, and a shardlab built with it still starts,
// fast, on a host without a GPU or without those libraries.
//
// The boundary. A module exports one C symbol, kBackendModuleSymbol, a
// function taking nothing and returning a pointer to a static
// BackendModuleInfo. The loader reads `abi` first (it sits at offset 0 in
// every version) and uses nothing else unless it equals kBackendModuleAbi;
// then it compares the ShardLab version, the compiler and a fingerprint of
// the sizes of every type that crosses the boundary. Only when all match does
// it call `create`, whose Result and backend object are C++: the module and
// the loader were then compiled from the same sources by the same compiler
// against the same standard library.
//
// Where a module is looked for (backend_module.cc): the file its environment
// variable names (SHARDLAB_CUDA_BACKEND for "cuda") when set, else next to
// the executable (/proc/self/exe), else ../lib/shardlab/ from it (the
// install layout, and build/lib/shardlab/ in a build tree).
//
// Thread safety: open_backend_module may be called from any thread; a module
// once opened stays loaded for the life of the process (never dlclose'd:
// the CUDA runtime and NCCL do not support being unloaded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "shardlab/kernels/backend.h"
#include "shardlab/planner/status.h"

namespace shardlab::kernels {

// Bump when the meaning of what crosses the boundary changes without its
// layout changing (the fingerprint below catches layout changes).
inline constexpr uint32_t kBackendModuleAbi = 1;

inline constexpr const char* kBackendModuleSymbol = "shardlab_backend_module_v1";

// Sizes and alignments of the types a module and its loader exchange, mixed
// into one number (FNV-1a over the pairs).
constexpr uint64_t backend_layout_fingerprint() {
  const uint64_t sizes[] = {
      sizeof(ReplayWorkload),      alignof(ReplayWorkload),
      sizeof(RankWorkload),        sizeof(ShardWork),
      sizeof(ReplayOptions),       sizeof(ReplayResult),
      sizeof(Measurement),         sizeof(PhaseTiming),
      sizeof(TimingSummary),       sizeof(KernelBenchOptions),
      sizeof(KernelBenchRow),      sizeof(KernelBenchResult),
      sizeof(ProgressFn),          sizeof(Status),
      sizeof(std::string),         sizeof(std::vector<int>),
      sizeof(sim::CollectiveSpec), sizeof(Result<std::unique_ptr<ReplayBackend>>)};
  uint64_t h = 14695981039346656037ull;
  for (uint64_t s : sizes) {
    h ^= s;
    h *= 1099511628211ull;
  }
  return h;
}

// What a module's entry point returns. Standard layout, `abi` first.
struct BackendModuleInfo {
  uint32_t abi = kBackendModuleAbi;
  uint64_t layout = backend_layout_fingerprint();
  const char* shardlab_version = nullptr;  // the project version it was built as
  const char* compiler = nullptr;          // __VERSION__ of the compiler that built it
  const char* backend = nullptr;           // the backend name it creates, e.g. "cuda"
  // Creates the backend; an unavailable Status when this host cannot run it
  // (no device, no driver).
  Result<std::unique_ptr<ReplayBackend>> (*create)() = nullptr;
};
static_assert(std::is_standard_layout_v<BackendModuleInfo>);
static_assert(offsetof(BackendModuleInfo, abi) == 0);

using BackendModuleEntry = const BackendModuleInfo* (*)();

// This build's version and compiler, as a module must report them.
const char* backend_module_version();
const char* backend_module_compiler();

// Opens the module at `path` (dlopen, every symbol resolved now) and checks
// its entry point as described above. Fails with an unavailable Status naming
// the file: with dlerror()'s text when it cannot be loaded (missing file, or
// a library it needs, such as libcudart or libnccl, missing on this host), or
// saying what differs when it is not a module of this build.
Result<const BackendModuleInfo*> open_backend_module(const std::string& path);

// The files tried, in order, for the module `file_name` (e.g.
// "libshardlab_cuda_backend.so") when `env_var` is unset or empty; only its
// value otherwise.
std::vector<std::string> backend_module_candidates(std::string_view file_name, const char* env_var);

// Finds and opens the module of backend `backend` (see above); the first
// candidate that exists is the one opened. Its errors name every file tried.
Result<const BackendModuleInfo*> find_backend_module(std::string_view backend,
                                                     std::string_view file_name,
                                                     const char* env_var);

}  // namespace shardlab::kernels

extern "C" {
// Declared here so the module's definition is checked against it.
const shardlab::kernels::BackendModuleInfo* shardlab_backend_module_v1();
}
