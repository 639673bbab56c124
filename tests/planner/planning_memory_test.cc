// The planning memory estimate (planning_memory.h) against the peak resident
// memory a plan() call measures, in a child process: within 2x either way,
// the bound docs/scenario-format.md "Memory" states.
#include "planning_memory.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>

#include "../../benchmarks/synthetic_scenario.h"
#include "shardlab/planner/planner.h"

namespace shardlab::planner {
namespace {

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

int64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  long long size = 0, resident = 0;
  const int n = f ? std::fscanf(f, "%lld %lld", &size, &resident) : 0;
  if (f) std::fclose(f);
  return n == 2 ? resident * ::sysconf(_SC_PAGE_SIZE) : 0;
}

// Peak resident bytes `body` adds to a fresh child process; -1 on failure.
int64_t peak_growth(const std::function<bool()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const int64_t start = resident_bytes();
    const bool ok = body();
    struct rusage ru {};
    ::getrusage(RUSAGE_SELF, &ru);
    const int64_t growth = ok ? static_cast<int64_t>(ru.ru_maxrss) * 1024 - start : -1;
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
  ASSERT_GT(m.peak, 0) << "the child failed";
  EXPECT_LE(m.estimate, 2 * m.peak) << "estimate " << m.estimate << ", peak " << m.peak;
  EXPECT_GE(2 * m.estimate, m.peak) << "estimate " << m.estimate << ", peak " << m.peak;
}

// Large enough that the search space dwarfs the allocator's noise: 200,000
// shards and more.
TEST(PlanningMemory, PlanningEstimateIsWithinTwiceThePeak) {
  if (sanitized()) GTEST_SKIP() << "the sanitizer's shadow memory is not the planner's";
  expect_within_twice(measure(bench::synthetic_scenario(300, 256), {}));
}

TEST(PlanningMemory, EnumerationEstimateIsWithinTwiceThePeak) {
  if (sanitized()) GTEST_SKIP() << "the sanitizer's shadow memory is not the planner's";
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

}  // namespace
}  // namespace shardlab::planner
