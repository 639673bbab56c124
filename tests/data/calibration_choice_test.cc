// CalibrationChoice (calibration_choice.h): each way to choose, and each error.
#include "shardlab/data/calibration_choice.h"

#include <gtest/gtest.h>

#include <string>

#include "shardlab/data/gpu_presets.h"
#include "shardlab/data/scenario_loader.h"

namespace shardlab::data {
namespace {

planner::Scenario preset_scenario() {
  auto s = parse_scenario(R"({"name": "p", "topology": {"world_size": 2, "gpu": "h100-sxm"},
      "tables": [{"name": "t", "num_embeddings": 100, "embedding_dim": 64, "feature_names": ["f"]}]})",
                          "p.json");
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  return *s;
}

TEST(CalibrationChoice, NoneTorchRecOrAProfile) {
  planner::Scenario s = preset_scenario();
  ASSERT_TRUE(s.preset_calibration.has_value());
  Result<CalibrationChoice> none = CalibrationChoice::load("", &s);
  ASSERT_TRUE(none.is_ok());
  EXPECT_EQ(none->get(), nullptr);
  EXPECT_EQ(none->note(s), "; preset h100-sxm default profile");
  EXPECT_TRUE(s.preset_calibration.has_value());

  Result<CalibrationChoice> torchrec =
      CalibrationChoice::load(CalibrationChoice::kTorchRecConstants, &s);
  ASSERT_TRUE(torchrec.is_ok());
  EXPECT_EQ(torchrec->get(), nullptr);
  EXPECT_FALSE(s.preset_calibration.has_value());  // the preset's profile is dropped
  EXPECT_EQ(torchrec->note(s), "; TorchRec's constants");

  const GpuPreset* h100 = builtin_gpu_presets()->find("h100-sxm");
  ASSERT_NE(h100, nullptr);
  const std::string text = calibration_to_json(preset_calibration(*h100, h100->hbm_mem_bw));
  Result<CalibrationChoice> profile = CalibrationChoice::parse(text, "profile.json");
  ASSERT_TRUE(profile.is_ok()) << profile.status().message();
  ASSERT_NE(profile->get(), nullptr);
  EXPECT_EQ(profile->note(s), "; calibration h100-sxm-public");
}

TEST(CalibrationChoice, Errors) {
  planner::Scenario s = preset_scenario();
  Result<CalibrationChoice> missing = CalibrationChoice::load("/nonexistent/profile.json", &s);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  Result<CalibrationChoice> folder = CalibrationChoice::load("/", &s);  // not a file
  ASSERT_FALSE(folder.is_ok());
  EXPECT_EQ(folder.status().code(), StatusCode::kIo) << folder.status().message();
  Result<CalibrationChoice> bad = CalibrationChoice::parse(R"({"format": "nothing"})", "bad.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("bad.json"), std::string::npos);
}

}  // namespace
}  // namespace shardlab::data
