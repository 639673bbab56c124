#include "models/run_browser.h"

#include <QFileInfo>
#include <QStringList>
#include <variant>

#include "models/units.h"
#include "models/workbench.h"
#include "shardlab/data/run_records.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/kernels/calibration.h"
#include "shardlab/sim/iteration_traffic.h"

namespace shardlab::gui {
namespace {

// The "before" model of a calibration: TorchRec's constants for the device
// and bandwidths of the scenario the measurements ran.
// `torchrec_version` is the run's recorded planner model.
kernels::CalibrationOptions options_for(const std::string& scenario_json,
                                        const std::string& torchrec_version) {
  auto s = data::parse_scenario(scenario_json, "run scenario");
  if (!s.is_ok()) return kernels::CalibrationOptions{};
  if (auto v = planner::parse_torchrec_version(torchrec_version)) s->planner.torchrec_version = *v;
  return kernels::before_model_options(*s);
}

std::string group_of(const kernels::Measurement& m) {
  if (m.collective >= 0) return m.inter_host ? "comm inter_host" : "comm intra_host";
  const std::string direction = m.phase == sim::Phase::kBwdCompute ? "bwd " : "fwd ";
  return direction + std::string(planner::to_string(m.compute_kernel)) + "/" +
         std::string(planner::to_string(planner::dim_class(m.dim)));
}

}  // namespace

QString diff_to_html(const data::RunDiff& d) {
  const auto esc = [](const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); };
  const auto num = [](double v) { return QString::number(v, 'g', 4); };
  // Deltas: red when b grew, green when it shrank.
  const auto delta = [&num](double v) {
    if (v == 0.0) return QStringLiteral("0");
    return QStringLiteral("<span style='color:%1'>%2%3</span>")
        .arg(v > 0 ? QStringLiteral("#c0392b") : QStringLiteral("#27ae60"),
             v > 0 ? QStringLiteral("+") : QString(), num(v));
  };
  const auto table = [](const QString& title, const QStringList& header,
                        const QList<QStringList>& rows) {
    if (rows.isEmpty()) return QString();
    QString html =
        QStringLiteral("<h4>%1</h4><table cellspacing='0' cellpadding='3' border='1'><tr>")
            .arg(title);
    for (const QString& h : header) html += QStringLiteral("<th>%1</th>").arg(h);
    html += QStringLiteral("</tr>");
    for (const QStringList& r : rows) {
      html += QStringLiteral("<tr>");
      for (const QString& c : r) html += QStringLiteral("<td>%1</td>").arg(c);
      html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
  };
  QString html = QStringLiteral("<h3>Run %1 (a) against run %2 (b)</h3>").arg(d.a_id).arg(d.b_id);
  QList<QStringList> fields;
  for (const data::FieldDiff& f : d.fields) {
    const auto text = [&](const std::optional<std::string>& v) {
      if (!v) return QStringLiteral("-");
      bool ok = false;
      const double x = QString::fromStdString(*v).toDouble(&ok);
      return ok ? num(x) : esc(*v);
    };
    fields << QStringList{esc(f.name), text(f.a), text(f.b), f.delta ? delta(*f.delta) : QString()};
  }
  html += table(
      QStringLiteral("Fields"),
      {QStringLiteral("field"), QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("b - a")},
      fields);
  QList<QStringList> moved;
  for (const data::PlacementDiff& p : d.placements)
    moved << QStringList{esc(p.fqn), esc(p.a), esc(p.b)};
  html += table(QStringLiteral("Tables placed differently (%1)").arg(d.placements.size()),
                {QStringLiteral("table"), QStringLiteral("a"), QStringLiteral("b")}, moved);
  const auto numbers = [&](const QString& title, const std::vector<data::NumberDiff>& rows,
                           bool bytes) {
    QList<QStringList> out;
    for (const data::NumberDiff& n : rows) {
      const auto show = [&](double v) { return bytes ? format_bytes(v) : num(v); };
      out << QStringList{
          esc(n.name), show(n.a), show(n.b),
          bytes ? (n.delta > 0 ? QStringLiteral("+") : QString()) + format_bytes(n.delta)
                : delta(n.delta)};
    }
    return table(
        title, {QString(), QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("b - a")}, out);
  };
  html += numbers(QStringLiteral("Per-rank TorchRec perf (ms)"), d.rank_perf_ms, false);
  html += numbers(QStringLiteral("Per-rank HBM"), d.rank_hbm_bytes, true);
  html += numbers(QStringLiteral("Per-phase median over ranks (ms; a %1, b %2)")
                      .arg(esc(d.a_phase_source.empty() ? "-" : d.a_phase_source),
                           esc(d.b_phase_source.empty() ? "-" : d.b_phase_source)),
                  d.phase_median_ms, false);
  if (d.fields.empty() && d.placements.empty() && d.rank_perf_ms.empty() &&
      d.rank_hbm_bytes.empty() && d.phase_median_ms.empty()) {
    html += QStringLiteral("<p>No differences.</p>");
  }
  return html;
}

RunBrowser::RunBrowser(Workbench* workbench, QObject* parent)
    : QObject(parent), workbench_(workbench) {}

RunBrowser::~RunBrowser() = default;

QString RunBrowser::path() const {
  return store_ ? QString::fromStdString(store_->path()) : QString();
}

Status RunBrowser::open(const QString& path) {
  // The browser only reads: a file that is not a store is refused unchanged,
  // and a missing one is not created.
  Result<data::RunStore> store = data::RunStore::open(path.toStdString(), data::StoreAccess::kRead);
  if (!store.is_ok()) return store.status();
  store_.emplace(std::move(store).value());
  return refresh();
}

Result<int64_t> RunBrowser::record(const data::NewRun& run, const QString& path) {
  // A writer of its own: the browser's connection only reads.
  Result<int64_t> id = [&]() -> Result<int64_t> {
    Result<data::RunStore> writer =
        data::RunStore::open(path.toStdString(), data::StoreAccess::kCreate);
    if (!writer.is_ok()) return writer.status();
    return writer->add_run(run);
  }();
  if (!id.is_ok()) return id.status();
  if (Status st = this->path() == path ? refresh() : open(path); !st.is_ok()) return st;
  return id;
}

Status RunBrowser::refresh() {
  if (!store_) return Status::invalid_argument("no run store is open");
  Result<std::vector<data::RunSummary>> runs = store_->list_runs();
  if (!runs.is_ok()) return runs.status();
  runs_ = std::move(runs).value();
  emit runsChanged();
  return Status::ok();
}

Status RunBrowser::open_run(int64_t id) {
  if (!store_) return Status::invalid_argument("no run store is open");
  Result<data::StoredRun> run = store_->get_run(id);
  if (!run.is_ok()) return run.status();
  const std::string origin = store_->path() + " run " + std::to_string(id);
  Result<planner::Scenario> scenario = data::parse_scenario(run->scenario_json, origin);
  if (!scenario.is_ok()) return scenario.status();
  // Plan as the run did: its recorded model, not the file's default.
  if (auto v = planner::parse_torchrec_version(run->summary.torchrec_version)) {
    scenario->planner.torchrec_version = *v;
  }
  workbench_->document().open(
      std::make_shared<const planner::Scenario>(std::move(scenario).value()), QString(),
      QStringLiteral("run %1").arg(id));
  if (run->plan_json.empty()) return Status::ok();
  std::shared_ptr<kernels::ReplayResult> replay;
  if (!run->measurements.empty()) {
    replay = std::make_shared<kernels::ReplayResult>();
    replay->backend = run->summary.backend;
    replay->device_name = run->summary.device;
    replay->world_size = workbench_->scenario()->topology.world_size;
    replay->measurements = run->measurements;
  }
  const QString name =
      QStringLiteral("run %1 (%2%3)")
          .arg(id)
          .arg(QString::fromUtf8(std::string(data::to_string(run->summary.kind)).c_str()))
          .arg(run->summary.backend.empty()
                   ? QString()
                   : QStringLiteral(", ") + QString::fromStdString(run->summary.backend));
  return workbench_->open_run_plan(QString::fromStdString(run->plan_json),
                                   QString::fromStdString(origin), name, std::move(replay));
}

Result<data::RunDiff> RunBrowser::diff(int64_t a, int64_t b) const {
  if (!store_) return Status::invalid_argument("no run store is open");
  Result<data::StoredRun> ra = store_->get_run(a);
  if (!ra.is_ok()) return ra.status();
  Result<data::StoredRun> rb = store_->get_run(b);
  if (!rb.is_ok()) return rb.status();
  return data::diff_runs(*ra, *rb);
}

Result<CalibrationData> RunBrowser::calibration(int64_t id) const {
  if (!store_) return Status::invalid_argument("no run store is open");
  Result<data::StoredRun> run = store_->get_run(id);
  if (!run.is_ok()) return run.status();
  if (!run->calibration) {
    return Status::invalid_argument(store_->path() + ": run " + std::to_string(id) +
                                    " holds no calibration");
  }
  CalibrationData view;
  view.run_id = id;
  Result<data::CalibrationProfile> profile = data::parse_calibration(
      run->calibration->profile_json, store_->path() + " run " + std::to_string(id));
  if (!profile.is_ok()) return profile.status();
  view.profile = std::move(profile).value();
  // A replay calibration's records are its input runs'; a trace
  // calibration keeps its own.
  Result<std::vector<kernels::Measurement>> measurements =
      run->inputs.empty() ? Result<std::vector<kernels::Measurement>>(run->measurements)
                          : store_->measurements(run->inputs);
  if (!measurements.is_ok()) return measurements.status();
  // The inputs' scenario gives TorchRec's constants (the "before" model).
  std::string scenario_json = run->scenario_json;
  if (scenario_json.empty() && !run->inputs.empty()) {
    if (auto input = store_->get_run(run->inputs.front()); input.is_ok())
      scenario_json = input->scenario_json;
  }
  kernels::CalibrationOptions options = options_for(scenario_json, run->summary.torchrec_version);
  // The split the fit used: the calibrate run records it.
  for (const auto& [name, value] : data::summary_fields(run->summary.summary_json)) {
    if (name == "holdout_fraction" && std::holds_alternative<double>(value)) {
      options.holdout_fraction = std::get<double>(value);
    } else if (name == "holdout_fraction" && std::holds_alternative<int64_t>(value)) {
      options.holdout_fraction = static_cast<double>(std::get<int64_t>(value));
    } else if (name == "seed" && std::holds_alternative<int64_t>(value)) {
      options.seed = static_cast<uint64_t>(std::get<int64_t>(value));
    }
  }
  view.holdout_fraction = options.holdout_fraction;
  view.seed = options.seed;
  view.parameters =
      kernels::calibration_parameters(view.profile.parameters, view.profile.groups, options);
  const kernels::HoldoutSplit split = kernels::holdout_split(*measurements, options);
  std::vector<char> held(measurements->size(), 0);
  for (size_t i : split.held_out) held[i] = 1;
  std::vector<CalibrationPoint> held_points;
  for (size_t i = 0; i < measurements->size(); ++i) {
    const kernels::Measurement& m = (*measurements)[i];
    const std::optional<double> before = kernels::predict_ms(m, nullptr, options);
    const std::optional<double> after = kernels::predict_ms(m, &view.profile.parameters, options);
    if (!before || !after || !(m.timing.median_ms > 0)) {
      ++view.skipped;
      continue;
    }
    std::string what = "rank " + std::to_string(m.rank) + " ";
    what += m.collective >= 0 ? std::string(sim::to_string(m.phase)) + " " +
                                    std::string(sim::to_string(m.collective_kind))
                              : m.table + " shard " + std::to_string(m.shard) + " " +
                                    std::string(sim::to_string(m.phase));
    CalibrationPoint p{.group = group_of(m),
                       .what = std::move(what),
                       .measured_ms = m.timing.median_ms,
                       .before_ms = *before,
                       .after_ms = *after,
                       .held_out = held[i] != 0};
    (p.held_out ? held_points : view.points).push_back(std::move(p));
  }
  view.points.insert(view.points.end(), held_points.begin(), held_points.end());
  return view;
}

}  // namespace shardlab::gui
