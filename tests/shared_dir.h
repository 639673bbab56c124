// Where the tests find the shared reference data that lives beside the
// repository, never inside it (TorchRec's golden outputs, real profiler
// traces): $SHARDLAB_SHARED_DIR when set, else ../shared next to the source
// tree. Needs SHARDLAB_SOURCE_DIR (every test target defines it).
#pragma once

#include <cstdlib>
#include <filesystem>

namespace shardlab::testing_support {

inline std::filesystem::path shared_dir() {
  if (const char* env = std::getenv("SHARDLAB_SHARED_DIR"); env != nullptr && *env != '\0')
    return env;
  return std::filesystem::path(SHARDLAB_SOURCE_DIR) / "../shared";
}

// The real traces (see the folder's README).
inline std::filesystem::path shared_traces_dir() { return shared_dir() / "traces"; }

}  // namespace shardlab::testing_support
