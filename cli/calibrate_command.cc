// shardlab calibrate: fit the cost model's parameters to the measurements of
// replay runs in the run store, print TorchRec's and the fitted values with
// the error of both on held-out measurements, write the profile and record a
// calibrate run (kernels/calibration.h, data/calibration_json.h).

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "cli_common.h"
#include "plan_source.h"
#include "run_recording.h"
#include "shardlab/data/calibration_json.h"
#include "shardlab/data/gpu_presets.h"
#include "shardlab/data/message_text.h"
#include "shardlab/data/run_records.h"
#include "shardlab/data/run_store.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/kernels/calibration.h"
#include "shardlab/planner/estimators.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/topology.h"
#include "shardlab/trace/trace_calibration.h"
#include "shardlab/trace/trace_measurements.h"

namespace shardlab::cli {
namespace {

struct CalibrateArgs {
  std::optional<std::string> runs;      // "3,5-7"; absent: every replay run
  std::vector<std::string> from_trace;  // profiler traces instead of runs
  int local_world_size = 8;             // with --from-trace: GPUs per host
  std::string scenario;                 // with --from-trace: the traced job's model (lookups)
  std::string plan;                     // with --scenario: the plan it ran; empty: plan it
  std::string gpu;  // with --from-trace: the GPU preset of the GEMM fit; empty: found
  StoreOptions store;
  double holdout = kernels::CalibrationOptions{}.holdout_fraction;
  uint64_t seed = kernels::CalibrationOptions{}.seed;
  std::string name;    // empty: "runs-<ids>"
  std::string output;  // profile JSON; empty: none
  bool compact = false;
  bool quiet = false;
};

int fail(const Status& st) { return report_failure(st); }

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The source runs and what the fit needs from them.
struct Sources {
  std::vector<int64_t> ids;
  std::vector<kernels::Measurement> measurements;
  std::string device;         // "cpu: <model>", joined with "; " when runs differ
  std::string scenario_name;  // when every run has the same scenario, else empty
  // The scenario text the runs were replayed with, when every run has the
  // same (equal hashes); else empty. The calibrate run records it, so its
  // scenario hash is its sources'.
  std::string scenario_json;
  std::optional<planner::Scenario> scenario;  // the first run's, for TorchRec's constants
  std::vector<std::string> traces;            // --from-trace: the files read
  std::vector<std::string> trace_notes;       // --from-trace: what was skipped
  trace::TraceRecords records;                // --from-trace: what the traces hold
};

// The traces' records (trace_calibration.h); with --scenario its lookups
// too, under the plan of --plan or the scenario's own.
Result<Sources> read_trace_sources(const CalibrateArgs& args) {
  Sources s;
  std::optional<planner::PlannerResult> planned;
  if (!args.scenario.empty()) {
    Result<planner::Scenario> scenario = data::load_scenario_file(args.scenario);
    if (!scenario) return scenario.status();
    planned =
        args.plan.empty() ? planner::plan(*scenario) : read_and_rate_plan(*scenario, args.plan);
    if (!planned->ok()) return planned->error;
    s.scenario_name = scenario->name;
    s.scenario_json = scenario_text(args.scenario);
    s.scenario = std::move(scenario).value();
  }
  Result<trace::TraceRecords> read =
      trace::read_trace_records(args.from_trace, args.local_world_size,
                                s.scenario ? &*s.scenario : nullptr, planned ? &*planned : nullptr);
  if (!read) return read.status();
  s.records = std::move(read).value();
  s.measurements = s.records.measurements;
  s.device = s.records.device;
  s.traces = s.records.files;
  return s;
}

Result<Sources> read_sources(const data::RunStore& store, const CalibrateArgs& args) {
  Sources s;
  if (args.runs) {
    auto ids =
        parse_id_list(*args.runs, IdListSpec{.option = "--runs",
                                             .what = "run id",
                                             .minimum = 1,
                                             .maximum = std::numeric_limits<int64_t>::max()});
    if (!ids) return ids.status();
    s.ids = std::move(*ids);
  } else {
    auto runs = store.list_runs(data::RunFilter{.kind = data::RunKind::kReplay});
    if (!runs) return runs.status();
    for (const data::RunSummary& r : *runs) s.ids.push_back(r.id);
    std::sort(s.ids.begin(), s.ids.end());
    if (s.ids.empty()) {
      return Status::invalid_argument(fmt::format(
          "{}: no replay runs to calibrate from; run `shardlab replay` first", store.path()));
    }
  }
  std::vector<std::string> devices;
  bool same_scenario = true;
  bool same_text = true;
  std::string first_hash;
  for (int64_t id : s.ids) {
    auto run = store.get_run(id);
    if (!run) return run.status();
    const data::RunSummary& sum = run->summary;
    if (run->measurements.empty()) {
      return Status::invalid_argument(
          fmt::format("{}: run {} ({}) has no measurements; calibrate fits the measurements of "
                      "`shardlab replay` runs",
                      store.path(), id, data::to_string(sum.kind)));
    }
    const std::string device = data::device_label(sum);
    if (std::find(devices.begin(), devices.end(), device) == devices.end())
      devices.push_back(device);
    if (id == s.ids.front()) {
      s.scenario_name = sum.scenario_name;
      s.scenario_json = run->scenario_json;
      first_hash = sum.scenario_hash;
      auto scenario =
          data::parse_scenario(run->scenario_json, fmt::format("run {}'s scenario", id));
      if (scenario.is_ok()) {
        s.scenario = std::move(scenario).value();
        // The model the run was replayed with, which a --torchrec-version may
        // have set apart from the file.
        if (auto v = planner::parse_torchrec_version(sum.torchrec_version))
          s.scenario->planner.torchrec_version = *v;
      }
    } else {
      if (sum.scenario_name != s.scenario_name) same_scenario = false;
      if (sum.scenario_hash != first_hash) same_text = false;
    }
    s.measurements.insert(s.measurements.end(), std::make_move_iterator(run->measurements.begin()),
                          std::make_move_iterator(run->measurements.end()));
  }
  if (!same_scenario) s.scenario_name.clear();
  if (!same_scenario || !same_text) s.scenario_json.clear();
  for (const std::string& d : devices) s.device += (s.device.empty() ? "" : "; ") + d;
  return s;
}

// TorchRec's constants for the "before" model and the fallbacks: the first
// source run's topology (what `plan` rated that scenario with), else defaults.
kernels::CalibrationOptions fit_options(const CalibrateArgs& args, const Sources& s) {
  kernels::CalibrationOptions o =
      s.scenario ? kernels::before_model_options(*s.scenario) : kernels::CalibrationOptions{};
  o.holdout_fraction = args.holdout;
  o.seed = args.seed;
  return o;
}

std::string gib_per_s(double bytes_per_ms) {
  return fmt::format("{:.2f} GiB/s", bytes_per_ms * 1000.0 / (1 << 30));
}
std::string pct(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", *v) : std::string("-");
}
std::string ms(double v) { return fmt::format("{:.4g} ms", v); }

void print_parameters(std::ostream& out, const kernels::CalibrationFit& fit,
                      const kernels::CalibrationOptions& o) {
  out << fmt::format("  {:<32} {:>18} {:>18}\n", "parameter", "TorchRec", "fitted");
  for (const kernels::CalibrationParameter& p :
       kernels::calibration_parameters(fit.calibration, fit.groups, o)) {
    const auto show = [&p](double v) {
      switch (p.unit) {
        case kernels::CalibrationParameter::Unit::kBandwidth:
          return gib_per_s(v);
        case kernels::CalibrationParameter::Unit::kMs:
          return ms(v);
        case kernels::CalibrationParameter::Unit::kRatio:
          return fmt::format("{:.4g}", v);
      }
      return std::string();
    };
    out << fmt::format("  {:<32} {:>18} {:>18}\n", p.name,
                       p.torchrec ? show(*p.torchrec) : std::string("-"),
                       p.fitted ? show(*p.fitted) : std::string("TorchRec's"));
  }
  out << "  (TorchRec's compute bandwidth: the device's for the kernel over the TW/CW/TWCW block "
         "penalty;\n"
         "   RW, TWRW and DP shards take no penalty)\n";
}

// The traces fitted: the GEMMs on the preset --gpu names, else the
// scenario's GPU, else the one the traces' device name names.
Result<trace::TraceCalibration> fit_traces(const CalibrateArgs& args, const Sources& s,
                                           const kernels::CalibrationOptions& options) {
  const Result<data::PresetCatalog>& catalog = data::builtin_gpu_presets();
  if (!catalog) return catalog.status();
  std::string why;
  const std::string device =
      s.records.device == trace::kUnknownDevice ? std::string() : s.records.device;
  Result<const data::GpuPreset*> preset = catalog->gemm_fit_preset(
      args.gpu, s.scenario && s.scenario->gpu ? s.scenario->gpu->name : std::string(), device,
      &why);
  if (!preset) return Status::invalid_argument("--gpu: " + preset.status().message());
  const data::GpuPreset* p = *preset;
  return trace::fit_trace_records(
      s.records, options, p ? &p->spec : nullptr, p ? p->name : std::string(),
      p ? p->hbm_mem_bw : 0.0,
      why + "; name the GPU with --gpu (presets: " + catalog->names() + ")");
}

void print_gemm_report(std::ostream& out, const Sources& s, const trace::TraceCalibration& g) {
  if (g.gemms.empty()) return;
  out << fmt::format("dense GEMMs ({} shapes measured) against the {} roofline:\n",
                     s.records.gemms.size(), g.gemm_gpu);
  out << fmt::format("  {:<10} {:>10} {:>5} {:>5} {:>8} {:>8} {:>9}\n", "arithmetic", "eff preset",
                     "fit", "held", "before", "after", "fit after");
  for (const kernels::GemmFit& f : g.gemms) {
    out << fmt::format("  {:<10} {:>10.4g} {:>5} {:>5} {:>8} {:>8} {:>9}\n",
                       planner::to_string(f.precision), f.preset, f.fit_count, f.held_out,
                       pct(f.mape_before), pct(f.mape_after), pct(f.fit_mape_after));
  }
  out << "  (MAPE before: the preset's roofline (its efficiency, no fixed kernel time); after: the "
         "fitted\n   efficiency and kernel time, in the parameters above)\n";
}

void print_report(std::ostream& out, const Sources& s, const kernels::CalibrationFit& fit,
                  const kernels::CalibrationOptions& o) {
  const std::string from =
      s.traces.empty()
          ? fmt::format("run{} {}", s.ids.size() == 1 ? "" : "s", format_id_list(s.ids))
          : fmt::format("{} profiler trace{}", s.traces.size(), s.traces.size() == 1 ? "" : "s");
  out << fmt::format(
      "calibrated from {} on {}: {} measurements, {} fitted, {} held out, {} skipped\n", from,
      s.device, s.measurements.size(), fit.fit_count, fit.held_out_count, fit.skipped);
  std::string constants;
  if (s.scenario && !s.traces.empty()) {
    constants = fmt::format(
        "the traced job's scenario {} ({}), whose plan shares each rank's "
        "lookup time among its shards",
        data::quoted(s.scenario_name), planner::to_string(o.compute_device));
  } else if (s.scenario) {
    constants = fmt::format("run {}'s scenario topology ({})", s.ids.front(),
                            planner::to_string(o.compute_device));
  } else {
    constants = s.traces.empty()
                    ? std::string("TorchRec's defaults (the run's scenario could not be read)")
                    : std::string(
                          "TorchRec's defaults (traces carry no scenario; --scenario "
                          "names the job's)");
  }
  out << fmt::format("TorchRec's constants from {}\n", constants);
  print_parameters(out, fit, o);
  out << fmt::format("held-out error (MAPE of {} records): TorchRec {}, calibrated {}\n",
                     fit.held_out_count, pct(fit.mape_before), pct(fit.mape_after));
  out << fmt::format("fit residual (MAPE of {} records): TorchRec {}, calibrated {}\n",
                     fit.fit_count, pct(fit.fit_mape_before), pct(fit.fit_mape_after));
  out << fmt::format("  {:<28} {:>6} {:>6} {:>10} {:>10} {:>10}\n", "group", "fit", "held",
                     "before", "after", "fit after");
  for (const kernels::CalibrationGroup& g : fit.groups) {
    out << fmt::format("  {:<28} {:>6} {:>6} {:>10} {:>10} {:>10}{}\n", g.name, g.fit_count,
                       g.held_out, pct(g.mape_before), pct(g.mape_after), pct(g.fit_mape_after),
                       g.fitted ? "" : "  (kept)");
  }
  for (const std::string& n : fit.notes) out << "note: " << n << '\n';
  for (const std::string& n : s.trace_notes) out << "note: " << n << '\n';
}

int record_calibration(const CalibrateArgs& args, const Sources& s,
                       const kernels::CalibrationFit& fit, const data::CalibrationProfile& profile,
                       const std::string& profile_json, RunRecorder& recorder) {
  data::NewRun run;
  run.kind = data::RunKind::kCalibrate;
  run.scenario_name = s.scenario_name;
  run.scenario_json = s.scenario_json;
  if (s.scenario)
    run.torchrec_version = std::string(planner::to_string(s.scenario->planner.torchrec_version));
  run.device = s.device;
  run.inputs = s.ids;
  // A fit of traces keeps its records (collectives and lookups; the GEMMs are
  // the profile's own) with it, as a replay keeps what it measured: the
  // workbench draws them against both models.
  if (!s.traces.empty()) run.measurements = s.measurements;
  // Held-out errors when anything was held out, else the fit's own.
  const bool held = fit.mape_before.has_value();
  const double before = held ? *fit.mape_before : fit.fit_mape_before.value_or(0.0);
  const double after = held ? *fit.mape_after : fit.fit_mape_after.value_or(0.0);
  run.summary_json = data::summary_json({{"mape_before", before},
                                         {"mape_after", after},
                                         {"held_out", static_cast<int64_t>(fit.held_out_count)},
                                         {"fit_count", static_cast<int64_t>(fit.fit_count)},
                                         {"profile", profile.name},
                                         // The split, so readers can tell held-out records.
                                         {"holdout_fraction", args.holdout},
                                         {"seed", static_cast<int64_t>(args.seed)}});
  run.calibration = data::CalibrationRow{.name = profile.name,
                                         .profile_json = profile_json,
                                         .mape_before = before,
                                         .mape_after = after,
                                         .fit_count = fit.fit_count,
                                         .held_out_count = fit.held_out_count};
  return recorder.record(run);
}

// A calibration from profiler traces: nothing is read from the run store,
// the calibrate run still goes into it.
int run_calibrate_from_traces(const CalibrateArgs& args) {
  VerbFiles files;
  files.store(args.store).output(args.output, "the profile output");
  for (const std::string& t : args.from_trace) files.input(t, "a trace of --from-trace");
  files.input(args.scenario, "the scenario of --scenario").input(args.plan, "the plan of --plan");
  if (!files.distinct()) return kExitInvalid;
  Result<Sources> sources = read_trace_sources(args);
  if (!sources) return fail(sources.status());
  Result<RunRecorder> recorder = RunRecorder::start(args.store, args.quiet);
  if (!recorder) return fail(recorder.status());
  const kernels::CalibrationOptions options = fit_options(args, *sources);
  Result<trace::TraceCalibration> fitted = fit_traces(args, *sources, options);
  if (!fitted) return fail(fitted.status());
  const kernels::CalibrationFit* fit = &fitted->fit;
  sources->trace_notes = fitted->notes;
  const std::string name = args.name.empty() ? "traces" : args.name;
  data::CalibrationProfile profile = data::make_profile(*fit, name, utc_now(), sources->device, {});
  for (const std::string& t : sources->traces) profile.notes.push_back("measured in " + t);
  const std::string json = data::calibration_to_json(profile, args.compact ? -1 : 2);
  if (!args.quiet) {
    std::ostream& out = args.output == "-" ? std::cerr : std::cout;
    print_report(out, *sources, *fit, options);
    print_gemm_report(out, *sources, *fitted);
  }
  if (!args.output.empty()) {
    if (Status w = write_output(args.output, json); !w.is_ok()) return fail(w);
    if (!args.quiet && args.output != "-")
      std::cerr << fmt::format("wrote profile {} to {}\n", data::quoted(name), shown(args.output));
  }
  return record_calibration(args, *sources, *fit, profile, data::calibration_to_json(profile, -1),
                            *recorder);
}

int run_calibrate(const CalibrateArgs& args) {
  if (!args.from_trace.empty()) return run_calibrate_from_traces(args);
  const DbLocation where = resolve_db(args.store.db);
  const bool distinct = VerbFiles()
                            .input(where.path, "the run store")
                            .output(args.output, "the profile output")
                            .distinct();
  if (!distinct) return kExitInvalid;
  std::error_code ec;
  if (!std::filesystem::exists(where.path, ec)) {
    return fail(
        Status::invalid_argument(fmt::format("{}: no run store here; run `shardlab replay` first "
                                             "(--db or SHARDLAB_DB name another file)",
                                             shown(where.path))));
  }
  // The measurements come from the store; the calibrate run goes back into it.
  Result<data::RunStore> store = data::RunStore::open(where.path, data::StoreAccess::kRead);
  if (!store) return fail(store.status());
  Result<RunRecorder> recorder = RunRecorder::start(args.store, args.quiet);
  if (!recorder) return fail(recorder.status());
  Result<Sources> sources = read_sources(*store, args);
  if (!sources) return fail(sources.status());

  const kernels::CalibrationOptions options = fit_options(args, *sources);
  Result<kernels::CalibrationFit> fit = kernels::fit_calibration(sources->measurements, options);
  if (!fit) return fail(fit.status());

  const std::string name = args.name.empty() ? "runs-" + format_id_list(sources->ids) : args.name;
  const data::CalibrationProfile profile =
      data::make_profile(*fit, name, utc_now(), sources->device, sources->ids);
  const std::string json = data::calibration_to_json(profile, args.compact ? -1 : 2);
  // stdout may carry the profile ("-o -"); the report then goes to stderr.
  if (!args.quiet)
    print_report(args.output == "-" ? std::cerr : std::cout, *sources, *fit, options);
  if (!args.output.empty()) {
    if (Status w = write_output(args.output, json); !w.is_ok()) return fail(w);
    if (!args.quiet && args.output != "-") {
      std::cerr << fmt::format("wrote profile {} to {}\n", data::quoted(name), shown(args.output));
    }
  }
  return record_calibration(args, *sources, *fit, profile, data::calibration_to_json(profile, -1),
                            *recorder);
}

}  // namespace

void add_calibrate_command(CLI::App& app, VerbRuns& verbs) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Fit the cost model's parameters to the measurements of replay runs in the run store.\n"
      "Fits, by non-negative least squares, the effective lookup bandwidth per compute kernel and\n"
      "dim class, a fixed overhead and a backward multiplier per kernel, and latency and bandwidth "
      "of\n"
      "intra- and inter-host collectives; holds out a share of the measurements and prints the "
      "mean\n"
      "absolute percentage error of TorchRec's constants and of the fit on them "
      "(docs/calibration.md).\n"
      "Writes the profile to -o for 'plan', 'options' and 'simulate --calibration PROFILE', and "
      "records\n"
      "a calibrate run with the profile. With --from-trace it fits PyTorch profiler traces of "
      "real\n"
      "GPU runs instead: their collectives, their dense model's GEMMs and, given --scenario, "
      "their\n"
      "lookups. Exit status: 0 calibrated, 1 internal error, 2 no usable runs or traces, bad\n"
      "arguments or store, or a file that cannot be written.");
  cmd->add_option(
         "--runs", args->runs,
         "Replay runs to fit, as ids and ranges: 3,5-7 (default: every replay run in the store)")
      ->type_name("IDS");
  CLI::Option* traces =
      cmd->add_option("--from-trace", args->from_trace,
                      "Fit to PyTorch profiler traces of real training runs instead of replay runs "
                      "(files or folders, as 'shardlab trace summarize' reads them): their "
                      "collectives' sizes and GPU times, and the matrix products of their dense "
                      "model with recorded shapes (docs/calibration.md \"From profiler traces\")")
          ->type_name("PATH");
  traces->excludes(cmd->get_option("--runs"));
  cmd->add_option("--scenario", args->scenario,
                  "With --from-trace: the traced job's scenario, so its embedding lookups are "
                  "fitted too (each rank's forward and backward GPU time shared among the shards "
                  "the plan gives it; docs/calibration.md \"Lookups from traces\")")
      ->needs(traces)
      ->type_name("FILE");
  cmd->add_option("--plan", args->plan,
                  "With --scenario: the plan the job ran (either plan format; default: the "
                  "scenario's own plan)")
      ->needs(cmd->get_option("--scenario"))
      ->type_name("FILE");
  cmd->add_option("--gpu", args->gpu,
                  "With --from-trace: the GPU preset (shardlab presets) whose GEMM roofline the "
                  "traced matrix products fit (default: --scenario's topology.gpu, else the preset "
                  "the trace's device name names; docs/calibration.md \"GEMMs from traces\")")
      ->needs(cmd->get_option("--from-trace"))
      ->type_name("NAME");
  cmd->add_option("--local-world-size", args->local_world_size,
                  "With --from-trace: GPUs per host of the traced job, which tells collectives "
                  "inside a host from those across (default: 8)")
      ->check(CLI::Range(1, 65536))
      ->type_name("N");
  add_store_options(cmd, &args->store);
  cmd->add_option("--holdout", args->holdout,
                  "Share of each group's measurements held out of the fit to measure its error "
                  "(default: 0.2)")
      ->check(number_in_range(0.0, 0.95))
      ->type_name("FRACTION");
  cmd->add_option("--seed", args->seed, "Seed of the holdout split (default: 1)")->type_name("N");
  cmd->add_option("--name", args->name,
                  "Profile name (default: runs-<ids>; traces with --from-trace)")
      ->type_name("NAME");
  add_output_option(cmd, &args->output, "the profile JSON", "none; the store keeps it too");
  add_compact_flag(cmd, &args->compact);
  add_quiet_flag(cmd, &args->quiet, "the report and the recorded run");
  cmd->footer(example_footer(
      "  shardlab replay dlrm.json plan.json && shardlab calibrate -o calibration.json\n"
      "  shardlab calibrate --runs 3,5-7 --holdout 0.3 --name h100 -o h100.json\n"
      "  shardlab calibrate --from-trace traces/ --local-world-size 8 -o a100.json\n"
      "  shardlab calibrate --from-trace traces/ --gpu a100-sxm4-80gb -o a100-gemms.json\n"
      "  shardlab calibrate --from-trace job/ --scenario job.json --plan job.plan.json -o "
      "v100.json\n"
      "  shardlab plan dlrm.json --calibration h100.json -o plan.json"));
  verbs.add(cmd, [args] { return run_calibrate(*args); });
}

}  // namespace shardlab::cli
