#include "models/run_browser.h"

#include "models/workbench.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/kernels/calibration.h"

namespace shardlab::gui {
namespace {

// The "before" model of a calibration: TorchRec's constants for the device
// and bandwidths of the scenario the measurements ran.
// `torchrec_version` is the run's recorded planner model.
kernels::CalibrationOptions options_for(const std::string& scenario_json, const std::string& torchrec_version) {
  kernels::CalibrationOptions o;
  auto s = data::parse_scenario(scenario_json, "run scenario");
  if (!s.is_ok()) return o;
  if (auto v = planner::parse_torchrec_version(torchrec_version)) s->planner.torchrec_version = *v;
  o.compute_device = s->topology.compute_device;
  o.hbm_bw = s->topology.hbm_mem_bw;
  o.ddr_bw = s->topology.ddr_mem_bw;
  o.hbm_to_ddr_bw = s->topology.hbm_to_ddr_mem_bw;
  o.torchrec_version = s->planner.torchrec_version;
  o.intra_host_bw = s->topology.intra_host_bw;
  o.inter_host_bw = s->topology.inter_host_bw;
  o.bwd_multiplier = s->topology.bwd_compute_multiplier;
  return o;
}

std::string group_of(const kernels::Measurement& m) {
  if (m.collective >= 0) return m.inter_host ? "comm inter_host" : "comm intra_host";
  const std::string direction = m.phase == sim::Phase::kBwdCompute ? "bwd " : "fwd ";
  return direction + std::string(planner::to_string(m.compute_kernel)) + "/" +
         std::string(planner::to_string(planner::dim_class(m.dim)));
}

}  // namespace

RunBrowser::RunBrowser(Workbench* workbench, QObject* parent) : QObject(parent), workbench_(workbench) {}

RunBrowser::~RunBrowser() = default;

QString RunBrowser::path() const { return store_ ? QString::fromStdString(store_->path()) : QString(); }

Status RunBrowser::open(const QString& path) {
  Result<data::RunStore> store = data::RunStore::open(path.toStdString());
  if (!store.is_ok()) {
    emit errorOccurred(QString::fromStdString(store.status().message()));
    return store.status();
  }
  store_.emplace(std::move(store).value());
  return refresh();
}

Status RunBrowser::refresh() {
  if (!store_) return Status::invalid_scenario("no run store is open");
  Result<std::vector<data::RunSummary>> runs = store_->list_runs();
  if (!runs.is_ok()) {
    emit errorOccurred(QString::fromStdString(runs.status().message()));
    return runs.status();
  }
  runs_ = std::move(runs).value();
  emit runsChanged();
  return Status::ok();
}

Status RunBrowser::open_run(int64_t id) {
  if (!store_) return Status::invalid_scenario("no run store is open");
  Result<data::StoredRun> run = store_->get_run(id);
  if (!run.is_ok()) {
    emit errorOccurred(QString::fromStdString(run.status().message()));
    return run.status();
  }
  const std::string origin = store_->path() + " run " + std::to_string(id);
  Result<planner::Scenario> scenario = data::parse_scenario(run->scenario_json, origin);
  if (!scenario.is_ok()) {
    emit errorOccurred(QString::fromStdString(scenario.status().message()));
    return scenario.status();
  }
  // Plan as the run did: its recorded model, not the file's default.
  if (auto v = planner::parse_torchrec_version(run->summary.torchrec_version)) {
    scenario->planner.torchrec_version = *v;
  }
  workbench_->set_scenario(std::make_shared<const planner::Scenario>(std::move(scenario).value()),
                           QStringLiteral("run %1").arg(id));
  if (run->plan_json.empty()) return Status::ok();
  return workbench_->open_plan_text(QString::fromStdString(run->plan_json), QString::fromStdString(origin));
}

Result<data::RunDiff> RunBrowser::diff(int64_t a, int64_t b) const {
  if (!store_) return Status::invalid_scenario("no run store is open");
  Result<data::StoredRun> ra = store_->get_run(a);
  if (!ra.is_ok()) return ra.status();
  Result<data::StoredRun> rb = store_->get_run(b);
  if (!rb.is_ok()) return rb.status();
  return data::diff_runs(*ra, *rb);
}

Result<CalibrationData> RunBrowser::calibration(int64_t id) const {
  if (!store_) return Status::invalid_scenario("no run store is open");
  Result<data::StoredRun> run = store_->get_run(id);
  if (!run.is_ok()) return run.status();
  if (!run->calibration) {
    return Status::invalid_scenario(store_->path() + ": run " + std::to_string(id) + " holds no calibration");
  }
  CalibrationData view;
  view.run_id = id;
  Result<data::CalibrationProfile> profile =
      data::parse_calibration(run->calibration->profile_json, store_->path() + " run " + std::to_string(id));
  if (!profile.is_ok()) return profile.status();
  view.profile = std::move(profile).value();
  Result<std::vector<kernels::Measurement>> measurements = store_->measurements(run->inputs);
  if (!measurements.is_ok()) return measurements.status();
  // The inputs' scenario gives TorchRec's constants (the "before" model).
  std::string scenario_json = run->scenario_json;
  if (scenario_json.empty() && !run->inputs.empty()) {
    if (auto input = store_->get_run(run->inputs.front()); input.is_ok()) scenario_json = input->scenario_json;
  }
  const kernels::CalibrationOptions options = options_for(scenario_json, run->summary.torchrec_version);
  for (const kernels::Measurement& m : *measurements) {
    const std::optional<double> before = kernels::predict_ms(m, nullptr, options);
    const std::optional<double> after = kernels::predict_ms(m, &view.profile.parameters, options);
    if (!before || !after || !(m.timing.median_ms > 0)) {
      ++view.skipped;
      continue;
    }
    view.points.push_back(CalibrationPoint{.group = group_of(m),
                                           .measured_ms = m.timing.median_ms,
                                           .before_ms = *before,
                                           .after_ms = *after});
  }
  return view;
}

}  // namespace shardlab::gui
