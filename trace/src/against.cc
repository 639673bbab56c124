#include "shardlab/trace/against.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "intervals.h"
#include "shardlab/kernels/measurement.h"

namespace shardlab::trace {
namespace {

// The replay's median (kernels/measurement.h: nearest rank), of the steps.
double median(std::vector<double> v) { return kernels::summarize(std::move(v)).median_ms; }

// The simulation's rank of trace rank `t` (0 when the file names none), once
// the trace and the simulation are known to be comparable.
Result<int> simulated_rank(const RankTrace& t, const sim::SimResult& simulated) {
  const int rank = std::max(t.rank, 0);
  if (rank >= static_cast<int>(simulated.ranks.size())) {
    return Status::invalid_argument("trace rank " + std::to_string(rank) + " (" + t.file +
                                    "): the simulation has " +
                                    std::to_string(simulated.ranks.size()) + " ranks");
  }
  if (t.steps.empty()) {
    return Status::invalid_argument("trace rank " + std::to_string(rank) + " (" + t.file +
                                    "): no steps to compare");
  }
  if (simulated.ranks[static_cast<size_t>(rank)].phases.empty()) {
    return Status::invalid_argument(
        "the simulation kept no phase records: simulate with phases recorded to compare it with "
        "a trace");
  }
  return rank;
}

const StepSummary* find_step(const RankTrace& t, int64_t step) {
  const auto it = std::lower_bound(t.steps.begin(), t.steps.end(), step,
                                   [](const StepSummary& s, int64_t n) { return s.step < n; });
  return it != t.steps.end() && it->step == step ? &*it : nullptr;
}

}  // namespace

Result<std::vector<Against>> compare_with_simulation(const TraceSummary& measured,
                                                     const sim::SimResult& simulated) {
  std::vector<Against> out;
  const int last = simulated.iterations - 1;
  for (const RankTrace& t : measured.ranks) {
    const Result<int> found = simulated_rank(t, simulated);
    if (!found) return found.status();
    const int rank = *found;
    const sim::RankResult& r = simulated.ranks[static_cast<size_t>(rank)];
    std::array<double, sim::kNumPhases> sim_phase{};
    std::vector<std::pair<double, double>> busy;
    for (const sim::PhaseRecord& p : r.phases) {
      if (p.iteration != last || p.stream == sim::Stream::kHost) continue;
      sim_phase[static_cast<size_t>(p.phase)] += p.end_ms - p.start_ms;
      busy.emplace_back(p.start_ms, p.end_ms);
    }
    Against a{.rank = rank, .file = t.file, .steps = static_cast<int>(t.steps.size())};
    std::vector<double> step, gpu, host;
    for (const StepSummary& s : t.steps) {
      step.push_back(s.step_ms);
      gpu.push_back(s.gpu_busy_ms);
      host.push_back(s.host_wait_ms);
    }
    a.rows.push_back({"step", median(step), simulated.iteration_ms});
    a.rows.push_back({"gpu_busy", median(gpu), detail::union_length(std::move(busy))});
    // The measured stretches in which the GPU had run all the host had issued,
    // against the simulated compute stream's waits for launches (known only
    // where a host lane ran).
    a.rows.push_back({.what = "gpu_waits_host",
                      .measured_ms = median(std::move(host)),
                      .simulated_ms = r.gpu_waits_host_ms,
                      .simulated_known = simulated.host.modelled});
    for (sim::Phase p : sim::kAllPhases) {
      std::vector<double> v;
      for (const StepSummary& s : t.steps) v.push_back(s.phase_ms[static_cast<size_t>(p)]);
      const double m = median(std::move(v));
      const double s = sim_phase[static_cast<size_t>(p)];
      if (m > 0.0 || s > 0.0) a.rows.push_back({std::string(sim::to_string(p)), m, s});
    }
    std::vector<double> other;
    for (const StepSummary& s : t.steps) other.push_back(s.other_ms);
    if (const double m = median(std::move(other)); m > 0.0)
      a.rows.push_back({.what = "other", .measured_ms = m, .simulated_known = false});
    out.push_back(std::move(a));
  }
  return out;
}

Result<MeasuredTimeline> measured_timeline(const TraceSummary& measured,
                                           const sim::SimResult& simulated) {
  if (measured.ranks.empty()) return Status::invalid_argument("no traced ranks");
  for (const RankTrace& t : measured.ranks) {
    if (const Result<int> rank = simulated_rank(t, simulated); !rank) return rank.status();
  }
  // The steps every rank has, and the median one on the lowest rank.
  const RankTrace& lowest = measured.ranks.front();
  std::vector<const StepSummary*> common;
  for (const StepSummary& s : lowest.steps) {
    const bool everywhere =
        std::all_of(measured.ranks.begin(), measured.ranks.end(),
                    [&](const RankTrace& t) { return find_step(t, s.step) != nullptr; });
    if (everywhere) common.push_back(&s);
  }
  if (common.empty()) {
    return Status::invalid_argument(
        "no step number is in every traced rank's file: give the files of one job's steps");
  }
  std::vector<double> lengths;
  for (const StepSummary* s : common) lengths.push_back(s->step_ms);
  const double typical = median(std::move(lengths));
  const StepSummary& shown = **std::find_if(
      common.begin(), common.end(), [&](const StepSummary* s) { return s->step_ms == typical; });
  const bool any_spans = std::any_of(measured.ranks.begin(), measured.ranks.end(), [&](auto& t) {
    const StepSummary* s = find_step(t, shown.step);
    return s != nullptr && !s->spans.empty();
  });
  if (!any_spans) {
    return Status::invalid_argument(
        "the trace was summarized without its spans: summarize it with TraceOptions::spans to lay "
        "it out beside a simulation");
  }
  MeasuredTimeline out{.step = shown.step,
                       .step_ms = shown.step_ms,
                       .steps = static_cast<int>(common.size()),
                       .aligned = measured.alignment.aligned};
  const int last = simulated.iterations - 1;
  double origin = std::numeric_limits<double>::infinity();
  for (const sim::RankResult& r : simulated.ranks) {
    for (const sim::PhaseRecord& p : r.phases) {
      if (p.iteration == last) origin = std::min(origin, p.start_ms);
    }
  }
  out.origin_ms = std::isfinite(origin) ? origin : 0.0;
  const double lowest_offset = lowest.clock_offset_ms.value_or(0.0);
  for (const RankTrace& t : measured.ranks) {
    const StepSummary& s = *find_step(t, shown.step);
    // From the step's start to the simulation's clock: aligned, the step
    // starts where it does on the lowest rank's clock relative to that rank's.
    const double shift = out.aligned
                             ? out.origin_ms + (s.start_ms - t.clock_offset_ms.value_or(0.0)) -
                                   (shown.start_ms - lowest_offset)
                             : out.origin_ms;
    for (const sim::Stream stream : {sim::Stream::kCompute, sim::Stream::kComm}) {
      MeasuredLane lane{.rank = std::max(t.rank, 0), .stream = stream};
      for (const MeasuredSpan& span : s.spans) {
        if (span.stream != stream) continue;
        MeasuredSpan moved = span;
        moved.start_ms += shift;
        moved.end_ms += shift;
        lane.spans.push_back(moved);
      }
      if (!lane.spans.empty()) out.lanes.push_back(std::move(lane));
    }
  }
  return out;
}

std::string against_text(const std::vector<Against>& all) {
  std::string out;
  char line[160];
  for (const Against& a : all) {
    std::snprintf(line, sizeof line, "against %s: rank %d, medians of %d step%s\n", a.file.c_str(),
                  a.rank, a.steps, a.steps == 1 ? "" : "s");
    out += line;
    std::snprintf(line, sizeof line, "  %-18s %12s %13s %9s\n", "", "measured ms", "simulated ms",
                  "error");
    out += line;
    for (const AgainstRow& r : a.rows) {
      if (!r.simulated_known) {
        std::snprintf(line, sizeof line, "  %-18s %12.3f %13s %9s\n", r.what.c_str(), r.measured_ms,
                      "-", "-");
      } else if (r.measured_ms > 0.0) {
        std::snprintf(line, sizeof line, "  %-18s %12.3f %13.3f %+8.1f%%\n", r.what.c_str(),
                      r.measured_ms, r.simulated_ms, 100.0 * r.error());
      } else {
        std::snprintf(line, sizeof line, "  %-18s %12.3f %13.3f %9s\n", r.what.c_str(),
                      r.measured_ms, r.simulated_ms, "-");
      }
      out += line;
    }
  }
  if (!out.empty()) out.pop_back();
  return out;
}

std::string against_to_json(const std::vector<Against>& all, int indent) {
  using Json = nlohmann::ordered_json;
  Json ranks = Json::array();
  for (const Against& a : all) {
    Json rows = Json::array();
    for (const AgainstRow& r : a.rows) {
      const bool compared = r.simulated_known && r.measured_ms > 0.0;
      rows.push_back(Json{{"what", r.what},
                          {"measured_ms", r.measured_ms},
                          {"simulated_ms", r.simulated_known ? Json(r.simulated_ms) : Json()},
                          {"error", compared ? Json(r.error()) : Json()}});
    }
    ranks.push_back(
        Json{{"rank", a.rank}, {"file", a.file}, {"steps", a.steps}, {"rows", std::move(rows)}});
  }
  return Json{{"ranks", std::move(ranks)}}.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace shardlab::trace
