#include "shardlab/planner/progress_text.h"

#include <cmath>
#include <cstdio>

namespace shardlab::planner {
namespace {

// 1234567 -> "1,234,567".
std::string grouped(long long n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return (n < 0 ? "-" : "") + digits;
}

}  // namespace

std::string progress_text(const PlannerProgress& progress, const Scenario& scenario,
                          double elapsed_s, int simulations) {
  std::string text = "proposer " + std::to_string(progress.proposer + 1) + "/" +
                     std::to_string(progress.num_proposers);
  const auto& proposers = scenario.planner.proposers;
  if (progress.proposer >= 0 && static_cast<size_t>(progress.proposer) < proposers.size()) {
    text +=
        " (" + std::string(to_string(proposers[static_cast<size_t>(progress.proposer)].kind)) + ")";
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f s", elapsed_s);
  text += ": " + grouped(progress.proposals) + " proposals, " + grouped(progress.plans) +
          " plans, " + seconds;
  if (simulations >= 0) text += "; " + grouped(simulations) + " simulations";
  // The time left once the walk has gone far enough for its pace to mean
  // something; the walk may end before its last move, hence "at most".
  if (progress.walked >= 0.01 && progress.walked < 1.0 && progress.proposer_seconds >= 0.5) {
    const double left = progress.proposer_seconds * (1.0 - progress.walked) / progress.walked;
    char walked[96];
    std::snprintf(walked, sizeof walked, "; %.0f%% of its walk, at most about %s left of it",
                  std::floor(progress.walked * 100.0), duration_text(left).c_str());
    text += walked;
  }
  return text;
}

std::string duration_text(double seconds) {
  char buf[48];
  if (!(seconds >= 0.0)) seconds = 0.0;
  if (seconds < 1.0) {
    std::snprintf(buf, sizeof buf, "%.1f ms", seconds * 1e3);
  } else if (seconds < 60.0) {
    std::snprintf(buf, sizeof buf, "%.2f s", seconds);
  } else if (seconds < 3600.0) {
    const long s = std::lround(seconds);
    std::snprintf(buf, sizeof buf, "%ld min %02ld s", s / 60, s % 60);
  } else {
    const long m = std::lround(seconds / 60.0);
    std::snprintf(buf, sizeof buf, "%ld h %02ld min", m / 60, m % 60);
  }
  return buf;
}

}  // namespace shardlab::planner
