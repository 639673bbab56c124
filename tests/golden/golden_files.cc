#include "golden_files.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "../shared_dir.h"

namespace shardlab::testing {
namespace {

// One set of tests/golden/golden_sets.json (its comment says what each
// field means).
struct GoldenSet {
  planner::TorchRecVersion version;
  std::string bundled;  // relative to the repository
  std::string shared;   // relative to the shared reference folder
  std::vector<std::string> prefixes;
  std::vector<std::string> excluded;
};

const std::vector<GoldenSet>& golden_sets() {
  static const std::vector<GoldenSet> kSets = [] {
    std::ifstream in(std::filesystem::path(SHARDLAB_SOURCE_DIR) / "tests/golden/golden_sets.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::vector<GoldenSet> sets;
    for (const nlohmann::json& s : doc.at("sets")) {
      sets.push_back({*planner::parse_torchrec_version(s.at("version").get<std::string>()),
                      s.at("bundled").get<std::string>(), s.at("shared").get<std::string>(),
                      s.at("prefixes").get<std::vector<std::string>>(),
                      s.at("excluded").get<std::vector<std::string>>()});
    }
    return sets;
  }();
  return kSets;
}

bool in_set(const GoldenSet& set, const std::string& name) {
  if (std::find(set.excluded.begin(), set.excluded.end(), name) != set.excluded.end()) return false;
  if (set.prefixes.empty()) return true;
  return std::any_of(set.prefixes.begin(), set.prefixes.end(),
                     [&](const std::string& p) { return name.rfind(p, 0) == 0; });
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

std::filesystem::path shared_root() { return testing_support::shared_dir(); }

}  // namespace

std::vector<GoldenPair> find_golden_pairs(uintmax_t max_golden_bytes) {
  std::vector<GoldenPair> pairs;
  for (const GoldenSet& set : golden_sets()) {
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
