// Text forms of the run store's enums and the values the store fills in.

#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>

#include "run_store_internal.h"
#include "shardlab/data/run_store.h"

namespace shardlab::data {

std::string_view to_string(RunKind k) {
  switch (k) {
    case RunKind::kPlan:
      return "plan";
    case RunKind::kSimulate:
      return "simulate";
    case RunKind::kReplay:
      return "replay";
    case RunKind::kCalibrate:
      return "calibrate";
    case RunKind::kOptimize:
      return "optimize";
    case RunKind::kTrace:
      return "trace";
  }
  return "plan";
}

namespace {
constexpr std::array kRunKinds = {RunKind::kPlan,      RunKind::kSimulate, RunKind::kReplay,
                                  RunKind::kCalibrate, RunKind::kOptimize, RunKind::kTrace};
}  // namespace

std::optional<RunKind> parse_run_kind(std::string_view s) {
  for (RunKind k : kRunKinds) {
    if (to_string(k) == s) return k;
  }
  return std::nullopt;
}

const std::vector<std::string>& run_kind_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (RunKind k : kRunKinds) names.emplace_back(to_string(k));
    return names;
  }();
  return kNames;
}

double EstimateRow::total_ms() const {
  return planner::Perf{.fwd_compute = fwd_compute_ms,
                       .fwd_comms = fwd_comms_ms,
                       .bwd_compute = bwd_compute_ms,
                       .bwd_comms = bwd_comms_ms,
                       .prefetch_compute = prefetch_ms}
      .total();
}

namespace internal {
namespace {

// The enum whose to_string of some value in `all` is `s`.
template <typename E, size_t N>
std::optional<E> parse_name(std::string_view s, const std::array<E, N>& all) {
  for (E e : all) {
    if (to_string(e) == s) return e;
  }
  return std::nullopt;
}

}  // namespace

std::optional<sim::Phase> parse_phase(std::string_view s) { return parse_name(s, sim::kAllPhases); }

std::optional<sim::Stream> parse_stream(std::string_view s) {
  return parse_name(s, sim::kAllStreams);
}

std::optional<sim::CollectiveKind> parse_collective_kind(std::string_view s) {
  return parse_name(s,
                    std::array{sim::CollectiveKind::kAllToAll, sim::CollectiveKind::kReduceScatter,
                               sim::CollectiveKind::kAllGather, sim::CollectiveKind::kAllReduce,
                               sim::CollectiveKind::kEstimate});
}

std::optional<kernels::Precision> parse_precision(std::string_view s) {
  return parse_name(s, std::array{kernels::Precision::kFp32, kernels::Precision::kFp16});
}

const std::vector<sim::Phase>& all_phases() {
  static const std::vector<sim::Phase> kAll(sim::kAllPhases.begin(), sim::kAllPhases.end());
  return kAll;
}

std::string fnv1a64_hex(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

std::string utc_timestamp_now() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "unknown";
  return buf;
}

}  // namespace internal
}  // namespace shardlab::data
