// shardlab replay: run a plan's lookups and collectives for real on a replay
// backend (kernels/backend.h), print each rank's measured phases next to
// TorchRec's estimate and the simulated phase, write the result JSON and
// record the run in the store.

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli_common.h"
#include "plan_source.h"
#include "run_recording.h"
#include "shardlab/data/message_text.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/replay_json.h"
#include "shardlab/data/run_records.h"
#include "shardlab/kernels/backend.h"
#include "shardlab/kernels/phase_report.h"
#include "shardlab/kernels/workload.h"
#include "shardlab/planner/planner.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::cli {
namespace {

// Rows per shard the CPU backend allocates by default: a plan's 10^7-row
// tables would not fit a workstation's memory eight ranks at a time.
constexpr int64_t kCpuDefaultMaxRows = 262144;

struct ReplayArgs {
  std::string torchrec_version;  // --torchrec-version; empty: the scenario's
  bool allow_over_capacity = false;
  std::string scenario;
  std::string plan;
  std::string backend = "cpu";
  int iterations = kernels::ReplayOptions{}.iterations;
  int warmup = kernels::ReplayOptions{}.warmup;
  std::string ranks;      // empty: all
  int64_t max_rows = -1;  // -1: the backend's default
  std::string ids = "uniform";
  double zipf_alpha = kernels::ReplayOptions{}.zipf_alpha;
  std::string pooling = "fixed";
  uint64_t seed = kernels::ReplayOptions{}.seed;
  float learning_rate = kernels::ReplayOptions{}.learning_rate;
  bool verify = false;
  std::string output;
  bool compact = false;
  bool quiet = false;
  StoreOptions store;

  int64_t rows_cap() const {
    if (max_rows >= 0) return max_rows;
    return backend == "cpu" ? kCpuDefaultMaxRows : 0;
  }
};

int fail(const Status& status) {
  print_error(status.message());
  return exit_status(status);
}

std::string ms_cell(const std::optional<double>& v) {
  return v ? fmt::format("{:.4f}", *v) : std::string("-");
}

void print_report(std::ostream& out, const ReplayArgs& args, const planner::Scenario& scenario,
                  const kernels::ReplayWorkload& workload, const kernels::ReplayResult& result,
                  const std::vector<kernels::PhaseComparison>& phases) {
  out << fmt::format("{}: replayed {} of {} ranks on {} ({}), {} warm-up + {} timed iterations\n",
                     shown(scenario.name), result.devices_used, result.world_size, result.backend,
                     result.device_name, result.warmup, result.iterations);
  out << fmt::format(
      "optimizer {}, ids {}, pooling {}, rows per shard {}\n",
      kernels::to_string(workload.optimizer),
      args.ids == "zipf" ? fmt::format("zipf (alpha {})", args.zipf_alpha) : args.ids, args.pooling,
      args.rows_cap() > 0 ? fmt::format("capped at {}", args.rows_cap())
                          : std::string("as planned"));
  out << fmt::format("  {:>5}  {:<16} {:>11} {:>11} {:>12} {:>13}\n", "rank", "phase", "median_ms",
                     "p90_ms", "torchrec_ms", "simulated_ms");
  for (const kernels::PhaseComparison& p : phases) {
    const bool measured = p.measured.samples > 0;
    out << fmt::format("  {:>5}  {:<16} {:>11} {:>11} {:>12} {:>13}\n", p.rank,
                       sim::to_string(p.phase),
                       measured ? fmt::format("{:.4f}", p.measured.median_ms) : std::string("-"),
                       measured ? fmt::format("{:.4f}", p.measured.p90_ms) : std::string("-"),
                       ms_cell(p.estimate_ms), ms_cell(p.simulated_ms));
  }
  const data::ReplaySummary s = data::summarize_replay(result, phases);
  out << fmt::format(
      "iteration (slowest rank per phase): measured {:.4f} ms, TorchRec {:.4f} ms, simulated "
      "{:.4f} ms\n",
      s.median_iteration_ms, s.estimated_iteration_ms, s.simulated_iteration_ms);
  out << fmt::format("{} lookup and {} collective measurements\n", s.lookups, s.collectives);
  if (result.backend == "cpu") {
    out << "cpu backend: threads stand in for GPUs, so measured times are this CPU's and do not "
           "compare with the GPU estimates beside them; they calibrate a CPU model "
           "(docs/replay.md)\n";
  }
}

int record_replay(const ReplayArgs& args, const planner::Scenario& scenario,
                  const planner::PlannerResult& planned, const kernels::ReplayResult& result,
                  const std::vector<kernels::PhaseComparison>& phases,
                  const sim::SimResult* simulated, size_t ranks, RunRecorder& recorder) {
  data::NewRun run = new_run(data::RunKind::kReplay, scenario, &planned);
  run.scenario_json = scenario_text(args.scenario);
  if (simulated != nullptr) run.sim_phases = data::sim_phase_rows(*simulated);
  run.measurements = result.measurements;
  run.device = result.device_name;
  run.backend = result.backend;
  const data::ReplaySummary s = data::summarize_replay(result, phases);
  run.summary_json = data::summary_json({{"median_iteration_ms", s.median_iteration_ms},
                                         {"estimated_iteration_ms", s.estimated_iteration_ms},
                                         {"simulated_iteration_ms", s.simulated_iteration_ms},
                                         {"iterations", static_cast<int64_t>(result.iterations)},
                                         {"warmup", static_cast<int64_t>(result.warmup)},
                                         {"ranks", static_cast<int64_t>(ranks)},
                                         {"ids", args.ids},
                                         {"pooling", args.pooling},
                                         {"max_rows", args.rows_cap()},
                                         {"seed", static_cast<int64_t>(args.seed)},
                                         {"from_plan", args.plan}});
  return recorder.record(run);
}

int run_replay(const ReplayArgs& args) {
  const bool distinct = VerbFiles()
                            .input(args.scenario, "the scenario")
                            .input(args.plan, "the plan file")
                            .store(args.store)
                            .output(args.output, "the result output")
                            .distinct();
  if (!distinct) return kExitInvalid;
  Result<planner::Scenario> scenario =
      load_scenario_or_report(args.scenario, "", args.torchrec_version);
  if (!scenario.is_ok()) return exit_status(scenario.status());
  // Ranks are checked against the scenario before anything is built.
  std::vector<int> ranks;
  if (!args.ranks.empty()) {
    const int world_size = scenario->topology.world_size;
    Result<std::vector<int64_t>> parsed = parse_id_list(
        args.ranks, IdListSpec{.option = "--ranks",
                               .what = "rank",
                               .maximum = world_size - 1,
                               .range_note = fmt::format("{} has {} ranks", shown(scenario->name),
                                                         world_size)});
    if (!parsed) return fail(parsed.status());
    ranks.assign(parsed->begin(), parsed->end());
  }
  Result<RunRecorder> recorder = RunRecorder::start(args.store, args.quiet);
  if (!recorder) return fail(recorder.status());
  if (Status st = check_fabric(*scenario); !st.is_ok()) return fail(st);
  const planner::PlannerResult planned =
      read_and_rate_plan(*scenario, args.plan, nullptr, nullptr, args.allow_over_capacity);
  if (!planned.ok()) return fail(planned.failure());

  kernels::ReplayOptions options;
  options.warmup = args.warmup;
  options.iterations = args.iterations;
  options.ids =
      args.ids == "zipf" ? kernels::IdDistribution::kZipf : kernels::IdDistribution::kUniform;
  options.zipf_alpha = args.zipf_alpha;
  options.pooling = args.pooling == "poisson" ? kernels::PoolingDistribution::kPoisson
                                              : kernels::PoolingDistribution::kFixed;
  options.seed = args.seed;
  options.learning_rate = args.learning_rate;
  options.verify = args.verify;
  options.ranks = std::move(ranks);

  Result<std::unique_ptr<kernels::ReplayBackend>> backend = kernels::make_backend(args.backend);
  if (!backend) return fail(backend.status());
  Result<kernels::ReplayWorkload> workload =
      kernels::build_workload(*scenario, *planned.search_space, *planned.best,
                              kernels::WorkloadOptions{.max_rows = args.rows_cap()});
  if (!workload) return fail(workload.status());
  Result<sim::IterationTraffic> traffic =
      sim::iteration_traffic(*scenario, *planned.search_space, *planned.best);
  if (!traffic) return fail(traffic.status());
  // The simulator without overlap: the replay runs its phases one after the
  // other with a barrier between them, and so does this simulation.
  Result<sim::SimResult> simulated =
      sim::simulate(*scenario, *planned.search_space, *planned.best,
                    sim::SimOptions{.iterations = 2, .overlap = false});
  if (!simulated) return fail(simulated.status());

  const bool tty = isatty(STDERR_FILENO) != 0;
  auto progress = [&](int done, int total, std::string_view what) {
    if (args.quiet) return;
    std::cerr << fmt::format("{}replay [{}/{}] {}{}", tty ? "\r" : "", done, total, what,
                             tty ? "   " : "\n");
    if (tty && done == total) std::cerr << '\n';
    std::cerr.flush();
  };
  Result<kernels::ReplayResult> result = (*backend)->replay(*workload, options, progress);
  if (!result) return fail(result.status());

  const std::vector<kernels::PhaseComparison> phases =
      kernels::compare_phases(*result, traffic->ranks, &*simulated);
  // Under mpirun every process holds the whole result: one of them reports it.
  if (kernels::replay_process_rank() != 0) return kExitOk;
  std::vector<int> replayed = options.ranks;
  if (replayed.empty()) {
    for (int r = 0; r < workload->world_size; ++r) replayed.push_back(r);
  }
  if (!args.output.empty()) {
    const data::ReplaySettings settings{.scenario = scenario->name,
                                        .plan_path = args.plan,
                                        .ranks = replayed,
                                        .max_rows = args.rows_cap(),
                                        .optimizer = workload->optimizer,
                                        .options = options};
    const std::string json = data::replay_to_json(
        settings, *result, phases, args.compact ? data::kCompactJson : data::kDefaultJsonIndent);
    if (Status w = write_output(args.output, json); !w.is_ok()) return fail(w);
  }
  if (!args.quiet)
    print_report(args.output == "-" ? std::cerr : std::cout, args, *scenario, *workload, *result,
                 phases);
  return record_replay(args, *scenario, planned, *result, phases, &*simulated, replayed.size(),
                       *recorder);
}

}  // namespace

void add_replay_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Run a plan's embedding lookups and collectives for real and measure every phase.\n"
      "Builds each rank's shards from PLAN (bags and ids per bag from the cost model's batch sizes "
      "and\n"
      "pooling factors), then runs warm-up and timed iterations on a replay backend: input dist\n"
      "all-to-alls, forward lookups, output dist, backward output dist, backward lookups with the "
      "fused\n"
      "optimizer update, data-parallel all-reduce. Prints each rank's median and p90 per phase "
      "next to\n"
      "TorchRec's estimate and the simulated phase time (docs/replay.md). Backends: 'cpu' (threads "
      "as\n"
      "ranks, in-memory collectives; the reference, runs anywhere) and 'cuda' (GPU kernels and "
      "NCCL,\n"
      "in builds with the CUDA toolkit). The optimizer is the scenario's sharder.optimizer:\n"
      "rowwise_adagrad replays row-wise Adagrad, every other optimizer replays SGD. Only fp32 and\n"
      "fp16 tables replay. The run is recorded in the run store (--db; 'shardlab runs --help').\n"
      "Exit status: 0 replayed, 1 internal error, 2 invalid scenario, plan file, backend, usage,\n"
      "or a file that cannot be read or written.");
  add_scenario_argument(cmd, &args->scenario);
  cmd->add_option("plan", args->plan, "Plan file written by 'shardlab plan' (either --format)")
      ->required();
  add_allow_over_capacity_flag(cmd, &args->allow_over_capacity);
  cmd->add_option("--backend", args->backend, "Replay backend: 'cpu' or 'cuda' (default: cpu)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->type_name("NAME");
  cmd->add_option("--iterations", args->iterations,
                  "Timed iterations; medians and p90 over these (default: 20)")
      ->check(number_in_range(1, 1000000))
      ->type_name("N");
  cmd->add_option("--warmup", args->warmup, "Untimed iterations before the timed ones (default: 3)")
      ->check(number_in_range(0, 1000000))
      ->type_name("N");
  cmd->add_option("--ranks", args->ranks,
                  "Replay only these ranks, e.g. 0,1,4-7; collectives run among them with the "
                  "plan's message "
                  "sizes to and from them (default: all ranks)")
      ->type_name("LIST");
  cmd->add_option("--max-rows", args->max_rows,
                  "Rows allocated per shard at most; ids are drawn over the allocated rows and the "
                  "bytes per "
                  "lookup do not change; 0 means no cap (default: 262144 on cpu, 0 on cuda)")
      ->check(number_at_least(0))
      ->type_name("N");
  cmd->add_option("--ids", args->ids,
                  "Row popularity of the ids: 'uniform' or 'zipf' (default: uniform)")
      ->check(CLI::IsMember({"uniform", "zipf"}))
      ->type_name("DIST");
  CLI::Option* alpha =
      cmd->add_option("--zipf-alpha", args->zipf_alpha,
                      "Zipf exponent for --ids zipf (refused with uniform ids), > 0 and != 1 "
                      "(default: 1.05)")
          ->check(number_above(0))
          ->check(number_other_than(
              1, "the Zipf sampler divides by 1 - alpha (for an exponent near 1 use 0.99 or 1.01)"))
          ->type_name("A");
  cmd->add_option(
         "--pooling", args->pooling,
         "Ids per bag: 'fixed' (the pooling factor, bags differ by at most one) or 'poisson' "
         "(default: fixed)")
      ->check(CLI::IsMember({"fixed", "poisson"}))
      ->type_name("DIST");
  cmd->add_option("--seed", args->seed,
                  "Seed of ids, weights and gradients; same seed, same inputs on every "
                  "backend (default: 1)")
      ->type_name("S");
  cmd->add_option("--lr", args->learning_rate,
                  "Learning rate of the fused optimizer (default: 0.01)")
      ->check(finite_number())
      ->type_name("LR");
  cmd->add_flag(
      "--verify", args->verify,
      "Backends other than cpu compare their results with the CPU reference and report wrong "
      "elements (default: off)");
  add_output_option(cmd, &args->output, "the result JSON (docs/replay.md)", "none");
  add_compact_flag(cmd, &args->compact);
  add_quiet_flag(cmd, &args->quiet, "progress, the table and the recorded run");
  add_store_options(cmd, &args->store);
  add_torchrec_version_option(cmd, &args->torchrec_version);
  cmd->footer(example_footer(
      "  shardlab plan data/scenarios/tiny_2gpu.json -o plan.json\n"
      "  shardlab replay data/scenarios/tiny_2gpu.json plan.json\n"
      "  shardlab replay dlrm.json plan.json --ranks 0-3 --iterations 10 --ids zipf -o "
      "replay.json\n"
      "  shardlab replay dlrm.json plan.json --backend cuda --max-rows 0 --pooling poisson"));
  cmd->callback([args, alpha]() {
    // An exponent the run would not use is a mistake, not a setting to ignore.
    if (alpha->count() > 0 && args->ids != "zipf") {
      throw CLI::ValidationError("--zipf-alpha",
                                 "applies to --ids zipf only; these ids are " + args->ids);
    }
  });
  verbs.add(cmd, [args] { return run_replay(*args); });
}

}  // namespace shardlab::cli
