// The field lists of hostile_inputs.cc cover every key the readers accept:
// a key added to a format (its list in data/src/scenario_sections.h or
// format_keys.h) fails here until the sweep tries hostile values in it.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format_keys.h"
#include "hostile_inputs.h"
#include "scenario_sections.h"

namespace shardlab::hostile {
namespace {

// Keys of `keys` with no field at `prefix` + key (prefix a JSON pointer to
// the object, ending in '/'). `any_index` accepts the prefix's "#" at any
// list index (proposer objects).
std::vector<std::string> uncovered(const std::vector<Field>& fields, const std::string& prefix,
                                   std::span<const std::string_view> keys) {
  std::vector<std::string> missing;
  for (std::string_view key : keys) {
    bool found = false;
    for (const Field& f : fields) {
      const std::size_t hash = prefix.find('#');
      if (hash == std::string::npos) {
        found = found || f.pointer == prefix + std::string(key);
        continue;
      }
      // "/planner/proposers/#/": any index.
      const std::string head = prefix.substr(0, hash);
      const std::string tail = prefix.substr(hash + 1) + std::string(key);
      if (!f.pointer.starts_with(head) || !f.pointer.ends_with(tail)) continue;
      const std::string index =
          f.pointer.substr(head.size(), f.pointer.size() - head.size() - tail.size());
      found =
          found || (!index.empty() && index.find_first_not_of("0123456789") == std::string::npos);
    }
    if (!found) missing.push_back(prefix + std::string(key));
  }
  return missing;
}

TEST(HostileCoverage, EveryScenarioKeyHasAField) {
  namespace k = data::internal;
  const std::vector<Field>& f = scenario_fields();
  const std::pair<std::string, std::span<const std::string_view>> objects[] = {
      {"/", k::kRootKeys},
      {"/topology/", k::kTopologyKeys},
      {"/topology/fabric/", k::kFabricKeys},
      {"/topology/fabric/hosts/0/", k::kHostKeys},
      {"/module/", k::kModuleKeys},
      {"/tables/0/", k::kTableKeys},
      {"/constraints/t0/", k::kConstraintKeys},
      {"/constraints/t0/cache_params/", k::kCacheParamsKeys},
      {"/constraints/t0/key_value_params/", k::kKeyValueParamsKeys},
      {"/sharder/", k::kSharderKeys},
      {"/sharder/fused_params/", k::kFusedParamsKeys},
      {"/sharder/qcomm/", k::kQcommKeys},
      {"/planner/", k::kPlannerKeys},
      {"/planner/proposers/#/", k::kAnyProposerKeys},
      {"/planner/partitioner/", k::kAnyPartitionerKeys},
      {"/planner/storage_reservation/", k::kReservationKeys},
      {"/workload/", k::kWorkloadKeys},
      {"/workload/dense/", k::kDenseKeys},
      {"/workload/dense/interaction/", k::kInteractionKeys},
  };
  for (const auto& [prefix, keys] : objects) {
    for (const std::string& missing : uncovered(f, prefix, keys)) {
      ADD_FAILURE() << "no hostile field for " << missing << " (add it to scenario_fields())";
    }
  }
}

TEST(HostileCoverage, EveryPlanAndProfileKeyHasAField) {
  namespace k = data::internal;
  const std::pair<std::string, std::span<const std::string_view>> torchrec[] = {
      {"/", k::kPlanWrapperKeys},
      {"/plan/ebc/t0/", k::kParameterShardingKeys},
      {"/plan/ebc/t0/sharding_spec/0/", k::kShardMetadataKeys},
      {"/plan/ebc/t0/cache_params/", k::kCacheParamsKeys},
  };
  for (const auto& [prefix, keys] : torchrec) {
    for (const std::string& missing : uncovered(torchrec_plan_fields(), prefix, keys)) {
      ADD_FAILURE() << "no hostile field for " << missing << " (add it to torchrec_plan_fields())";
    }
  }
  const std::pair<std::string, std::span<const std::string_view>> shardlab[] = {
      {"/tables/t0/", k::kPlanTableKeys},
      {"/tables/t0/shards/0/", k::kPlanShardKeys},
  };
  for (const auto& [prefix, keys] : shardlab) {
    for (const std::string& missing : uncovered(shardlab_plan_fields(), prefix, keys)) {
      ADD_FAILURE() << "no hostile field for " << missing << " (add it to shardlab_plan_fields())";
    }
  }
  const std::pair<std::string, std::span<const std::string_view>> profile[] = {
      {"/", k::kProfileKeys},
      {"/parameters/", k::kProfileParametersKeys},
      {"/parameters/compute/0/", k::kProfileComputeKeys},
      {"/parameters/comm/", k::kProfileCommKeys},
      {"/parameters/comm/inter_host/", k::kProfileCommScopeKeys},
      {"/parameters/dense/", k::kProfileDenseKeys},
      {"/fit/", k::kProfileFitKeys},
      {"/fit/groups/0/", k::kProfileGroupKeys},
  };
  for (const auto& [prefix, keys] : profile) {
    for (const std::string& missing : uncovered(profile_fields(), prefix, keys)) {
      ADD_FAILURE() << "no hostile field for " << missing << " (add it to profile_fields())";
    }
  }
}

// Every field points at something of its base document (or at a key the
// reader accepts but the writer leaves out), so a renamed key in a base
// document cannot leave a field testing nothing.
TEST(HostileCoverage, EveryFieldIsInItsDocument) {
  const auto check = [](const Json& doc, const std::vector<Field>& fields) {
    for (const Field& f : fields) {
      if (f.pointer.empty()) continue;
      Json base = doc;
      if (!f.patch.empty()) base.merge_patch(Json::parse(f.patch));
      const Json::json_pointer p(f.pointer);
      EXPECT_TRUE(base.contains(p) || base.contains(p.parent_pointer())) << f.pointer;
    }
  };
  check(base_scenario(), scenario_fields());
  check(base_profile(), profile_fields());
}

}  // namespace
}  // namespace shardlab::hostile
