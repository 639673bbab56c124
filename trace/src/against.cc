#include "shardlab/trace/against.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "intervals.h"
#include "shardlab/kernels/measurement.h"

namespace shardlab::trace {
namespace {

// The replay's median (kernels/measurement.h: nearest rank), of the steps.
double median(std::vector<double> v) { return kernels::summarize(std::move(v)).median_ms; }

}  // namespace

Result<std::vector<Against>> compare_with_simulation(const TraceSummary& measured,
                                                     const sim::SimResult& simulated) {
  std::vector<Against> out;
  const int last = simulated.iterations - 1;
  for (const RankTrace& t : measured.ranks) {
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
    const sim::RankResult& r = simulated.ranks[static_cast<size_t>(rank)];
    if (r.phases.empty()) {
      return Status::invalid_argument(
          "the simulation kept no phase records: simulate with phases recorded to compare it with "
          "a trace");
    }
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
