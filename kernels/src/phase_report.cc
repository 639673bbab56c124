#include "shardlab/kernels/phase_report.h"

#include <algorithm>
#include <set>

#include "backend_common.h"

namespace shardlab::kernels {
namespace {

std::optional<double> estimate_of(const sim::RankWork& w, sim::Phase p) {
  switch (p) {
    case sim::Phase::kFwdCompute:
      return w.fwd_ms;
    case sim::Phase::kOutputDist:
      return w.output_dist_estimate_ms;
    case sim::Phase::kBwdOutputDist:
      return w.bwd_output_dist_estimate_ms;
    case sim::Phase::kBwdCompute:
      return w.bwd_ms;
    case sim::Phase::kDpAllreduce:
      return w.dp_allreduce_estimate_ms;
    default:
      return std::nullopt;
  }
}

TimingSummary measured_from_records(const ReplayResult& r, int rank, sim::Phase p) {
  TimingSummary t;
  for (const Measurement& m : r.measurements) {
    if (m.rank != rank || m.phase != p) continue;
    t.median_ms += m.timing.median_ms;
    t.p90_ms += m.timing.p90_ms;
    t.min_ms += m.timing.min_ms;
    t.samples = std::max(t.samples, m.timing.samples);
  }
  return t;
}

}  // namespace

std::vector<PhaseComparison> compare_phases(const ReplayResult& result,
                                            const std::vector<sim::RankWork>& estimates,
                                            const sim::SimResult* simulated) {
  std::set<int> ranks;
  for (const Measurement& m : result.measurements) ranks.insert(m.rank);
  for (const PhaseTiming& t : result.phase_timings) ranks.insert(t.rank);
  std::vector<PhaseComparison> rows;
  for (int rank : ranks) {
    for (sim::Phase p : kReplayPhases) {
      PhaseComparison c;
      c.rank = rank;
      c.phase = p;
      if (result.phase_timings.empty()) {
        c.measured = measured_from_records(result, rank, p);
      } else {
        for (const PhaseTiming& t : result.phase_timings) {
          if (t.rank == rank && t.phase == p) c.measured = t.timing;
        }
      }
      if (rank >= 0 && rank < static_cast<int>(estimates.size()))
        c.estimate_ms = estimate_of(estimates[rank], p);
      if (simulated != nullptr && simulated->iterations > 0) {
        for (const sim::RankResult& rr : simulated->ranks) {
          if (rr.rank != rank) continue;
          double ms = 0.0;
          bool any = false;
          for (const sim::PhaseRecord& pr : rr.phases) {
            if (pr.phase != p || pr.iteration != simulated->iterations - 1) continue;
            ms += pr.end_ms - pr.start_ms;
            any = true;
          }
          if (any) c.simulated_ms = ms;
        }
      }
      const bool estimated = c.estimate_ms.has_value() && *c.estimate_ms > 0;
      if (c.measured.samples > 0 || estimated) rows.push_back(c);
    }
  }
  return rows;
}

}  // namespace shardlab::kernels
