// Finds TorchRec golden pairs (NAME.json + NAME.golden.json) of every TorchRec
// version ShardLab models: the copies bundled in tests/golden/data (2024-02)
// and tests/golden/data-torchrec-2026 (2026-08), and the full reference sets
// beside the repository (../shared/golden, ../shared/golden-torchrec-2026)
// when they are present.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "shardlab/planner/torchrec_version.h"

namespace shardlab::testing {

struct GoldenPair {
  std::string name;  // scenario name (file stem)
  std::filesystem::path scenario;
  std::filesystem::path golden;
  // The TorchRec version that wrote the golden: the scenario is planned with it.
  planner::TorchRecVersion version = planner::TorchRecVersion::k2024_02;
  // Unique across versions, usable as a gtest parameter name: "v2024_02_<name>".
  std::string id;
};

// Per version, oldest first: bundled pairs, then shared pairs whose name is
// not bundled, each group sorted by name. Pairs whose golden is larger than
// `max_golden_bytes` are left out.
//
// The shared reference folder is $SHARDLAB_SHARED_DIR when set, else
// ../shared beside the repository.
std::vector<GoldenPair> find_golden_pairs(uintmax_t max_golden_bytes);

// The golden size limit: $SHARDLAB_GOLDEN_MAX_MB megabytes, 20 by default (the
// 43 MB golden of the 512-table scenario takes long to parse; the CLI
// comparison, compare_golden.py, covers it).
uintmax_t golden_max_bytes();

// gtest prints a pair as its id.
void PrintTo(const GoldenPair& pair, std::ostream* os);

}  // namespace shardlab::testing
