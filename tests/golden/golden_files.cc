#include "golden_files.h"

#include <algorithm>
#include <set>

namespace shardlab::testing {
namespace {

void collect(const std::filesystem::path& dir, uintmax_t max_bytes, std::set<std::string>* seen,
             std::vector<GoldenPair>* out) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;
  std::vector<GoldenPair> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string file = entry.path().filename().string();
    const std::string suffix = ".golden.json";
    if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string name = file.substr(0, file.size() - suffix.size());
    const auto scenario = dir / (name + ".json");
    if (!std::filesystem::exists(scenario) || seen->count(name)) continue;
    if (std::filesystem::file_size(entry.path(), ec) > max_bytes) continue;
    found.push_back({name, scenario, entry.path()});
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& p : found) {
    seen->insert(p.name);
    out->push_back(std::move(p));
  }
}

}  // namespace

std::vector<GoldenPair> find_golden_pairs(uintmax_t max_golden_bytes) {
  std::vector<GoldenPair> pairs;
  std::set<std::string> seen;
  collect(std::filesystem::path(SHARDLAB_SOURCE_DIR) / "tests/golden/data", max_golden_bytes, &seen, &pairs);
  collect(std::filesystem::path(SHARDLAB_SOURCE_DIR) / "../shared/golden", max_golden_bytes, &seen, &pairs);
  return pairs;
}

}  // namespace shardlab::testing
