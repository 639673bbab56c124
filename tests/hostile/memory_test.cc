// Runs too large for their memory budget end with a message and the input's
// exit status, never with std::bad_alloc or a signal, and never past the
// budget. Each run happens in a child process whose memory is capped:
// through RLIMIT_AS (the cap `prlimit --as` sets) in normal builds, through
// SHARDLAB_MEMORY_BUDGET in ASan builds, whose shadow memory needs terabytes
// of address space. The inputs are the issue's: a huge JSON list, a large
// file with one unknown key, 10,000 tables on 65,536 ranks, 100,000 tables on
// 1,024 ranks, 65,536 ranks simulated, 65,536 NICs per host.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "hostile_inputs.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::hostile {
namespace {

struct ChildOutcome {
  bool exited = false;
  int code = -1;  // exit status, as the CLI maps Status codes: 0 ok, 1 internal, 2 input, 3 planner
  int signal = 0;             // when killed
  int64_t peak_resident = 0;  // bytes
  int64_t resident_at_start = 0;
  std::string message;
};

int exit_code(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk:
      return 0;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kCorrupt:
    case StatusCode::kUnavailable:
    case StatusCode::kIo:
      return 2;
    case StatusCode::kPlanner:
      return 3;
    case StatusCode::kInternal:
      return 1;
  }
  return 1;
}

int64_t statm_pages(int field) {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  long long v[7] = {};
  const int n = f ? std::fscanf(f, "%lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
                                &v[4], &v[5], &v[6])
                  : 0;
  if (f) std::fclose(f);
  return n > field ? v[field] * ::sysconf(_SC_PAGE_SIZE) : 0;
}

// Runs `body` in a child allowed `budget` bytes beyond what it holds when it
// starts.
ChildOutcome run_capped(int64_t budget, const std::function<Status()>& body) {
  int pipe_fds[2];
  EXPECT_EQ(::pipe(pipe_fds), 0);
  ChildOutcome out;
  out.resident_at_start = statm_pages(1);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    if (sanitized_build()) {
      ::setenv("SHARDLAB_MEMORY_BUDGET", std::to_string(statm_pages(1) + budget).c_str(), 1);
    } else {
      ::unsetenv("SHARDLAB_MEMORY_BUDGET");
      const rlim_t cap = static_cast<rlim_t>(statm_pages(0) + budget);
      const struct rlimit rl { cap, cap };
      if (::setrlimit(RLIMIT_AS, &rl) != 0) ::_exit(100);
    }
    Status st;
    try {
      st = body();
    } catch (...) {
      ::_exit(101);  // an escaped exception: never expected
    }
    const std::string& msg = st.message();
    ssize_t written = 0;
    while (written < static_cast<ssize_t>(msg.size())) {
      const ssize_t n = ::write(pipe_fds[1], msg.data() + written, msg.size() - written);
      if (n <= 0) break;
      written += n;
    }
    ::close(pipe_fds[1]);
    ::_exit(exit_code(st));
  }
  ::close(pipe_fds[1]);
  char buf[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;)
    out.message.append(buf, static_cast<size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  struct rusage ru {};
  EXPECT_EQ(::wait4(pid, &status, 0, &ru), pid);
  out.exited = WIFEXITED(status);
  out.code = out.exited ? WEXITSTATUS(status) : -1;
  out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  out.peak_resident = static_cast<int64_t>(ru.ru_maxrss) * 1024;
  return out;
}

// The run was refused with the input's exit status and a message containing
// `needle`, within its budget.
void expect_refused(const ChildOutcome& o, int64_t budget, const std::string& needle) {
  ASSERT_TRUE(o.exited) << "killed by signal " << o.signal << "; message: " << o.message;
  EXPECT_EQ(o.code, 2) << o.message;
  EXPECT_NE(o.message.find(needle), std::string::npos) << o.message;
  EXPECT_EQ(o.message.find('\n'), std::string::npos) << o.message;
  if (!sanitized_build()) {
    EXPECT_LE(o.peak_resident, o.resident_at_start + budget)
        << "peak " << o.peak_resident << " bytes, started at " << o.resident_at_start;
  }
}

constexpr int64_t kMiB = int64_t{1} << 20;

Status plan_status(const planner::Scenario& s) {
  const planner::PlannerResult r = planner::plan(s);
  return r.ok() ? Status::ok() : r.error;
}

// `tables` tables of DLRM-like sizes on `world_size` ranks.
planner::Scenario synthetic(int tables, int world_size, int local_world_size) {
  planner::Scenario s;
  s.name = "synthetic";
  s.topology.world_size = world_size;
  s.topology.local_world_size = local_world_size;
  s.topology.hbm_cap = int64_t{80} << 30;
  s.planner.proposers = planner::default_proposers();
  for (int t = 0; t < tables; ++t) {
    s.tables.push_back(planner::TableSpec{.name = "t" + std::to_string(t),
                                          .num_embeddings = 1000 + 997 * t % 5000000,
                                          .embedding_dim = 64 << (t % 3),
                                          .feature_names = {"f" + std::to_string(t)}});
  }
  s.constraints.resize(s.tables.size());
  return s;
}

TEST(HostileMemory, HugeJsonListStopsAtTheBudget) {
  std::string text =
      R"({"topology": {"world_size": 2}, "tables": [{"name": "t", "num_embeddings": 10,
      "embedding_dim": 4, "feature_names": ["f"]}], "constraints": {"t": {"pooling_factors": [)";
  for (int i = 0; i < 5000000; ++i) text += i == 0 ? "1" : ",1";
  text += "]}}}";
  const int64_t budget = 64 * kMiB;
  const ChildOutcome o =
      run_capped(budget, [&] { return data::parse_scenario(text, "big.json").status(); });
  expect_refused(o, budget, "big.json: constraints.t.pooling_factors[");
  EXPECT_NE(o.message.find("reading this document needs more than"), std::string::npos)
      << o.message;
}

TEST(HostileMemory, UnknownKeyInALargeFileIsReported) {
  std::string tables;
  for (int i = 0; i < 100000; ++i) {
    tables += (i ? "," : "") + std::string(R"({"name": "table_)") + std::to_string(i) +
              R"(", "num_embeddings": 1000, "embedding_dim": 64, "feature_names": ["f_)" +
              std::to_string(i) + R"("]})";
  }
  const std::string at_end =
      R"({"topology": {"world_size": 8}, "tables": [)" + tables + R"(], "bogus": 1})";
  const std::string at_start =
      R"({"bogus": 1, "topology": {"world_size": 8}, "tables": [)" + tables + "]}";
  const std::string in_table =
      R"({"topology": {"world_size": 8}, "tables": [{"name": "t", "bogus": 1}, )" + tables + "]}";
  const int64_t budget = 512 * kMiB;
  for (const std::string* text : {&at_end, &at_start, &in_table}) {
    const ChildOutcome o =
        run_capped(budget, [&] { return data::parse_scenario(*text, "big.json").status(); });
    expect_refused(o, budget, "unknown key: got \"bogus\"");
  }
}

TEST(HostileMemory, TenThousandTablesOn65536RanksAreRefusedBeforePlanning) {
  const planner::Scenario s = synthetic(10000, 65536, 8);
  const int64_t budget = 1024 * kMiB;
  const ChildOutcome o = run_capped(budget, [&] { return plan_status(s); });
  expect_refused(o, budget, "planning 160000 sharding options with ");
  EXPECT_NE(o.message.find("more than the "), std::string::npos) << o.message;
}

TEST(HostileMemory, HundredThousandTablesOn1024RanksAreRefusedBeforePlanning) {
  planner::Scenario s = synthetic(100000, 1024, 8);
  s.planner.storage_reservation.kind = planner::ReservationKind::kFixedPercentage;
  const int64_t budget = 1024 * kMiB;
  const ChildOutcome o = run_capped(budget, [&] { return plan_status(s); });
  expect_refused(o, budget, "planning 1600000 sharding options with ");
}

// One table-wise table, so that planning is instant and the simulation is
// what needs the memory.
Status simulate_status(const planner::Scenario& s) {
  const planner::PlannerResult r = planner::plan(s);
  if (!r.ok()) return r.error;
  return sim::simulate(s, *r.search_space, *r.best).status();
}

planner::Scenario one_table(int world_size, int local_world_size) {
  planner::Scenario s = synthetic(1, world_size, local_world_size);
  s.constraints[0] =
      planner::ConstraintSpec{.sharding_types = std::vector{planner::ShardingType::kTableWise},
                              .compute_kernels = std::vector{planner::ComputeKernel::kFused}};
  return s;
}

TEST(HostileMemory, SimulatingManyRanksIsRefused) {
  const int64_t budget = 1024 * kMiB;
  for (int local : {8, 1}) {
    SCOPED_TRACE(local);
    const ChildOutcome o =
        run_capped(budget, [&] { return simulate_status(one_table(65536, local)); });
    expect_refused(o, budget, "simulating 65536 ranks needs about ");
  }
}

TEST(HostileMemory, SimulatingManyNicsIsRefused) {
  planner::Scenario s = one_table(1024, 1);
  s.fabric.nics_per_host = 65536;
  const int64_t budget = 1024 * kMiB;
  const ChildOutcome o = run_capped(budget, [&] { return simulate_status(s); });
  expect_refused(o, budget, "simulating 1024 ranks needs about ");
}

// Four replicated tables on 65,536 ranks: a small search space, but a plan of
// 262,144 shards whose JSON does not fit; refused once the plan is known.
TEST(HostileMemory, APlanTooLargeToWriteIsRefusedOnceKnown) {
  planner::Scenario s = synthetic(4, 65536, 8);
  for (auto& c : s.constraints) {
    c = planner::ConstraintSpec{.sharding_types = std::vector{planner::ShardingType::kDataParallel},
                                .compute_kernels = std::vector{planner::ComputeKernel::kDense}};
  }
  const int64_t budget = 96 * kMiB;
  const ChildOutcome o = run_capped(budget, [&] { return plan_status(s); });
  expect_refused(o, budget, "writing the plan's 262144 shards needs about ");
}

TEST(HostileMemory, HugePlanFileStopsAtTheBudget) {
  const planner::Scenario s = one_table(8, 8);
  std::string ranks;
  for (int i = 0; i < 5000000; ++i) ranks += i == 0 ? "0" : ",0";
  const std::string text =
      R"({"tables": {"t0": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [)" +
      ranks + "]}}}";
  const int64_t budget = 64 * kMiB;
  const ChildOutcome o = run_capped(budget, [&] {
    planner::PlannerResult r = planner::plan(s, {.enumerate_only = true});
    if (!r.search_space) return r.error;
    return data::parse_plan(text, "plan.json", s, *r.search_space).status();
  });
  expect_refused(o, budget, "plan.json: tables.t0.ranks[");
}

TEST(HostileMemory, AnUnreadableBudgetIsAnInputError) {
  const ChildOutcome o = run_capped(256 * kMiB, [&] {
    ::setenv("SHARDLAB_MEMORY_BUDGET", "lots", 1);
    return plan_status(one_table(2, 2));
  });
  expect_refused(o, 256 * kMiB, "SHARDLAB_MEMORY_BUDGET: not a size: got \"lots\"");
}

// A run that fits its budget completes.
TEST(HostileMemory, RunsWithinTheBudgetComplete) {
  const Result<planner::Scenario> s = data::parse_scenario(base_scenario().dump(), "base.json");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  const ChildOutcome o = run_capped(256 * kMiB, [&] { return simulate_status(*s); });
  ASSERT_TRUE(o.exited) << o.signal;
  EXPECT_EQ(o.code, 0) << o.message;
}

}  // namespace
}  // namespace shardlab::hostile
