// Finds TorchRec golden pairs (NAME.json + NAME.golden.json): the copies
// bundled in tests/golden/data, and the full reference set beside the
// repository (../shared/golden) when it is present.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace shardlab::testing {

struct GoldenPair {
  std::string name;
  std::filesystem::path scenario;
  std::filesystem::path golden;
};

// Bundled pairs first; shared pairs whose name is not bundled follow. Pairs
// whose golden is larger than `max_golden_bytes` are left out.
std::vector<GoldenPair> find_golden_pairs(uintmax_t max_golden_bytes);

}  // namespace shardlab::testing
