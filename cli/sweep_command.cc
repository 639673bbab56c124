// shardlab sweep: an nccl-tests-style bandwidth sweep of one collective on a
// scenario's cluster, simulated with the same flows and NCCL-like layer as
// 'shardlab simulate' (docs/simulation.md "Collectives").

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "calibration_option.h"
#include "cli_common.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/sim_json.h"
#include "shardlab/sim/collective_model.h"

namespace shardlab::cli {
namespace {

struct SweepArgs {
  std::string scenario;
  std::string collective = "all_reduce";
  std::string min_bytes = "8";
  std::string max_bytes = "1 GiB";
  double factor = 2.0;
  std::string output;
  bool compact = false;
  std::string calibration;
};

constexpr double kGbpsPerBytesPerMs = 1e-6;

Result<double> parse_size(const std::string& text, const std::string& option) {
  const auto too_small = [&] {
    return Status::invalid_argument(option + ": must be at least 1 byte, got " + shown(text));
  };
  // A plain number is bytes.
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() && *end == '\0' && std::isfinite(v)) {
    if (v < 1) return too_small();
    if (std::floor(v) != v)
      return Status::invalid_argument(option + ": not a whole number of bytes: " + shown(text));
    if (v > static_cast<double>(std::numeric_limits<int64_t>::max()))
      return Status::invalid_argument(option +
                                      ": too large for a 64-bit byte count: " + shown(text));
    return v;
  }
  Result<int64_t> bytes = data::parse_size_string(text);
  if (!bytes.is_ok()) return Status::invalid_argument(option + ": " + bytes.status().message());
  if (*bytes < 1) return too_small();
  return static_cast<double>(*bytes);
}

std::optional<sim::CollectiveKind> parse_kind(const std::string& s) {
  if (s == "all_reduce") return sim::CollectiveKind::kAllReduce;
  if (s == "all_to_all") return sim::CollectiveKind::kAllToAll;
  if (s == "reduce_scatter") return sim::CollectiveKind::kReduceScatter;
  if (s == "all_gather") return sim::CollectiveKind::kAllGather;
  return std::nullopt;
}

int run_sweep(const SweepArgs& args) {
  // The output never replaces an input (a symlink to one included).
  const bool distinct = VerbFiles()
                            .input(args.scenario, "the scenario")
                            .input(args.calibration, "the calibration profile")
                            .output(args.output, "the sweep output")
                            .distinct();
  if (!distinct) return kExitInvalid;
  Result<planner::Scenario> scenario = load_scenario_or_report(args.scenario, "");
  if (!scenario.is_ok()) return exit_status(scenario.status());
  Result<CalibrationChoice> calibration = CalibrationChoice::load(args.calibration, &*scenario);
  if (!calibration.is_ok()) {
    print_error(calibration.status().message());
    return exit_status(calibration.status());
  }
  Result<double> lo = parse_size(args.min_bytes, "--min-bytes");
  Result<double> hi = parse_size(args.max_bytes, "--max-bytes");
  for (const Result<double>* r : {&lo, &hi}) {
    if (!r->is_ok()) {
      print_error(r->status().message());
      return kExitInvalid;
    }
  }
  if (*hi < *lo) {
    print_error("--max-bytes is below --min-bytes");
    return kExitInvalid;
  }
  const sim::CollectiveKind kind = *parse_kind(args.collective);
  std::vector<double> sizes;
  for (double s = *lo; s <= *hi * (1 + 1e-12); s *= args.factor) sizes.push_back(std::round(s));
  Result<std::vector<sim::SweepPoint>> points =
      sim::collective_sweep(*scenario, kind, sizes, calibration->get());
  if (!points.is_ok()) {
    print_error(points.status().message());
    return exit_status(points.status());
  }
  const int ranks = scenario->topology.world_size;
  if (!args.output.empty()) {
    const std::string json =
        data::sweep_to_json(scenario->name, kind, ranks, *points,
                            args.compact ? data::kCompactJson : data::kDefaultJsonIndent);
    if (Status w = write_output(args.output, json); !w.is_ok()) {
      print_error(w.message());
      return exit_status(w);
    }
    if (args.output == "-") return kExitOk;
  }
  const std::string layer = scenario->gpu ? "NCCL-like layer of preset " + scenario->gpu->name
                            : calibration->get()
                                ? "calibrated communication"
                                : "plain flows (no GPU preset: line rate, link latencies)";
  std::cout << fmt::format("# {} on {} ranks of {}: {}\n", args.collective, ranks,
                           shown(scenario->name), layer);
  // The algorithm column as wide as its longest name ("pairwise"), at least 6.
  size_t width = 6;
  for (const sim::SweepPoint& p : *points)
    width = std::max(width, data::sweep_algorithm_name(kind, p.algorithm).size());
  std::cout << fmt::format("# {:>12} {:>12} {:>12} {:>12}  {:<{}} {}\n", "size (B)", "time (us)",
                           "algbw (GB/s)", "busbw (GB/s)", "algo", width, "proto");
  for (const sim::SweepPoint& p : *points) {
    std::cout << fmt::format(
        "  {:>12.0f} {:>12.2f} {:>12.2f} {:>12.2f}  {:<{}} {}\n", p.bytes, p.time_ms * 1000.0,
        p.algbw * kGbpsPerBytesPerMs, p.busbw * kGbpsPerBytesPerMs,
        data::sweep_algorithm_name(kind, p.algorithm), width, planner::to_string(p.protocol));
  }
  return kExitOk;
}

}  // namespace

void add_sweep_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Sweep one collective over message sizes, as nccl-tests prints it.\n"
      "Runs the collective alone among all ranks of the scenario's cluster, with the flows and "
      "the\n"
      "NCCL-like algorithm/protocol layer of 'shardlab simulate' (a GPU preset, topology.gpu, "
      "turns the\n"
      "layer on), and prints per size the time, algorithm bandwidth and bus bandwidth "
      "(nccl-tests'\n"
      "factors: all-reduce 2(n-1)/n, the others (n-1)/n) with the algorithm and protocol chosen\n"
      "(docs/simulation.md \"Collectives\").");
  cmd->add_option("scenario", args->scenario, "Scenario file (JSON, docs/scenario-format.md)")
      ->required();
  cmd->add_option("--collective", args->collective,
                  "all_reduce, all_to_all, reduce_scatter or all_gather (default: all_reduce)")
      ->check(CLI::IsMember({"all_reduce", "all_to_all", "reduce_scatter", "all_gather"}))
      ->type_name("KIND");
  cmd->add_option("--min-bytes", args->min_bytes,
                  "Smallest size, bytes or a unit string (default: 8)")
      ->type_name("SIZE");
  cmd->add_option("--max-bytes", args->max_bytes, "Largest size (default: \"1 GiB\")")
      ->type_name("SIZE");
  cmd->add_option("--factor", args->factor, "Size step factor, > 1 (default: 2)")
      ->check(number_in_range(1.0001, 1e6))
      ->type_name("F");
  cmd->add_option("-o,--output", args->output,
                  "Also write the sweep as JSON to FILE ('-': stdout only)")
      ->type_name("FILE");
  cmd->add_flag("--compact", args->compact, "Write the JSON on one line");
  add_calibration_option(
      cmd, &args->calibration,
      "Time the collective with the intra- and inter-host communication bandwidth and latency "
      "fitted in this calibration profile (written by 'shardlab calibrate'; docs/calibration.md) "
      "in place of the NCCL-like layer's; a profile without fitted communication changes "
      "nothing (default: none)");
  cmd->footer(
      example_footer("  shardlab sweep data/scenarios/validation/mlperf_dcnv2_h100_sxm.json "
                     "--collective all_to_all\n"
                     "  shardlab sweep dlrm.json --collective all_reduce --min-bytes 1KiB "
                     "--max-bytes 4GiB -o sweep.json"));
  verbs.add(cmd, [args] { return run_sweep(*args); });
}

}  // namespace shardlab::cli
