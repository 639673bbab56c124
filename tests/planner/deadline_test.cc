// Deadline (planner/deadline.h): no flag without a limit or a caller's flag;
// the limit sets it and says it passed; the caller's flag is mirrored.
#include "shardlab/planner/deadline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace shardlab::planner {
namespace {

bool becomes_true(const std::atomic<bool>* flag) {
  for (int i = 0; i < 2000 && !flag->load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return flag->load();
}

TEST(Deadline, NoLimitNoFlag) {
  const Deadline none(0.0);
  EXPECT_EQ(none.flag(), nullptr);
  EXPECT_FALSE(none.passed());
  EXPECT_EQ(none.left(), 0.0);
}

TEST(Deadline, TheLimitSetsTheFlag) {
  const Deadline d(0.01);
  ASSERT_NE(d.flag(), nullptr);
  EXPECT_GT(d.left(), 0.0);
  EXPECT_TRUE(becomes_true(d.flag()));
  EXPECT_TRUE(d.passed());
  EXPECT_EQ(d.left(), 1e-9);
}

TEST(Deadline, TheCallersFlagIsMirroredButIsNoTimeout) {
  std::atomic<bool> cancel{false};
  const Deadline d(0.0, &cancel);
  ASSERT_NE(d.flag(), nullptr);
  EXPECT_FALSE(d.flag()->load());
  cancel = true;
  EXPECT_TRUE(becomes_true(d.flag()));
  EXPECT_FALSE(d.passed());
}

}  // namespace
}  // namespace shardlab::planner
