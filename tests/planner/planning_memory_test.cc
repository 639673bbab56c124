// The planning memory estimate (planning_memory.h) against the peak resident
// memory a plan() call measures, in a child process: within 2x either way,
// the bound docs/scenario-format.md "Memory" states.
#include "planning_memory.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>

#include "../../benchmarks/synthetic_scenario.h"
#include "../sanitized_build.h"
#include "../scoped_env.h"
#include "shardlab/planner/memory_budget.h"
#include "shardlab/planner/planner.h"

namespace shardlab::planner {
namespace {

using test_support::sanitized_build;

// A field of /proc/self/status in bytes ("VmRSS", "VmHWM"); -1 if unread.
int64_t status_bytes(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long long kib = -1;
  const size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, field, n) == 0 && line[n] == ':') {
      std::sscanf(line + n + 1, "%lld", &kib);
      break;
    }
  }
  std::fclose(f);
  return kib < 0 ? -1 : kib * 1024;
}

// Resets the peak resident size (VmHWM) to the current one; false where the
// kernel does not let it.
bool reset_peak() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

constexpr int64_t kCannotMeasure = -2;

// Peak resident bytes `body` adds to a child process; -1 on failure,
// kCannotMeasure where the peak cannot be reset.
int64_t peak_growth(const std::function<bool()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    // Memory the parent's earlier tests freed is still resident, and the
    // body would reuse it unseen: hand it back to the system first. And
    // glibc raised its mmap threshold as those tests freed large blocks, so
    // the body's large vectors would grow inside the heap, keeping every
    // copy resident: start again from a fresh process's threshold.
    // The peak starts at what the child held when forked: reset it.
    ::malloc_trim(0);
    ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    const bool reset = reset_peak();
    const int64_t start = status_bytes("VmRSS");
    const bool ok = body();
    const int64_t peak = status_bytes("VmHWM");
    const int64_t growth = !reset                          ? kCannotMeasure
                           : ok && start >= 0 && peak >= 0 ? peak - start
                                                           : -1;
    const ssize_t written = ::write(fds[1], &growth, sizeof growth);
    ::_exit(written == sizeof growth ? 0 : 1);
  }
  ::close(fds[1]);
  int64_t growth = -1;
  if (::read(fds[0], &growth, sizeof growth) != sizeof growth) growth = -1;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return growth;
}

struct Measured {
  int64_t estimate = 0;
  int64_t peak = 0;
};

Measured measure(const Scenario& s, const PlannerOptions& options) {
  const Topology topology = make_topology(s);
  const std::vector<ModuleInfo> modules = build_modules(s);
  Measured m;
  m.estimate = internal::estimate_planning_memory(s, topology, modules, options).total();
  m.peak = peak_growth([&] { return plan(s, options).search_space.has_value(); });
  return m;
}

void expect_within_twice(const Measured& m) {
  if (m.peak == kCannotMeasure) GTEST_SKIP() << "this kernel does not reset a peak resident size";
  ASSERT_GT(m.peak, 0) << "the child failed";
  EXPECT_LE(m.estimate, 2 * m.peak) << "estimate " << m.estimate << ", peak " << m.peak;
  EXPECT_GE(2 * m.estimate, m.peak) << "estimate " << m.estimate << ", peak " << m.peak;
}

// Large enough that the search space dwarfs the allocator's noise: 200,000
// shards and more.
TEST(PlanningMemory, PlanningEstimateIsWithinTwiceThePeak) {
  if (sanitized_build()) GTEST_SKIP() << "the sanitizer's shadow memory is not the planner's";
  expect_within_twice(measure(bench::synthetic_scenario(300, 256), {}));
}

TEST(PlanningMemory, EnumerationEstimateIsWithinTwiceThePeak) {
  if (sanitized_build()) GTEST_SKIP() << "the sanitizer's shadow memory is not the planner's";
  expect_within_twice(measure(bench::synthetic_scenario(500, 512), {.enumerate_only = true}));
}

TEST(PlanningMemory, OnlyAnOptionsListingCountsEveryShardsJson) {
  const Scenario s = bench::synthetic_scenario(20, 64);
  const Topology topology = make_topology(s);
  const std::vector<ModuleInfo> modules = build_modules(s);
  const internal::PlanningMemory rating =
      internal::estimate_planning_memory(s, topology, modules, {.enumerate_only = true});
  const internal::PlanningMemory listing = internal::estimate_planning_memory(
      s, topology, modules, {.enumerate_only = true, .lists_options = true});
  EXPECT_EQ(rating.output_bytes, 0);
  EXPECT_EQ(listing.search_space_bytes, rating.search_space_bytes);
  EXPECT_GT(listing.output_bytes, 100 * rating.size.shards);
  EXPECT_EQ(rating.describe().find("proposals"), std::string::npos) << rating.describe();
}

TEST(PlanningMemory, APlansJsonIsCheckedOnceItsShardsAreKnown) {
  EXPECT_EQ(internal::plan_json_bytes(0), 0);
  EXPECT_GT(internal::plan_json_bytes(1000), 1000 * 300);
  EXPECT_EQ(internal::plan_json_bytes(int64_t{1} << 62), std::numeric_limits<int64_t>::max());
}

// The budget's errors (memory_budget.h): an unreadable SHARDLAB_MEMORY_BUDGET
// names the variable; a need past what is left says the sizes and the remedy.
TEST(MemoryBudget, RefusalsAreInvalidArgument) {
  std::optional<testing_support::ScopedEnv> budget;
  budget.emplace("SHARDLAB_MEMORY_BUDGET", "lots");
  const Result<MemoryBudget> unreadable = memory_budget();
  EXPECT_EQ(unreadable.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unreadable.status().message().find("SHARDLAB_MEMORY_BUDGET"), std::string::npos);
  budget.reset();  // puts the old value back before the next
  budget.emplace("SHARDLAB_MEMORY_BUDGET", "8 GiB");
  const Status over = check_memory("planning", int64_t{16} << 30, "plan fewer tables");
  EXPECT_EQ(over.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(over.message().find("planning needs about 16.00 GiB"), std::string::npos)
      << over.message();
  EXPECT_TRUE(check_memory("planning", 1 << 20, "plan fewer tables").is_ok());
}

}  // namespace
}  // namespace shardlab::planner
