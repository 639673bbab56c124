#include "golden_files.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <string_view>
#include <vector>

namespace shardlab::testing {
namespace {

struct GoldenSet {
  planner::TorchRecVersion version;
  const char* bundled;  // relative to the repository
  const char* shared;   // relative to the shared reference folder
  // Scenario name prefixes the set is limited to; empty: every scenario.
  std::vector<std::string_view> prefixes;
  // Scenarios of those kinds that also use a feature not modelled yet.
  std::vector<std::string_view> excluded = {};
};

// The 2026-08 features set (pods, grid, SSD / key-value, the DP proposer)
// holds one kind per prefix; a kind joins the list once it is modelled
// (docs/torchrec-versions.md lists the others as not modelled).
const GoldenSet kSets[] = {
    {planner::TorchRecVersion::k2024_02, "tests/golden/data", "golden", {}},
    {planner::TorchRecVersion::k2026_08,
     "tests/golden/data-torchrec-2026",
     "golden-torchrec-2026",
     {}},
    {planner::TorchRecVersion::k2026_08,
     "tests/golden/data-torchrec-2026-features",
     "golden-torchrec-2026-features",
     {"pod_", "fail_pod_", "grid_", "fail_grid_", "dp_proposer_", "fail_dp_"},
     // The key_value kernel (SSD tier) is not modelled.
     {"dp_proposer_with_key_value_ws4"}},
};

bool in_set(const GoldenSet& set, const std::string& name) {
  if (std::find(set.excluded.begin(), set.excluded.end(), name) != set.excluded.end()) return false;
  if (set.prefixes.empty()) return true;
  return std::any_of(set.prefixes.begin(), set.prefixes.end(),
                     [&](std::string_view p) { return name.rfind(p, 0) == 0; });
}

std::string id_of(planner::TorchRecVersion v, const std::string& name) {
  // Appended piece by piece: "v" + std::string(...) trips a GCC 12
  // -Wrestrict false positive.
  std::string id = "v";
  id += planner::to_string(v);
  id += "_";
  id += name;
  for (char& c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return id;
}

void collect(const std::filesystem::path& dir, const GoldenSet& set, uintmax_t max_bytes,
             std::set<std::string>* seen, std::vector<GoldenPair>* out) {
  const planner::TorchRecVersion version = set.version;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;
  std::vector<GoldenPair> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string file = entry.path().filename().string();
    const std::string suffix = ".golden.json";
    if (file.size() <= suffix.size() ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string name = file.substr(0, file.size() - suffix.size());
    const auto scenario = dir / (name + ".json");
    if (!std::filesystem::exists(scenario) || seen->count(name) || !in_set(set, name)) continue;
    if (std::filesystem::file_size(entry.path(), ec) > max_bytes) continue;
    found.push_back({name, scenario, entry.path(), version, id_of(version, name)});
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& p : found) {
    seen->insert(p.name);
    out->push_back(std::move(p));
  }
}

std::filesystem::path shared_root() {
  if (const char* env = std::getenv("SHARDLAB_SHARED_DIR"); env != nullptr && *env != '\0')
    return env;
  return std::filesystem::path(SHARDLAB_SOURCE_DIR) / "../shared";
}

}  // namespace

std::vector<GoldenPair> find_golden_pairs(uintmax_t max_golden_bytes) {
  std::vector<GoldenPair> pairs;
  for (const GoldenSet& set : kSets) {
    std::set<std::string> seen;
    collect(std::filesystem::path(SHARDLAB_SOURCE_DIR) / set.bundled, set, max_golden_bytes, &seen,
            &pairs);
    collect(shared_root() / set.shared, set, max_golden_bytes, &seen, &pairs);
  }
  return pairs;
}

uintmax_t golden_max_bytes() {
  uintmax_t max_mb = 20;
  if (const char* env = std::getenv("SHARDLAB_GOLDEN_MAX_MB"))
    max_mb = std::strtoull(env, nullptr, 10);
  return max_mb << 20;
}

void PrintTo(const GoldenPair& pair, std::ostream* os) { *os << pair.id; }

}  // namespace shardlab::testing
