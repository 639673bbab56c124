// Helpers shared by the loader tests: parse a scenario text that must load,
// or one that must fail, and get the error message to assert on.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::data::testing {

// The file name the loader is told; every error message starts with it.
inline constexpr std::string_view kOrigin = "s.json";

inline planner::Scenario load_ok(const std::string& text) {
  auto r = parse_scenario(text, std::string(kOrigin));
  EXPECT_TRUE(r.is_ok()) << r.status().message() << "\nfor: " << text;
  return r.is_ok() ? *r : planner::Scenario{};
}

// The message of the expected kInvalidArgument error (one line, origin first).
inline std::string error_of(const std::string& text) {
  auto r = parse_scenario(text, std::string(kOrigin));
  EXPECT_FALSE(r.is_ok()) << "unexpectedly loaded: " << text;
  if (r.is_ok()) return "<loaded>";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().message();
  const std::string& msg = r.status().message();
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_TRUE(msg.starts_with(std::string(kOrigin) + ": ")) << msg;
  return msg;
}

}  // namespace shardlab::data::testing

#define EXPECT_ERROR(text, expected) EXPECT_EQ(::shardlab::data::testing::error_of(text), expected)
#define EXPECT_ERROR_CONTAINS(text, needle)                                 \
  do {                                                                      \
    const std::string msg_ = ::shardlab::data::testing::error_of(text);     \
    EXPECT_NE(msg_.find(needle), std::string::npos) << "message: " << msg_; \
  } while (false)
