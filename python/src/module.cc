// _shardlab: the core's verbs for Python (python/shardlab/__init__.py wraps
// them; docs/python.md). Every function takes documents as text, calls the
// same core functions the CLI calls, and returns the JSON text the CLI writes.
// Failures raise _shardlab.CoreError(kind, message), kind one of
// "invalid_scenario", "planning_failed:<TorchRec error type>", "not_found",
// "unavailable", "io", "internal". The GIL is released while the core works;
// Ctrl-C stops planning and comparisons (KeyboardInterrupt), and optimize's
// search (which then returns its best plan).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "shardlab/data/calibration_choice.h"
#include "shardlab/data/compare_json.h"
#include "shardlab/data/gpu_presets.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/run_records.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/sim_json.h"
#include "shardlab/kernels/calibration.h"
#include "shardlab/planner/placement_fit.h"
#include "shardlab/planner/planner.h"
#include "shardlab/planner/stats.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/torchrec_version.h"
#include "shardlab/search/optimize_run.h"
#include "shardlab/sim/compare.h"
#include "shardlab/sim/simulation.h"
#include "shardlab/trace/against.h"
#include "shardlab/trace/trace_calibration.h"
#include "shardlab/trace/trace_measurements.h"
#include "shardlab/trace/trace_summary.h"

namespace py = pybind11;

namespace {

using shardlab::Result;
using shardlab::Status;
using shardlab::StatusCode;
namespace planner = shardlab::planner;
namespace data = shardlab::data;
namespace sim = shardlab::sim;
namespace search = shardlab::search;
namespace trace = shardlab::trace;
namespace kernels = shardlab::kernels;

// The C++ side of _shardlab.CoreError.
struct CoreError : std::runtime_error {
  CoreError(std::string k, const std::string& message)
      : std::runtime_error(message), kind(std::move(k)) {}
  std::string kind;
};

[[noreturn]] void raise(const Status& st) {
  switch (st.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kCorrupt:
      throw CoreError("invalid_scenario", st.message());
    case StatusCode::kPlanner:
      throw CoreError(std::string("planning_failed:") + shardlab::to_string(st.planner_error()),
                      st.message());
    case StatusCode::kNotFound:
      throw CoreError("not_found", st.message());
    case StatusCode::kUnavailable:
      throw CoreError("unavailable", st.message());
    case StatusCode::kIo:
      throw CoreError("io", st.message());
    default:
      throw CoreError("internal", st.message());
  }
}

// Runs `work(cancel)` on a worker thread with the GIL released, while this
// (Python's) thread checks for signals every 50 ms: Ctrl-C sets `cancel`,
// waits for the work to stop at its next poll, and raises KeyboardInterrupt.
// Core exceptions (none expected) are carried back and rethrown here.
// With `keep` true, Ctrl-C only sets `cancel`: the work returns what it has
// (optimize keeps its best plan) and no KeyboardInterrupt is raised; the
// caller learns of it through `*interrupted_out`.
template <typename Work>
auto interruptible(Work&& work, bool keep = false, bool* interrupted_out = nullptr) {
  std::atomic<bool> cancel{false};
  using T = decltype(work(&cancel));
  std::packaged_task<T()> task([&] { return work(&cancel); });
  std::future<T> done = task.get_future();
  std::thread worker(std::move(task));
  bool interrupted = false;
  while (true) {
    bool ready = false;
    {
      py::gil_scoped_release unlocked;
      ready = done.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready;
    }
    if (ready) break;
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted = true;
      cancel.store(true);
    }
  }
  worker.join();
  if (interrupted_out != nullptr) *interrupted_out = interrupted;
  if (interrupted && !keep) throw py::error_already_set();
  if (interrupted) PyErr_Clear();  // the KeyboardInterrupt PyErr_CheckSignals set
  return done.get();
}

// The scenario from a file (`is_path`) or from JSON text named `origin`,
// with the TorchRec version given, if any (as --torchrec-version).
planner::Scenario scenario_of(const std::string& source, bool is_path, const std::string& origin,
                              const std::string& torchrec_version) {
  Result<planner::Scenario> s =
      is_path ? data::load_scenario_file(source) : data::parse_scenario(source, origin);
  if (!s.is_ok()) raise(s.status());
  planner::Scenario scenario = std::move(s).value();
  if (!torchrec_version.empty()) {
    const std::optional<planner::TorchRecVersion> v =
        planner::parse_torchrec_version(torchrec_version);
    if (!v) {
      raise(Status::invalid_argument("torchrec_version: \"" + torchrec_version +
                                     "\" is not a TorchRec version ShardLab reproduces "
                                     "(2024-02, 2026-08)"));
    }
    scenario.planner.torchrec_version = *v;
  }
  return scenario;
}

// The calibration a call rates shards with (data/calibration_choice.h):
// `kind` "" none, "path" a profile file, "text" a profile's JSON, "torchrec"
// TorchRec's constants even under a GPU preset (dropped from `scenario`).
data::CalibrationChoice calibration_of(const std::string& kind, const std::string& value,
                                       planner::Scenario* scenario) {
  Result<data::CalibrationChoice> c =
      kind == "text"   ? data::CalibrationChoice::parse(value, "<calibration>")
      : kind == "path" ? data::CalibrationChoice::load(value, scenario)
      : kind == "torchrec"
          ? data::CalibrationChoice::load(data::CalibrationChoice::kTorchRecConstants, scenario)
          : data::CalibrationChoice::load("", scenario);
  if (!c.is_ok()) raise(c.status());
  return std::move(c).value();
}

// A plan for `scenario`: the planner's, or `plan_text` placed and re-rated,
// refused when over capacity (as every verb that reads a plan refuses it).
planner::PlannerResult plan_of(const planner::Scenario& scenario,
                               const std::optional<std::string>& plan_text,
                               const planner::CostCalibration* calibration) {
  planner::PlannerResult r;
  if (!plan_text) {
    r = interruptible([&](const std::atomic<bool>* cancel) {
      return planner::plan(scenario,
                           planner::PlannerOptions{.cancel = cancel, .calibration = calibration});
    });
  } else {
    py::gil_scoped_release unlocked;
    r = planner::rate_placement(
        scenario,
        [&](planner::SearchSpace& space) {
          return data::parse_plan(*plan_text, "<plan>", scenario, space, nullptr);
        },
        calibration);
    (void)planner::refuse_over_capacity(r, "<plan>", /*allow=*/false, "make the plan fit");
  }
  if (!r.ok()) raise(r.failure());
  return r;
}

// Every problem at once, as `shardlab validate` prints them: one per line of
// the error's message.
std::string validate(const std::string& source, bool is_path, const std::string& origin) {
  const data::ScenarioCheck check =
      is_path ? data::check_scenario_file(source) : data::check_scenario(source, origin);
  if (check.scenario) return "{\"valid\": true}";
  if (check.problems.size() == 1) raise(check.problems.front());
  // Several problems are the members' (kInvalidArgument), one per line.
  std::string all;
  for (const Status& p : check.problems) all += (all.empty() ? "" : "\n") + p.message();
  raise(Status::invalid_argument(all));
}

std::string plan(const std::string& source, bool is_path, const std::string& origin,
                 const std::string& torchrec_version, const std::string& calibration_kind,
                 const std::string& calibration) {
  planner::Scenario s = scenario_of(source, is_path, origin, torchrec_version);
  const data::CalibrationChoice c = calibration_of(calibration_kind, calibration, &s);
  const planner::PlannerResult r = plan_of(s, std::nullopt, c.get());
  return data::plan_to_json(s, r, data::kCompactJson);
}

// The plan with TorchRec's stats table, for the TorchRec adapter, which logs
// the table as TorchRec's planner does, after a failure too: {"plan": the
// plan JSON or null, "error_kind" and "error_message" ("" without an error),
// "stats": the table's lines joined by newlines}. Invalid input still raises.
std::string plan_with_stats(const std::string& source, bool is_path, const std::string& origin,
                            const std::string& torchrec_version) {
  const planner::Scenario s = scenario_of(source, is_path, origin, torchrec_version);
  const planner::PlannerResult r = interruptible([&](const std::atomic<bool>* cancel) {
    return planner::plan(s, planner::PlannerOptions{.cancel = cancel});
  });
  if (!r.ok() && r.failure().code() != StatusCode::kPlanner) raise(r.failure());
  std::string stats;
  if (r.search_space.has_value()) {
    for (const std::string& line : planner::format_stats(s, r)) stats += line + "\n";
  }
  const std::string rest = data::summary_json(
      {{"error_kind", r.ok() ? std::string()
                             : "planning_failed:" +
                                   std::string(shardlab::to_string(r.failure().planner_error()))},
       {"error_message", r.ok() ? std::string() : r.failure().message()},
       {"stats", stats}});
  const std::string plan = r.ok() ? data::plan_to_json(s, r, data::kCompactJson) : "null";
  return "{\"plan\": " + plan + ", " + rest.substr(1);
}

// The simulation of `plan_text` (the scenario's own plan when none).
sim::SimResult simulated_of(planner::Scenario& s, const std::optional<std::string>& plan_text,
                            int iterations, const data::CalibrationChoice& c) {
  const planner::PlannerResult r = plan_of(s, plan_text, c.get());
  Result<sim::SimResult> simulated = Status::internal("not simulated");
  {
    py::gil_scoped_release unlocked;
    // Measured communication parameters reach the flows too, as in the CLI.
    simulated = sim::simulate(s, *r.search_space, *r.best,
                              sim::SimOptions{.iterations = iterations, .calibration = c.get()});
  }
  if (!simulated.is_ok()) raise(simulated.status());
  return std::move(simulated).value();
}

std::string simulate(const std::string& source, bool is_path, const std::string& origin,
                     const std::optional<std::string>& plan_text, int iterations,
                     const std::string& torchrec_version, const std::string& calibration_kind,
                     const std::string& calibration) {
  planner::Scenario s = scenario_of(source, is_path, origin, torchrec_version);
  const data::CalibrationChoice c = calibration_of(calibration_kind, calibration, &s);
  return data::simulation_to_json(simulated_of(s, plan_text, iterations, c), /*compact=*/true);
}

// `shardlab trace summarize --format json` of `paths` (files or folders).
std::string summarize_traces(const std::vector<std::string>& paths) {
  Result<trace::TraceSummary> summary = Status::internal("not read");
  {
    py::gil_scoped_release unlocked;
    summary = trace::summarize_traces(paths);
  }
  if (!summary.is_ok()) raise(summary.status());
  return trace::summary_to_json(*summary, /*indent=*/-1);
}

// `shardlab simulate ... --against TRACES --against-json -`: the traced ranks
// beside the simulation of the plan (the scenario's own when none).
std::string compare_with_trace(const std::string& source, bool is_path, const std::string& origin,
                               const std::optional<std::string>& plan_text,
                               const std::vector<std::string>& traces, int iterations,
                               const std::string& torchrec_version,
                               const std::string& calibration_kind,
                               const std::string& calibration) {
  planner::Scenario s = scenario_of(source, is_path, origin, torchrec_version);
  const data::CalibrationChoice c = calibration_of(calibration_kind, calibration, &s);
  Result<trace::TraceSummary> measured = Status::internal("not read");
  {
    py::gil_scoped_release unlocked;
    measured = trace::summarize_traces(traces);
  }
  if (!measured.is_ok()) raise(measured.status());
  const sim::SimResult simulated = simulated_of(s, plan_text, iterations, c);
  Result<std::vector<trace::Against>> against =
      trace::compare_with_simulation(*measured, simulated);
  if (!against.is_ok()) raise(against.status());
  return trace::against_to_json(*against, /*indent=*/-1);
}

// `shardlab calibrate --from-trace TRACES [--scenario S [--plan P]] [--gpu G]
// -o -`: the profile, fitted with the same two core steps.
std::string calibrate_from_trace(const std::vector<std::string>& traces, int local_world_size,
                                 const std::optional<std::string>& source, bool is_path,
                                 const std::string& origin,
                                 const std::optional<std::string>& plan_text,
                                 const std::string& gpu, double holdout, uint64_t seed,
                                 const std::string& name) {
  std::optional<planner::Scenario> s;
  std::optional<planner::PlannerResult> planned;
  if (source) {
    s = scenario_of(*source, is_path, origin, "");
    planned = plan_of(*s, plan_text, nullptr);
  }
  Result<trace::TraceRecords> records = Status::internal("not read");
  {
    py::gil_scoped_release unlocked;
    records = trace::read_trace_records(traces, local_world_size, s ? &*s : nullptr,
                                        planned ? &*planned : nullptr);
  }
  if (!records.is_ok()) raise(records.status());
  kernels::CalibrationOptions options =
      s ? kernels::before_model_options(*s) : kernels::CalibrationOptions{};
  options.holdout_fraction = holdout;
  options.seed = seed;
  const Result<data::PresetCatalog>& catalog = data::builtin_gpu_presets();
  if (!catalog.is_ok()) raise(catalog.status());
  std::string why;
  const std::string device =
      records->device == trace::kUnknownDevice ? std::string() : records->device;
  Result<const data::GpuPreset*> preset =
      catalog->gemm_fit_preset(gpu, s && s->gpu ? s->gpu->name : std::string(), device, &why);
  if (!preset.is_ok()) raise(Status::invalid_argument("gpu: " + preset.status().message()));
  const data::GpuPreset* p = *preset;
  Result<trace::TraceCalibration> fitted = Status::internal("not fitted");
  {
    py::gil_scoped_release unlocked;
    fitted = trace::fit_trace_records(
        *records, options, p ? &p->spec : nullptr, p ? p->name : std::string(),
        p ? p->hbm_mem_bw : 0.0,
        why + "; name the GPU with gpu= (presets: " + catalog->names() + ")");
  }
  if (!fitted.is_ok()) raise(fitted.status());
  data::CalibrationProfile profile = data::make_profile(fitted->fit, name, "", records->device, {});
  for (const std::string& f : records->files) profile.notes.push_back("measured in " + f);
  return data::calibration_to_json(profile, -1);
}

std::string options(const std::string& source, bool is_path, const std::string& origin,
                    const std::string& torchrec_version, const std::string& calibration_kind,
                    const std::string& calibration, const std::vector<std::string>& tables,
                    const std::vector<std::string>& sharding_types) {
  planner::Scenario s = scenario_of(source, is_path, origin, torchrec_version);
  Result<data::OptionFilter> filter = data::option_filter(s, tables, sharding_types);
  if (!filter.is_ok()) raise(filter.status());
  const data::CalibrationChoice c = calibration_of(calibration_kind, calibration, &s);
  planner::PlannerResult r;
  {
    py::gil_scoped_release unlocked;
    r = planner::plan(s,
                      planner::PlannerOptions{
                          .enumerate_only = true, .lists_options = true, .calibration = c.get()});
  }
  if (!r.search_space) {
    raise(r.error.is_ok() ? Status::internal("enumeration returned no search space") : r.error);
  }
  return data::options_to_json(s, r, data::kCompactJson, *filter);
}

std::string compare(const std::string& source, bool is_path, const std::string& origin,
                    const std::vector<std::string>& proposers,
                    const std::vector<std::string>& partitioners,
                    const std::vector<std::string>& perf_models, int iterations) {
  const planner::Scenario s = scenario_of(source, is_path, origin, "");
  Result<std::vector<sim::CompareConfig>> grid =
      sim::select_rows(sim::default_compare_grid(), s, proposers, partitioners, perf_models);
  if (!grid.is_ok()) raise(grid.status());
  const sim::Comparison comparison = interruptible([&](const std::atomic<bool>* cancel) {
    return sim::compare_configurations(
        s, *grid,
        sim::CompareOptions{
            .sim = sim::SimOptions{.iterations = iterations, .record_phases = false},
            .cancel = cancel});
  });
  return data::comparison_to_json(s, comparison, /*compact=*/true);
}

// `shardlab optimize`: the plan it writes and what it achieved. Ctrl-C
// stops the search, which keeps its best plan (the start plan when it comes
// before the first move).
std::string optimize(const std::string& source, bool is_path, const std::string& origin,
                     const std::optional<std::string>& plan_text, const std::string& objective,
                     double time_limit_s, int64_t max_evaluations, uint64_t seed,
                     const std::string& torchrec_version, const std::string& calibration_kind,
                     const std::string& calibration) {
  planner::Scenario s = scenario_of(source, is_path, origin, torchrec_version);
  const data::CalibrationChoice c = calibration_of(calibration_kind, calibration, &s);
  if (objective != "simulated" && objective != "torchrec") {
    raise(Status::invalid_argument("objective: \"" + objective +
                                   "\" is not an objective: simulated or torchrec"));
  }
  search::OptimizeRequest request;
  request.objective = objective == "torchrec" ? search::ObjectiveKind::kTorchRec
                                              : search::ObjectiveKind::kSimulated;
  request.time_limit_s = time_limit_s;
  request.max_evaluations = max_evaluations;
  request.seed = seed;
  request.calibration = c.get();
  if (plan_text) {
    request.start_plan = [&](const planner::CostCalibration* calibration) {
      return planner::rate_placement(
          s,
          [&](planner::SearchSpace& space) {
            return data::parse_plan(*plan_text, "<plan>", s, space, nullptr);
          },
          calibration);
    };
  }
  bool interrupted = false;
  Result<std::unique_ptr<search::OptimizeRun>> ran = interruptible(
      [&](const std::atomic<bool>* cancel) {
        search::OptimizeRequest r = request;
        r.cancel = cancel;
        return search::OptimizeRun::run(s, r);
      },
      /*keep=*/true, &interrupted);
  if (!ran.is_ok()) {
    if (interrupted) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
    raise(ran.status());
  }
  const search::OptimizeRun& run = **ran;
  const search::OptimizeResult& result = run.result();
  const search::OptimizeSummary& rated = run.summary();
  // The plan as `shardlab optimize -o` writes it, beside the run's summary.
  std::string out = "{\"plan\": " + data::plan_to_json(s, run.best(), -1);
  out += ", \"summary\": " +
         data::summary_json({{"iteration_ms", rated.best.simulated_ms},
                             {"rating_ms", rated.best.torchrec_ms},
                             {"start_iteration_ms", rated.start.simulated_ms},
                             {"start_rating_ms", rated.start.torchrec_ms},
                             {"reference", std::string(rated.torchrec ? "torchrec" : "start")},
                             {"reference_iteration_ms", rated.reference().simulated_ms},
                             {"gain_pct", rated.gain_pct()},
                             {"objective", objective},
                             {"method", result.method},
                             {"stop", std::string(search::to_string(result.stop))},
                             {"tables_moved", static_cast<int64_t>(result.moved.size())},
                             {"moves", result.moves},
                             {"evaluations", result.evaluations},
                             {"wall_ms", result.wall_seconds * 1e3}});
  return out + "}";
}

}  // namespace

PYBIND11_MODULE(_shardlab, m) {
  m.doc() = "ShardLab's core for Python; use the shardlab package (docs/python.md).";
  static py::exception<CoreError> core_error(m, "CoreError");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CoreError& e) {
      py::object error =
          py::reinterpret_borrow<py::object>(core_error.ptr())(e.kind, std::string(e.what()));
      PyErr_SetObject(core_error.ptr(), error.ptr());
    }
  });
  m.def("validate", &validate, py::arg("source"), py::arg("is_path"), py::arg("origin"));
  m.def("summarize_traces", &summarize_traces, py::arg("paths"));
  m.def("calibrate_from_trace", &calibrate_from_trace, py::arg("traces"),
        py::arg("local_world_size"), py::arg("source"), py::arg("is_path"), py::arg("origin"),
        py::arg("plan"), py::arg("gpu"), py::arg("holdout"), py::arg("seed"), py::arg("name"));
  m.def("compare_with_trace", &compare_with_trace, py::arg("source"), py::arg("is_path"),
        py::arg("origin"), py::arg("plan"), py::arg("traces"), py::arg("iterations"),
        py::arg("torchrec_version"), py::arg("calibration_kind"), py::arg("calibration"));
  m.def("plan", &plan, py::arg("source"), py::arg("is_path"), py::arg("origin"),
        py::arg("torchrec_version"), py::arg("calibration_kind"), py::arg("calibration"));
  m.def("plan_with_stats", &plan_with_stats, py::arg("source"), py::arg("is_path"),
        py::arg("origin"), py::arg("torchrec_version"));
  m.def("options", &options, py::arg("source"), py::arg("is_path"), py::arg("origin"),
        py::arg("torchrec_version"), py::arg("calibration_kind"), py::arg("calibration"),
        py::arg("tables"), py::arg("sharding_types"));
  m.def("compare", &compare, py::arg("source"), py::arg("is_path"), py::arg("origin"),
        py::arg("proposers"), py::arg("partitioners"), py::arg("perf_models"),
        py::arg("iterations"));
  m.def("simulate", &simulate, py::arg("source"), py::arg("is_path"), py::arg("origin"),
        py::arg("plan"), py::arg("iterations"), py::arg("torchrec_version"),
        py::arg("calibration_kind"), py::arg("calibration"));
  m.def("optimize", &optimize, py::arg("source"), py::arg("is_path"), py::arg("origin"),
        py::arg("plan"), py::arg("objective"), py::arg("time_limit_s"), py::arg("max_evaluations"),
        py::arg("seed"), py::arg("torchrec_version"), py::arg("calibration_kind"),
        py::arg("calibration"));
}
