// shardlab simulate: plan a scenario (or read a plan file), simulate training
// iterations of the plan, print a summary, and write the result JSON and a
// Chrome trace.

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "calibration_option.h"
#include "cli_common.h"
#include "plan_source.h"
#include "run_recording.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/run_records.h"
#include "shardlab/data/sim_json.h"
#include "shardlab/planner/deadline.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/simulation.h"
#include "shardlab/trace/against.h"

namespace shardlab::cli {
namespace {

struct SimulateArgs {
  std::string torchrec_version;  // --torchrec-version; empty: the scenario's
  bool allow_over_capacity = false;
  std::string scenario;
  std::string plan;                  // empty: plan the scenario first
  std::string output;                // result JSON; empty: none
  std::string trace;                 // Chrome trace; empty: none
  std::vector<std::string> against;  // profiler traces to compare with (docs/traces.md)
  std::string against_json;          // --against-json: the comparison as JSON
  int iterations = sim::SimOptions{}.iterations;
  double time_limit = 0.0;  // --time-limit, seconds: planning and simulation; 0: none
  bool no_overlap = false;
  bool no_contention = false;
  std::string comm_model = "flows";
  bool compact = false;
  bool quiet = false;
  StoreOptions store;
  std::string calibration;  // --calibration PROFILE; empty: TorchRec's constants

  int indent() const { return compact ? data::kCompactJson : data::kDefaultJsonIndent; }
  sim::SimOptions options() const {
    return sim::SimOptions{.iterations = iterations,
                           .overlap = !no_overlap,
                           .contention = !no_contention,
                           .comm_model = comm_model == "estimates" ? sim::CommModel::kEstimates
                                                                   : sim::CommModel::kFlows,
                           .record_phases = true};
  }
};

// Rank tables longer than this are summarised as min / mean / max.
constexpr size_t kMaxRankRows = 16;
constexpr size_t kMaxCriticalRows = 24;
constexpr size_t kBusiestLinks = 5;

// Failure before a result exists: message to stderr, error JSON to -o.
int report_failure(const SimulateArgs& args, const std::string& scenario_name,
                   const planner::PlannerResult* result, const Status& status) {
  return cli::report_failure(status, args.output, scenario_name, result, args.indent());
}

// The plan to simulate: the default planner's best plan, or the --plan file.
// Failures are reported here, and returned.
Result<planner::PlannerResult> obtain_plan(const SimulateArgs& args,
                                           const planner::Scenario& scenario,
                                           const planner::CostCalibration* calibration,
                                           const planner::Deadline& deadline) {
  planner::PlannerResult result =
      args.plan.empty()
          ? planner::plan(scenario, planner::PlannerOptions{.cancel = deadline.flag(),
                                                            .calibration = calibration})
          : read_and_rate_plan(scenario, args.plan, nullptr, calibration, args.allow_over_capacity);
  if (!result.ok() && deadline.passed()) {
    const Status out_of_time = Status::invalid_argument(
        "the time limit (" + fmt::format("{}", args.time_limit) + " s) ran out while planning (" +
        std::to_string(result.num_proposals) +
        " proposals evaluated); nothing was simulated: raise --time-limit, give a plan "
        "(--plan), or 0 for no limit");
    report_failure(args, scenario.name, nullptr, out_of_time);
    return out_of_time;
  }
  if (result.ok()) return result;
  // A plan file that does not fit is input, not a planning failure: no counters.
  const bool planner_failure = args.plan.empty() || !result.search_space.has_value();
  report_failure(args, scenario.name, planner_failure ? &result : nullptr, result.failure());
  return result.failure();
}

std::string on_off(bool on) { return on ? "on" : "off"; }

// Busy time per steady-state iteration, one row per rank or a min/mean/max
// summary naming the busiest rank of each stream.
void print_busy(std::ostream& out, const sim::SimResult& r) {
  if (r.ranks.empty()) return;
  if (r.ranks.size() <= kMaxRankRows) {
    out << "busy per iteration (ms):\n";
    if (!r.host.modelled) {
      out << fmt::format("  {:>6}  {:>10}  {:>10}\n", "rank", "compute", "comm");
      for (const sim::RankResult& rr : r.ranks) {
        out << fmt::format("  {:>6}  {:>10.4f}  {:>10.4f}\n", rr.rank, rr.busy_compute_ms,
                           rr.busy_comm_ms);
      }
      return;
    }
    out << fmt::format("  {:>6}  {:>10}  {:>10}  {:>10}  {:>16}\n", "rank", "compute", "comm",
                       "host", "GPU waits host");
    for (const sim::RankResult& rr : r.ranks) {
      out << fmt::format("  {:>6}  {:>10.4f}  {:>10.4f}  {:>10.4f}  {:>16.4f}\n", rr.rank,
                         rr.busy_compute_ms, rr.busy_comm_ms, rr.busy_host_ms,
                         rr.gpu_waits_host_ms);
    }
    return;
  }
  out << fmt::format("busy per iteration (ms), {} ranks:\n", r.ranks.size());
  for (const bool compute : {true, false}) {
    const auto busy = [compute](const sim::RankResult& rr) {
      return compute ? rr.busy_compute_ms : rr.busy_comm_ms;
    };
    const auto less = [&](const sim::RankResult& a, const sim::RankResult& b) {
      return busy(a) < busy(b);
    };
    // max_element keeps the lowest rank among equals (minmax_element would take the highest).
    const auto lo = std::min_element(r.ranks.begin(), r.ranks.end(), less);
    const auto hi = std::max_element(r.ranks.begin(), r.ranks.end(), less);
    const double sum =
        std::accumulate(r.ranks.begin(), r.ranks.end(), 0.0,
                        [&](double acc, const sim::RankResult& rr) { return acc + busy(rr); });
    out << fmt::format("  {:<8} min {:.4f}  mean {:.4f}  max {:.4f} (rank {})\n",
                       compute ? "compute" : "comm", busy(*lo),
                       sum / static_cast<double>(r.ranks.size()), busy(*hi), hi->rank);
  }
}

// One chain in time order that tiles the last iteration: the steps' ms add up
// to the iteration time (docs/simulation.md "Reading the summary").
void print_critical_path(std::ostream& out, const sim::SimResult& r) {
  if (r.critical_path.empty()) return;
  out << fmt::format("critical path of the last iteration ({} steps):\n", r.critical_path.size());
  out << fmt::format("  {:>6}  {:<18} {:<8} {:>5}  {:>10}  {:>10}\n", "rank", "phase", "stream",
                     "iter", "start_ms", "ms");
  const size_t shown = std::min(r.critical_path.size(), kMaxCriticalRows);
  for (size_t i = 0; i < shown; ++i) {
    const sim::CriticalStep& s = r.critical_path[i];
    out << fmt::format("  {:>6}  {:<18} {:<8} {:>5}  {:>10.4f}  {:>10.4f}\n", s.rank,
                       sim::to_string(s.phase), sim::to_string(s.stream), s.iteration, s.start_ms,
                       s.end_ms - s.start_ms);
  }
  if (shown < r.critical_path.size()) {
    const double rest = r.critical_path.back().end_ms - r.critical_path[shown].start_ms;
    out << fmt::format("  ... {} more, {:.4f} ms\n", r.critical_path.size() - shown, rest);
  }
}

void print_links(std::ostream& out, const sim::SimResult& r) {
  if (r.links.empty()) return;
  std::vector<const sim::LinkResult*> links;
  for (const sim::LinkResult& l : r.links) links.push_back(&l);
  // Stable, so equally used links keep the graph's order.
  std::stable_sort(links.begin(), links.end(),
                   [](const auto* a, const auto* b) { return a->utilization > b->utilization; });
  links.resize(std::min(links.size(), kBusiestLinks));
  out << fmt::format("busiest links (top {} of {} used):\n", links.size(), r.links.size());
  out << fmt::format("  {:>7}  {:>11}  {}\n", "util", "bytes", "link");
  for (const sim::LinkResult* l : links) {
    out << fmt::format("  {:>6.1f}%  {:>11}  {}\n", l->utilization * 100.0, format_bytes(l->bytes),
                       l->name);
  }
}

void print_summary(std::ostream& out, const SimulateArgs& args, const planner::Scenario& scenario,
                   const planner::PlannerResult& planned, const sim::SimResult& r) {
  const int hosts = r.ranks.empty() ? 0 : r.ranks.back().host + 1;
  // NVLink domains that span hosts (docs/simulation.md "Clusters"), and the system preset.
  const int domain = scenario.fabric.nvlink_domain_size;
  const std::string where =
      (domain > 0
           ? fmt::format(" in {} NVLink domain{} of {}", static_cast<int>(r.ranks.size()) / domain,
                         static_cast<int>(r.ranks.size()) > domain ? "s" : "", domain)
           : std::string()) +
      (scenario.fabric.system.empty() ? std::string() : " (" + scenario.fabric.system + ")");
  out << fmt::format(
      "{}: {} ranks on {} host{}{}, {} iteration{} (overlap {}, contention {}, comm model {})\n",
      shown(r.scenario), r.ranks.size(), hosts, hosts == 1 ? "" : "s", where, r.iterations,
      r.iterations == 1 ? "" : "s", on_off(!args.no_overlap), on_off(!args.no_contention),
      args.comm_model);
  const std::string model = args.calibration == CalibrationChoice::kTorchRecConstants
                                ? std::string("TorchRec's constants")
                            : !args.calibration.empty()
                                ? "calibrated (" + shown(args.calibration) + ")"
                            : !scenario.gpu ? std::string("TorchRec")
                                            : "preset " + scenario.gpu->name + " default profile";
  out << fmt::format("plan: {}, {} rating {:.6g} ms\n",
                     args.plan.empty() ? std::string("planned with the default planner")
                                       : "from " + shown(args.plan),
                     model, planned.perf_rating);
  // One iteration has no steady state: it also pays for the first input dist.
  out << (r.iterations >= 2
              ? fmt::format(
                    "iteration time: {:.6g} ms (steady state); {} iterations end at {:.6g} ms\n",
                    r.iteration_ms, r.iterations, r.total_ms)
              : fmt::format("iteration time: {:.6g} ms (one iteration: includes the first input "
                            "dist, not a steady state)\n",
                            r.iteration_ms));
  // The host's side of the iteration (docs/host-model.md), as the workbench says it.
  out << sim::host_side_text(r, scenario.workload.iteration_overhead_ms) << '\n';
  if (r.dense_params > 0) {
    out << fmt::format("dense model: {} parameters ({}), {} DDP bucket{}\n", r.dense_params,
                       format_bytes(static_cast<double>(r.dense_params) * 4.0), r.ddp_buckets,
                       r.ddp_buckets == 1 ? "" : "s");
  }
  print_busy(out, r);
  print_critical_path(out, r);
  print_links(out, r);
  out << fmt::format("simulated {} events and {} flows in {:.1f} ms\n", r.events, r.flows,
                     r.wall_seconds * 1e3);
}

// Records the simulation (kind simulate): the plan and its estimates, the
// last iteration's phases and the iteration time; returns the exit status
// recording contributes.
int record_simulation(const SimulateArgs& args, const planner::Scenario& scenario,
                      const planner::PlannerResult& planned, const sim::SimResult& r,
                      RunRecorder& recorder) {
  data::NewRun run =
      data::simulation_run(scenario, planned, r,
                           data::SimulationRunSettings{.overlap = !args.no_overlap,
                                                       .contention = !args.no_contention,
                                                       .comm_model = args.comm_model,
                                                       .from_plan = args.plan,
                                                       .calibration = args.calibration});
  run.scenario_json = scenario_text(args.scenario);
  return recorder.record(run);
}

int run_simulate(const SimulateArgs& args) {
  VerbFiles files;
  files.input(args.scenario, "the scenario")
      .input(args.plan, "the plan file")
      .input(args.calibration, "the calibration profile")
      .store(args.store)
      .output(args.output, "the result output")
      .output(args.trace, "the trace output")
      .output(args.against_json, "the --against-json output");
  for (const std::string& t : args.against) files.input(t, "a trace of --against");
  if (!files.distinct()) return kExitInvalid;
  if (!args.against_json.empty() && args.against.empty()) {
    print_error("--against-json writes the comparison with --against's traces: give --against");
    return kExitInvalid;
  }
  // --time-limit bounds planning and simulation (planner/deadline.h).
  const planner::Deadline deadline(args.time_limit);
  Result<planner::Scenario> scenario =
      load_scenario_or_report(args.scenario, args.output, args.torchrec_version);
  if (!scenario.is_ok()) return exit_status(scenario.status());
  Result<RunRecorder> recorder = RunRecorder::start(args.store, args.quiet);
  if (!recorder.is_ok()) return report_failure(args, scenario->name, nullptr, recorder.status());
  // Refuse a fabric that does not fit before spending time on planning.
  if (Status st = check_fabric(*scenario); !st.is_ok())
    return report_failure(args, scenario->name, nullptr, st);

  Result<CalibrationChoice> calibration = CalibrationChoice::load(args.calibration, &*scenario);
  if (!calibration.is_ok())
    return report_failure(args, scenario->name, nullptr, calibration.status());

  // The traces are read before the work: a bad one is refused at once.
  std::optional<trace::TraceSummary> measured;
  if (!args.against.empty()) {
    Result<trace::TraceSummary> read = trace::summarize_traces(args.against);
    if (!read.is_ok()) return report_failure(args, scenario->name, nullptr, read.status());
    measured = std::move(read).value();
  }

  Result<planner::PlannerResult> planned =
      obtain_plan(args, *scenario, calibration->get(), deadline);
  if (!planned.is_ok()) return exit_status(planned.status());
  warn_uncalibrated(*calibration, *planned);
  sim::SimOptions options = args.options();
  // Measured communication parameters reach the flows too.
  options.calibration = calibration->get();
  options.stop = deadline.flag();
  Result<sim::SimResult> simulated =
      sim::simulate(*scenario, *planned->search_space, *planned->best, options);
  if (!simulated.is_ok() && deadline.passed()) {
    return report_failure(
        args, scenario->name, nullptr,
        Status::invalid_argument("the time limit (" + fmt::format("{}", args.time_limit) +
                                 " s) ran out: " + simulated.status().message() +
                                 "; nothing was written: raise --time-limit, simulate fewer "
                                 "--iterations, or 0 for no limit"));
  }
  if (!simulated.is_ok()) return report_failure(args, scenario->name, nullptr, simulated.status());

  if (!args.output.empty()) {
    if (Status w = write_output(args.output, data::simulation_to_json(*simulated, args.compact));
        !w.is_ok()) {
      print_error(w.message());
      return exit_status(w);
    }
  }
  if (!args.trace.empty()) {
    if (Status w = write_output(args.trace, data::chrome_trace_json(*simulated)); !w.is_ok()) {
      print_error(w.message());
      return exit_status(w);
    }
  }
  if (!args.quiet) {
    // stdout may carry a JSON document ("-o -"); the summary then goes to stderr.
    const bool stdout_taken = args.output == "-" || args.trace == "-";
    print_summary(stdout_taken ? std::cerr : std::cout, args, *scenario, *planned, *simulated);
  }
  if (measured) {
    Result<std::vector<trace::Against>> against =
        trace::compare_with_simulation(*measured, *simulated);
    if (!against.is_ok()) return report_failure(args, scenario->name, nullptr, against.status());
    const bool stdout_taken = args.output == "-" || args.trace == "-" || args.against_json == "-";
    (stdout_taken ? std::cerr : std::cout) << trace::against_text(*against) << '\n';
    if (!args.against_json.empty()) {
      if (Status w = write_output(args.against_json,
                                  trace::against_to_json(*against, args.compact ? -1 : 2));
          !w.is_ok()) {
        print_error(w.message());
        return exit_status(w);
      }
    }
  }
  return record_simulation(args, *scenario, *planned, *simulated, *recorder);
}

}  // namespace

void add_simulate_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<SimulateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Simulate training iterations of a plan and report where the time goes.\n"
      "Plans the scenario with the default planner (as 'shardlab plan'), or reads --plan, then "
      "runs\n"
      "a discrete-event simulation of TorchRec's pipeline on every rank: embedding lookups, the\n"
      "all-to-alls as flows over the cluster's links, dense compute, data-parallel all-reduce.\n"
      "Prints the iteration time, per-rank busy time, the critical path and the busiest links\n"
      "(docs/simulation.md). Exit status: 0 simulated, 2 invalid scenario, plan file, usage or a\n"
      "file that cannot be read or written (an output that is the same file as an input is\n"
      "refused), 3 no plan found; on 2 and 3, -o receives the error JSON of 'shardlab plan'. The\n"
      "run is recorded in the run store (--db; 'shardlab runs --help').");
  add_scenario_argument(cmd, &args->scenario);
  cmd->add_option("--plan", args->plan,
                  "Simulate this plan file (written by 'shardlab plan', either --format) instead "
                  "of planning "
                  "(default: plan with the default planner)")
      ->type_name("FILE");
  add_allow_over_capacity_flag(cmd, &args->allow_over_capacity);
  add_output_option(cmd, &args->output,
                    "the result JSON (docs/simulation.md \"Simulation result\")", "none");
  cmd->add_option("--against", args->against,
                  "Profiler traces of the same job on real GPUs (files or folders, as 'shardlab "
                  "trace summarize' reads them): print each traced rank's measured step, GPU-busy "
                  "time and GPU time by phase (medians over its steps) beside the simulated ones "
                  "(docs/traces.md)")
      ->type_name("PATH");
  cmd->add_option("--against-json", args->against_json,
                  "With --against: write the comparison as JSON to FILE ('-' for stdout; "
                  "docs/traces.md), as -o writes its file (default: none)")
      ->type_name("FILE");
  cmd->add_option("--trace", args->trace,
                  "Write a Chrome trace (chrome://tracing, ui.perfetto.dev) of every phase to "
                  "FILE, as -o writes its file (default: none)")
      ->type_name("FILE");
  cmd->add_option("--iterations", args->iterations,
                  "Iterations to simulate; the steady state needs at least 2 (default: 4)")
      ->check(number_in_range(1, 100000))
      ->type_name("N");
  cmd->add_option("--time-limit", args->time_limit,
                  "Stop after SECONDS for planning and simulating together, with exit 2 and "
                  "nothing written (default: 0, no limit)")
      ->check(number_in_range(0.0, 1e9))
      ->type_name("SECONDS");
  cmd->add_flag(
      "--no-overlap", args->no_overlap,
      "Run communication and compute on one stream, without pipelining (default: overlap)");
  cmd->add_flag("--no-contention", args->no_contention,
                "Give every flow its path's full bandwidth instead of sharing links max-min fairly "
                "(default: contention)");
  cmd->add_option(
         "--comm-model", args->comm_model,
         "'flows' (collectives as flows over the topology) or 'estimates' (each rank's comm phase "
         "lasts its TorchRec estimate) (default: flows)")
      ->check(CLI::IsMember({"flows", "estimates"}))
      ->type_name("MODEL");
  add_compact_flag(cmd, &args->compact);
  add_quiet_flag(cmd, &args->quiet, "the summary (only the files are written)");
  add_store_options(cmd, &args->store);
  add_calibration_option(cmd, &args->calibration);
  add_torchrec_version_option(cmd, &args->torchrec_version);
  cmd->footer(
      example_footer("  shardlab simulate dlrm.json\n"
                     "  shardlab simulate dlrm.json -o sim.json --trace trace.json --iterations 8\n"
                     "  shardlab plan dlrm.json -o plan.json && shardlab simulate dlrm.json --plan "
                     "plan.json --no-overlap"));
  verbs.add(cmd, [args] { return run_simulate(*args); });
}

}  // namespace shardlab::cli
