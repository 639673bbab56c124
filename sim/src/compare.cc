#include "shardlab/sim/compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <numeric>

#include "shardlab/planner/deadline.h"
#include "shardlab/planner/plan_summary.h"
#include "shardlab/planner/proposal_log.h"
#include "shardlab/sim/simulated_perf_model.h"

namespace shardlab::sim {
namespace {

constexpr planner::ProposerKind kProposers[] = {
    planner::ProposerKind::kGreedy, planner::ProposerKind::kUniform,
    planner::ProposerKind::kGridSearch, planner::ProposerKind::kEmbeddingOffloadScaleup};
constexpr planner::PartitionerKind kPartitioners[] = {planner::PartitionerKind::kGreedyPerf,
                                                      planner::PartitionerKind::kMemoryBalanced};
constexpr RatingModel kRatings[] = {RatingModel::kTorchRec, RatingModel::kSimulated};

bool cancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

void report(const CompareOptions& o, int row, int rows, CompareProgress::Stage stage,
            const planner::PlannerProgress& planner = {}) {
  if (o.progress)
    o.progress(CompareProgress{.row = row, .rows = rows, .stage = stage, .planner = planner});
}

// Fills the plan's numbers of `row` from a successful planning run.
void describe_plan(const planner::PlannerResult& result, CompareRow& row) {
  const planner::SearchSpace& space = *result.search_space;
  const int world_size = result.topology.world_size;
  std::vector<double> device_perf;
  double rating = 0.0;
  planner::rate_plan(space, *result.best, world_size, &device_perf, &rating);
  row.torchrec_rating_ms = rating;
  const std::vector<planner::Storage> hbm =
      planner::shard_storage_per_rank(space, *result.best, world_size);
  row.ranks.resize(static_cast<size_t>(world_size));
  int64_t peak = 0;
  for (size_t r = 0; r < row.ranks.size(); ++r) {
    row.ranks[r].torchrec_perf_ms = device_perf[r];
    row.ranks[r].shard_hbm = hbm[r].hbm;
    peak = std::max(peak, hbm[r].hbm);
  }
  row.peak_hbm_bytes = peak;
  if (!device_perf.empty()) {
    const double mean = std::accumulate(device_perf.begin(), device_perf.end(), 0.0) /
                        static_cast<double>(device_perf.size());
    const double max = *std::max_element(device_perf.begin(), device_perf.end());
    if (mean > 0.0) row.imbalance = max / mean;
  }
  row.plan = *result.best;
}

}  // namespace

planner::PlannerResult plan_configuration(const planner::Scenario& configured,
                                          const CompareConfig& config,
                                          const planner::PlannerOptions& base, int* simulations) {
  planner::PlannerOptions options = base;
  std::unique_ptr<SimulatedPerfModel> model;
  if (config.rating == RatingModel::kSimulated) {
    model = std::make_unique<SimulatedPerfModel>(configured);
    options.perf_model = model.get();
  }
  planner::PlannerResult result = planner::plan(configured, options);
  *simulations = model ? model->simulations() : 0;
  return result;
}

std::string_view to_string(RatingModel m) {
  return m == RatingModel::kTorchRec ? "torchrec" : "simulated";
}

std::string proposer_name(const CompareConfig& c) {
  return c.proposer ? std::string(planner::to_string(*c.proposer)) : std::string("scenario");
}

std::string partitioner_name(const CompareConfig& c, const planner::Scenario& scenario) {
  return std::string(planner::to_string(c.partitioner.value_or(scenario.planner.partitioner.kind)));
}

Result<std::vector<CompareConfig>> select_rows(const std::vector<CompareConfig>& grid,
                                               const planner::Scenario& scenario,
                                               const std::vector<std::string>& proposers,
                                               const std::vector<std::string>& partitioners,
                                               const std::vector<std::string>& perf_models) {
  using Name = std::function<std::string(const CompareConfig&)>;
  const std::pair<const char*, std::pair<const std::vector<std::string>*, Name>> axes[] = {
      {"--proposers", {&proposers, [](const CompareConfig& c) { return proposer_name(c); }}},
      {"--partitioners",
       {&partitioners, [&](const CompareConfig& c) { return partitioner_name(c, scenario); }}},
      {"--perf-models",
       {&perf_models, [](const CompareConfig& c) { return std::string(to_string(c.rating)); }}},
  };
  for (const auto& [option, axis] : axes) {
    const auto& [wanted, name] = axis;
    std::vector<std::string> names;
    for (const CompareConfig& c : grid) {
      const std::string n = name(c);
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    for (const std::string& w : *wanted) {
      if (std::find(names.begin(), names.end(), w) == names.end()) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        return Status::invalid_argument(std::string(option) + ": no row has \"" + w +
                                        "\"; the rows have " + list);
      }
    }
  }
  std::vector<CompareConfig> out;
  for (const CompareConfig& c : grid) {
    const bool kept = std::all_of(std::begin(axes), std::end(axes), [&](const auto& a) {
      const auto& [wanted, name] = a.second;
      return wanted->empty() || std::find(wanted->begin(), wanted->end(), name(c)) != wanted->end();
    });
    if (kept) out.push_back(c);
  }
  if (out.empty()) {
    return Status::invalid_argument(
        "--proposers, --partitioners and --perf-models leave no row to compare");
  }
  return out;
}

std::string label(const CompareConfig& c, const planner::Scenario& scenario) {
  std::string s = proposer_name(c) + " + " + partitioner_name(c, scenario) + " + " +
                  std::string(to_string(c.rating));
  if (c.torchrec_version)
    s += " + TorchRec " + std::string(planner::to_string(*c.torchrec_version));
  for (const auto& [axis, value] : c.extra_axes) s += " + " + value;
  return s;
}

planner::Scenario configure(const planner::Scenario& scenario, const CompareConfig& c) {
  planner::Scenario s = scenario;
  if (c.proposer) s.planner.proposers = {planner::ProposerSpec{.kind = *c.proposer}};
  if (c.partitioner) s.planner.partitioner.kind = *c.partitioner;
  if (c.torchrec_version) s.planner.torchrec_version = *c.torchrec_version;
  return s;
}

std::vector<CompareConfig> default_compare_grid() {
  std::vector<CompareConfig> grid = {CompareConfig{}};
  for (const planner::ProposerKind p : kProposers) {
    for (const planner::PartitionerKind q : kPartitioners) {
      for (const RatingModel m : kRatings)
        grid.push_back(CompareConfig{.proposer = p, .partitioner = q, .rating = m});
    }
  }
  return grid;
}

std::vector<CompareConfig> each_torchrec_version(const std::vector<CompareConfig>& grid) {
  std::vector<CompareConfig> out;
  out.reserve(grid.size() * planner::all_torchrec_versions().size());
  for (const CompareConfig& c : grid) {
    for (const planner::TorchRecVersion v : planner::all_torchrec_versions()) {
      CompareConfig versioned = c;
      versioned.torchrec_version = v;
      out.push_back(std::move(versioned));
    }
  }
  return out;
}

double relative_change(double from, double to) {
  if (from == to) return 0.0;
  if (from == 0.0)
    return to > 0 ? std::numeric_limits<double>::infinity()
                  : -std::numeric_limits<double>::infinity();
  return (to - from) / from;
}

Comparison compare_configurations(const planner::Scenario& scenario,
                                  const std::vector<CompareConfig>& grid,
                                  const CompareOptions& options) {
  Comparison out;
  out.scenario = scenario.name;
  out.iterations = options.sim.iterations;
  SimOptions sim_options = options.sim;
  sim_options.record_phases = false;
  // The time limit and the caller's cancel, polled as one flag (planner/deadline.h).
  const planner::Deadline deadline(options.time_limit_s, options.cancel);
  const std::atomic<bool>* flag = deadline.flag();
  // The caller's flag read directly too: the deadline mirrors it within 5 ms.
  const auto stopped = [&] {
    return cancelled(options.cancel) || cancelled(flag) || deadline.passed();
  };
  const std::atomic<bool>* stop = flag;
  sim_options.stop = stop;  // a row's simulation stops too
  const int rows = static_cast<int>(grid.size());
  for (int i = 0; i < rows; ++i) {
    if (stopped()) break;
    const CompareConfig& config = grid[static_cast<size_t>(i)];
    CompareRow row;
    row.config = config;
    row.label = label(config, scenario);
    report(options, i, rows, CompareProgress::Stage::kPlanning);
    const planner::Scenario configured = configure(scenario, config);
    row.torchrec_version = configured.planner.torchrec_version;
    planner::PlannerOptions base{.cancel = stop, .calibration = options.calibration};
    if (options.progress) {
      base.progress = [&options, i, rows](const planner::PlannerProgress& p) {
        report(options, i, rows, CompareProgress::Stage::kPlanning, p);
      };
    }
    const planner::PlannerResult result =
        options.plan_row ? options.plan_row(configured, config, base, &row.simulations)
                         : plan_configuration(configured, config, base, &row.simulations);
    if (stopped()) break;  // the row's planning was cut short: dropped
    row.num_proposals = result.num_proposals;
    row.num_plans = result.num_plans;
    row.plan_seconds = result.wall_seconds;
    if (!result.ok()) {
      row.status = result.failure();
    } else {
      describe_plan(result, row);
      row.summary = std::make_shared<const planner::PlanSummary>(
          planner::summarize_plan(configured, result, *result.best));
      report(options, i, rows, CompareProgress::Stage::kSimulating);
      Result<SimResult> simulated =
          simulate(configured, *result.search_space, *result.best, sim_options);
      if (stopped()) break;  // the row's simulation was cut short: dropped
      if (simulated.is_ok()) {
        row.iteration_ms = simulated->iteration_ms;
        for (size_t r = 0; r < row.ranks.size() && r < simulated->ranks.size(); ++r) {
          row.ranks[r].busy_compute_ms = simulated->ranks[r].busy_compute_ms;
          row.ranks[r].busy_comm_ms = simulated->ranks[r].busy_comm_ms;
        }
        if (options.row_planned) options.row_planned(i, result, row);
      } else {
        row.status = simulated.status();
      }
    }
    if (options.row_done) options.row_done(i, row);
    report(options, i, rows, CompareProgress::Stage::kDone);
    out.rows.push_back(std::move(row));
  }
  if (stopped()) {
    out.cancelled = true;
    out.timed_out = deadline.passed();
  }
  rank_rows(out);
  return out;
}

std::string failure_line(const CompareRow& r) {
  if (r.status.code() == StatusCode::kPlanner &&
      r.status.planner_error() == PlannerErrorType::kInsufficientStorage && r.num_proposals == 0) {
    std::string why =
        "its proposer proposed nothing for this scenario (TorchRec: \"Planner evaluated 0 "
        "proposals\")";
    if (r.config.proposer && *r.config.proposer == planner::ProposerKind::kGridSearch) {
      why +=
          "; TorchRec's grid search proposes nothing when the product of the tables' option "
          "counts passes its max_proposals";
    }
    return why;
  }
  std::string text = r.status.message().substr(0, r.status.message().find('\n'));
  while (!text.empty() && (text.back() == ' ' || text.back() == '.')) text.pop_back();
  return text;
}

namespace {

// Sets each row's `applies` (CompareRow).
void mark_applicable(Comparison& c) {
  const bool some_evaluated = std::any_of(c.rows.begin(), c.rows.end(),
                                          [](const CompareRow& r) { return r.num_proposals > 0; });
  for (CompareRow& r : c.rows) {
    r.applies = r.status.is_ok() || r.num_proposals > 0 || !some_evaluated;
    r.not_applicable = r.applies ? std::string() : failure_line(r);
  }
}

}  // namespace

void rank_rows(Comparison& c) {
  mark_applicable(c);
  c.winner = -1;
  // The winner: lowest simulated time, then lowest TorchRec rating, then first.
  for (int i = 0; i < static_cast<int>(c.rows.size()); ++i) {
    const CompareRow& r = c.rows[static_cast<size_t>(i)];
    if (!r.iteration_ms) continue;
    if (c.winner < 0) {
      c.winner = i;
      continue;
    }
    const CompareRow& w = c.rows[static_cast<size_t>(c.winner)];
    if (*r.iteration_ms < *w.iteration_ms ||
        (*r.iteration_ms == *w.iteration_ms && *r.torchrec_rating_ms < *w.torchrec_rating_ms)) {
      c.winner = i;
    }
  }
  for (CompareRow& r : c.rows) {
    r.iteration_vs_winner.reset();
    r.rating_vs_winner.reset();
    r.moved_vs_winner.clear();
  }
  if (c.winner < 0) return;
  const CompareRow w = c.rows[static_cast<size_t>(c.winner)];
  for (CompareRow& r : c.rows) {
    if (!r.iteration_ms) continue;
    r.iteration_vs_winner = relative_change(*w.iteration_ms, *r.iteration_ms);
    r.rating_vs_winner = relative_change(*w.torchrec_rating_ms, *r.torchrec_rating_ms);
    if (w.summary && r.summary)
      r.moved_vs_winner = planner::diff_plans(*w.summary, *r.summary).moved_tables;
  }
}

}  // namespace shardlab::sim
