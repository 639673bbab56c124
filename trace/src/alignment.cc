// align_ranks (trace_summary.h): clocks aligned by matching collectives, and
// each collective split into waiting for peers and transferring.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "shardlab/kernels/measurement.h"
#include "shardlab/trace/trace_summary.h"

namespace shardlab::trace {
namespace {

// The replay's median (kernels/measurement.h: nearest rank).
double median(std::vector<double> v) { return kernels::summarize(std::move(v)).median_ms; }

// Why the files cannot be aligned as a whole job, or "" when they can.
std::string not_one_job(const std::vector<RankTrace>& ranks) {
  if (ranks.size() < 2) return "one rank: no other rank to align with";
  const int world = ranks.front().world_size;
  bool every_rank = world == static_cast<int>(ranks.size());
  for (std::size_t i = 0; i < ranks.size() && every_rank; ++i)
    every_rank = ranks[i].rank == static_cast<int>(i) && ranks[i].world_size == world;
  if (every_rank) return "";
  std::string held;
  for (const RankTrace& r : ranks) held += (held.empty() ? "" : ", ") + std::to_string(r.rank);
  return "the files hold rank" + std::string(ranks.size() == 1 ? " " : "s ") + held +
         " of a world of " + std::to_string(world) +
         ": waiting for peers is known only with every rank of the job";
}

// The step numbered `step` of `r`, or nullptr (steps are in step order).
StepSummary* find_step(RankTrace& r, int64_t step) {
  const auto it = std::lower_bound(r.steps.begin(), r.steps.end(), step,
                                   [](const StepSummary& s, int64_t n) { return s.step < n; });
  return it != r.steps.end() && it->step == step ? &*it : nullptr;
}

// Every rank's step `step` when all have it with the same collectives (same
// names, same order, at least one); empty otherwise.
std::vector<StepSummary*> matching_step(std::vector<RankTrace>& ranks, int64_t step) {
  std::vector<StepSummary*> out;
  for (RankTrace& r : ranks) {
    StepSummary* s = find_step(r, step);
    if (s == nullptr || s->collectives.empty()) return {};
    if (!out.empty()) {
      const std::vector<CollectiveKernel>& first = out.front()->collectives;
      if (s->collectives.size() != first.size()) return {};
      for (std::size_t k = 0; k < first.size(); ++k) {
        if (s->collectives[k].name != first[k].name) return {};
      }
    }
    out.push_back(s);
  }
  return out;
}

// Splits one aligned step's collectives on every rank (`at[r]`, clock
// offsets `offset[r]`) and says who held the others back.
HeldBack split_step(const std::vector<StepSummary*>& at, const std::vector<double>& offset) {
  const std::size_t n = at.size();
  const std::size_t count = at.front()->collectives.size();
  std::vector<double> others_waited(n, 0.0);
  std::vector<int> last_of(n, 0);
  for (StepSummary* s : at) {
    s->nccl_wait_ms = 0.0;
    s->nccl_transfer_ms = 0.0;
  }
  for (std::size_t k = 0; k < count; ++k) {
    std::size_t last = 0;
    double latest = -1e300;
    for (std::size_t r = 0; r < n; ++r) {
      const double start = at[r]->collectives[k].start_ms - offset[r];
      if (start > latest) {
        latest = start;
        last = r;
      }
    }
    ++last_of[last];
    for (std::size_t r = 0; r < n; ++r) {
      const CollectiveKernel& c = at[r]->collectives[k];
      const double length = c.end_ms - c.start_ms;
      const double wait = std::clamp(latest - (c.start_ms - offset[r]), 0.0, length);
      *at[r]->nccl_wait_ms += wait;
      *at[r]->nccl_transfer_ms += length - wait;
      if (r != last) others_waited[last] += wait;
    }
  }
  HeldBack h{.step = at.front()->step, .collectives = static_cast<int>(count)};
  for (std::size_t r = 0; r < n; ++r) {
    at[r]->last_to_arrive = last_of[r];
    if (others_waited[r] > h.others_waited_ms || r == 0) {
      h.rank = static_cast<int>(r);
      h.others_waited_ms = others_waited[r];
      h.last_of = last_of[r];
    }
  }
  return h;
}

}  // namespace

void align_ranks(TraceSummary& summary) {
  Alignment& a = summary.alignment;
  a = Alignment{};
  std::vector<RankTrace>& ranks = summary.ranks;
  a.why = not_one_job(ranks);
  if (!a.why.empty()) return;
  std::vector<std::vector<StepSummary*>> steps;
  std::vector<int64_t> unmatched;
  for (const StepSummary& s : ranks.front().steps) {
    std::vector<StepSummary*> at = matching_step(ranks, s.step);
    if (at.empty()) {
      unmatched.push_back(s.step);
    } else {
      steps.push_back(std::move(at));
    }
  }
  if (steps.empty()) {
    a.why = "no step has the same NCCL kernels, in the same order, on every rank";
    return;
  }
  // Offsets: a collective ends on every rank at about the same time.
  std::vector<double> offset(ranks.size(), 0.0);
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    std::vector<double> diffs;
    for (const std::vector<StepSummary*>& at : steps) {
      for (std::size_t k = 0; k < at[r]->collectives.size(); ++k)
        diffs.push_back(at[r]->collectives[k].end_ms - at[0]->collectives[k].end_ms);
    }
    offset[r] = median(std::move(diffs));
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) ranks[r].clock_offset_ms = offset[r];
  for (const std::vector<StepSummary*>& at : steps) a.held_back.push_back(split_step(at, offset));
  a.aligned = true;
  if (!unmatched.empty()) {
    a.why = std::to_string(unmatched.size()) + " step" + (unmatched.size() == 1 ? "" : "s") +
            " of rank 0 (step " + std::to_string(unmatched.front()) +
            (unmatched.size() > 1 ? ", ..." : "") +
            ") do not have the same NCCL kernels on every rank and are not aligned";
  }
}

}  // namespace shardlab::trace
