// Every field of the three formats, set to every hostile value (and to the
// values its entry adds), read and run as far as it goes: hostile_inputs.h.
// One test per field, so a failure names the field and ctest runs them in
// parallel.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <string>

#include "hostile_inputs.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"

namespace shardlab::hostile {
namespace {

// The suite's memory budget for every run of this process; at the end, the
// peak resident size stays within it.
class SuiteBudget : public testing::Environment {
 public:
  void SetUp() override { ::setenv("SHARDLAB_MEMORY_BUDGET", kSuiteMemoryBudget, /*overwrite=*/0); }
  void TearDown() override {
    if (sanitized_build()) return;
    struct rusage ru {};
    ASSERT_EQ(::getrusage(RUSAGE_SELF, &ru), 0);
    EXPECT_LE(ru.ru_maxrss * 1024L, kSuiteMemoryBudgetBytes)
        << "peak resident size past the suite's budget";
  }
};
const testing::Environment* const kSuiteBudget = testing::AddGlobalTestEnvironment(new SuiteBudget);

// Runs `check` on `base` with `field` set to each value.
template <typename Check>
void sweep(const Json& base, const Field& field, Check check) {
  std::vector<std::string> values = hostile_values();
  values.insert(values.end(), field.extras.begin(), field.extras.end());
  for (const std::string& value : values) {
    SCOPED_TRACE("field \"" + field.pointer + "\" = " + value.substr(0, 60));
    check(with_value(base, field, value));
  }
}

std::string field_name(const testing::TestParamInfo<Field>& info) {
  std::string name = info.param.pointer.empty() ? "document" : info.param.pointer;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return std::to_string(info.index) + name;
}

class ScenarioField : public testing::TestWithParam<Field> {};
TEST_P(ScenarioField, EveryHostileValueEndsCleanly) {
  sweep(base_scenario(), GetParam(), check_scenario_text);
}
INSTANTIATE_TEST_SUITE_P(Hostile, ScenarioField, testing::ValuesIn(scenario_fields()), field_name);

// The plan documents: the planner's own files for plan_scenario().
const Json& torchrec_plan() {
  static const Json kDoc = [] {
    const Result<planner::Scenario> s = data::parse_scenario(plan_scenario().dump(), "p.json");
    const planner::PlannerResult r = planner::plan(*s);
    return Json::parse(data::plan_to_torchrec_json(*s, r));
  }();
  return kDoc;
}

const Json& shardlab_plan() {
  static const Json kDoc = [] {
    const Result<planner::Scenario> s = data::parse_scenario(plan_scenario().dump(), "p.json");
    const planner::PlannerResult r = planner::plan(*s);
    return Json::parse(data::plan_to_json(*s, r));
  }();
  return kDoc;
}

TEST(HostilePlanBase, ThePlannersOwnFilesReadBack) {
  ASSERT_TRUE(torchrec_plan().contains("plan")) << torchrec_plan().dump();
  ASSERT_EQ(torchrec_plan()["plan"]["ebc"]["t0"]["sharding_type"], "row_wise");
  ASSERT_TRUE(shardlab_plan().contains("tables")) << shardlab_plan().dump();
  check_plan_text(torchrec_plan().dump());
  check_plan_text(shardlab_plan().dump());
}

class TorchrecPlanField : public testing::TestWithParam<Field> {};
TEST_P(TorchrecPlanField, EveryHostileValueEndsCleanly) {
  sweep(torchrec_plan(), GetParam(), check_plan_text);
}
INSTANTIATE_TEST_SUITE_P(Hostile, TorchrecPlanField, testing::ValuesIn(torchrec_plan_fields()),
                         field_name);

class ShardlabPlanField : public testing::TestWithParam<Field> {};
TEST_P(ShardlabPlanField, EveryHostileValueEndsCleanly) {
  sweep(shardlab_plan(), GetParam(), check_plan_text);
}
INSTANTIATE_TEST_SUITE_P(Hostile, ShardlabPlanField, testing::ValuesIn(shardlab_plan_fields()),
                         field_name);

class ProfileField : public testing::TestWithParam<Field> {};
TEST_P(ProfileField, EveryHostileValueEndsCleanly) {
  sweep(base_profile(), GetParam(), check_profile_text);
}
INSTANTIATE_TEST_SUITE_P(Hostile, ProfileField, testing::ValuesIn(profile_fields()), field_name);

// The base documents themselves load and run.
TEST(HostileBase, DocumentsAreValid) {
  const Result<planner::Scenario> s = data::parse_scenario(base_scenario().dump(), "base.json");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  const planner::PlannerResult r = planner::plan(*s);
  EXPECT_TRUE(r.ok()) << r.error.message();
  check_scenario_text(base_scenario().dump());
  check_profile_text(base_profile().dump());
}

}  // namespace
}  // namespace shardlab::hostile
