#include "shardlab/planner/memory_budget.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

namespace shardlab::planner {
namespace {

constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

// "<number>[ ]<unit>" or plain bytes; nullopt when malformed.
std::optional<int64_t> parse_budget(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(std::string(text.substr(0, digits)), &used);
    if (used != digits) return std::nullopt;
  } catch (...) {
    return std::nullopt;
  }
  std::string_view unit = text.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"", 1},      {"B", 1},        {"KB", 1e3},     {"MB", 1e6},     {"GB", 1e9},
      {"TB", 1e12}, {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40}};
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const double bytes = value * scale;
    if (!(bytes >= 1) || bytes >= 0x1p62) return std::nullopt;
    return static_cast<int64_t>(bytes);
  }
  return std::nullopt;
}

// What the process holds, from /proc/self/statm (one short read): virtual
// size, resident size and data segment, in bytes; zeros where unreadable.
struct Usage {
  int64_t virtual_bytes = 0;
  int64_t resident_bytes = 0;
  int64_t data_bytes = 0;
};

Usage current_usage() {
  Usage u;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return u;
  long long size = 0, resident = 0, shared = 0, text = 0, lib = 0, data = 0;
  if (std::fscanf(f, "%lld %lld %lld %lld %lld %lld", &size, &resident, &shared, &text, &lib,
                  &data) == 6) {
    const long page = ::sysconf(_SC_PAGE_SIZE);
    u = Usage{size * page, resident * page, data * page};
  }
  std::fclose(f);
  return u;
}

int64_t read_limit_file(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return kNoLimit;
  const long long v = std::atoll(text.c_str());
  // cgroup v1 reports "no limit" as a huge page-aligned number.
  return v <= 0 || v >= (int64_t{1} << 62) ? kNoLimit : v;
}

// The memory limit of this process's cgroup (v2 memory.max, v1
// memory.limit_in_bytes), or kNoLimit.
int64_t cgroup_limit() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  int64_t limit = kNoLimit;
  while (std::getline(in, line)) {
    const std::size_t a = line.find(':');
    const std::size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const std::string path = line.substr(b + 1);
    if (path.find("..") != std::string::npos) continue;
    if (controllers.empty()) {
      limit = std::min(limit, read_limit_file("/sys/fs/cgroup" + path + "/memory.max"));
    } else if (controllers == "memory") {
      limit = std::min(limit,
                       read_limit_file("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes"));
    }
  }
  return limit;
}

int64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return kNoLimit;
  return static_cast<int64_t>(pages) * page;
}

int64_t rlimit_bytes(int resource) {
  struct rlimit rl {};
  if (::getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return kNoLimit;
  return rl.rlim_cur >= static_cast<rlim_t>(kNoLimit) ? kNoLimit
                                                      : static_cast<int64_t>(rl.rlim_cur);
}

struct Limit {
  int64_t bytes;
  int64_t Usage::*counts;  // what of the process the limit counts
  const char* source;
};

// The limits that apply now (the environment and rlimits are read on each
// call: a process may change them; the machine's memory once).
Result<std::vector<Limit>> current_limits() {
  static const int64_t kPhysical = physical_memory();
  static const int64_t kCgroup = cgroup_limit();

  std::vector<Limit> limits;
  if (const char* env = std::getenv(kMemoryBudgetVariable); env != nullptr && *env != '\0') {
    const std::optional<int64_t> bytes = parse_budget(env);
    if (!bytes) {
      std::string shown(env);
      if (shown.size() > 60) shown = shown.substr(0, 60) + "...";
      return Status::invalid_argument(std::string(kMemoryBudgetVariable) + ": not a size: got \"" +
                                      shown + "\", expected bytes or a size such as \"4 GiB\"");
    }
    limits.push_back({*bytes, &Usage::resident_bytes, kMemoryBudgetVariable});
  } else {
    limits.push_back({kPhysical, &Usage::resident_bytes, "physical memory"});
    if (kCgroup < kPhysical)
      limits.back() = {kCgroup, &Usage::resident_bytes, "cgroup memory limit"};
  }
  if (const int64_t as = rlimit_bytes(RLIMIT_AS); as != kNoLimit) {
    limits.push_back({as, &Usage::virtual_bytes, "RLIMIT_AS"});
  }
  if (const int64_t data = rlimit_bytes(RLIMIT_DATA); data != kNoLimit) {
    limits.push_back({data, &Usage::data_bytes, "RLIMIT_DATA"});
  }
  return limits;
}

MemoryBudget tightest(const std::vector<Limit>& limits, const Usage& usage) {
  MemoryBudget best;
  best.left = kNoLimit;
  for (const Limit& l : limits) {
    if (l.bytes == kNoLimit) continue;
    const int64_t left = std::max<int64_t>(0, l.bytes - usage.*l.counts);
    if (left < best.left) best = MemoryBudget{.bytes = l.bytes, .left = left, .source = l.source};
  }
  if (best.left == kNoLimit)
    best = MemoryBudget{.bytes = kNoLimit, .left = kNoLimit, .source = "no limit known"};
  return best;
}

}  // namespace

std::string memory_text(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (std::fabs(v) >= 1024.0 && unit + 1 < std::size(kUnits)) {
    v /= 1024.0;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.2f %s", v, kUnits[unit]);
  return buf;
}

Result<MemoryBudget> memory_budget() {
  Result<std::vector<Limit>> limits = current_limits();
  if (!limits) return limits.status();
  return tightest(*limits, current_usage());
}

namespace {

std::function<void(const MemoryCheck&)>& memory_check_observer() {
  static std::function<void(const MemoryCheck&)> observer;
  return observer;
}

}  // namespace

void set_memory_check_observer(std::function<void(const MemoryCheck&)> observer) {
  memory_check_observer() = std::move(observer);
}

Status check_memory(std::string_view what, int64_t need_bytes, std::string_view remedy) {
  Result<std::vector<Limit>> limits = current_limits();
  if (!limits) return limits.status();
  if (const auto& observer = memory_check_observer()) {
    observer(MemoryCheck{what, need_bytes, tightest(*limits, current_usage())});
  }
  // Fast path: with only resident-size limits, the peak resident size (one
  // system call) bounds what the process holds now; reading /proc costs tens
  // of microseconds, a tenth of a small plan.
  const bool resident_only = std::all_of(limits->begin(), limits->end(), [](const Limit& l) {
    return l.counts == &Usage::resident_bytes;
  });
  if (resident_only) {
    struct rusage ru {};
    if (::getrusage(RUSAGE_SELF, &ru) == 0) {
      Usage peak;
      peak.resident_bytes = static_cast<int64_t>(ru.ru_maxrss) * 1024;
      if (need_bytes <= tightest(*limits, peak).left) return Status::ok();
    }
  }
  Result<MemoryBudget> budget = tightest(*limits, current_usage());
  if (need_bytes <= budget->left) return Status::ok();
  std::string msg = std::string(what) + " needs about " + memory_text(need_bytes) +
                    ", more than the " + memory_text(budget->left) +
                    " left of the memory budget (" + memory_text(budget->bytes) + ", " +
                    budget->source + ")";
  if (!remedy.empty()) msg += "; " + std::string(remedy);
  msg += "; " + std::string(kMemoryBudgetVariable) + " sets the budget";
  return Status::invalid_argument(std::move(msg));
}

}  // namespace shardlab::planner
