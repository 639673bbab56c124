#include "models/scenario_settings_model.h"

#include <QLocale>

#include "models/model_roles.h"
#include "models/units.h"
#include "shardlab/data/scenario_writer.h"

namespace shardlab::gui {
namespace {

using planner::Scenario;

QString str(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}
QString num(double v) { return QString::number(v, 'g', QLocale::FloatingPointShortest); }

struct Field {
  const char* label;
  data::FieldPath path;
  FieldKind kind;
  QString (*value)(const Scenario&);
  QString (*meaning)(const Scenario&);
};

// Allowed values of the enumerated fields (drop-downs).
QStringList choices_of(const data::FieldPath& path) {
  const std::string p = data::to_string(path);
  if (p == "topology.compute_device")
    return {QStringLiteral("cuda"), QStringLiteral("cpu"), QStringLiteral("mtia")};
  if (p == "sharder.optimizer") {
    return {QStringLiteral("none"), QStringLiteral("sgd"), QStringLiteral("adam"),
            QStringLiteral("rowwise_adagrad"), QStringLiteral("adagrad")};
  }
  if (p == "planner.partitioner")
    return {QStringLiteral("greedy_perf"), QStringLiteral("memory_balanced")};
  if (p == "planner.torchrec_version") {
    QStringList versions;
    for (const planner::TorchRecVersion v : planner::all_torchrec_versions()) {
      versions << QString::fromStdString(std::string(planner::to_string(v)));
    }
    return versions;
  }
  return {};
}

QString capacity_value(const std::optional<int64_t>& cap) {
  return cap ? exact_size_text(*cap) : QString();
}

// What a capacity means to the planner: absent and (in 2024-02) 0 are
// TorchRec's default.
QString capacity_meaning(const Scenario& s, const std::optional<int64_t>& cap,
                         const char* fallback) {
  if (!cap) return QStringLiteral("not given: TorchRec's default, %1").arg(QLatin1String(fallback));
  if (*cap == 0 && !s.behaviour().explicit_zero_capacity_kept) {
    return QStringLiteral("0: TorchRec's default, %1").arg(QLatin1String(fallback));
  }
  return format_bytes(static_cast<double>(*cap)) + QStringLiteral(" per device");
}

const std::vector<Field>& fields() {
  static const std::vector<Field> kFields = {
      {"GPU preset",
       {"topology", "gpu"},
       FieldKind::kName,
       [](const Scenario& s) { return s.gpu ? QString::fromStdString(s.gpu->name) : QString(); },
       [](const Scenario& s) {
         return s.gpu ? QString::fromStdString(s.gpu->description)
                      : QStringLiteral(
                            "none: TorchRec's constants ('shardlab presets' lists the presets)");
       }},
      {"World size",
       {"topology", "world_size"},
       FieldKind::kNumber,
       [](const Scenario& s) { return QString::number(s.topology.world_size); },
       [](const Scenario&) { return QStringLiteral("ranks (GPUs)"); }},
      {"Local world size",
       {"topology", "local_world_size"},
       FieldKind::kNumber,
       [](const Scenario& s) {
         return s.topology.local_world_size ? QString::number(*s.topology.local_world_size)
                                            : QString();
       },
       [](const Scenario& s) {
         return QStringLiteral("ranks per host (%1 used)")
             .arg(s.topology.local_world_size.value_or(s.topology.world_size));
       }},
      {"Pod size",
       {"topology", "pod_size"},
       FieldKind::kNumber,
       [](const Scenario& s) {
         return s.topology.pod_size ? QString::number(*s.topology.pod_size) : QString();
       },
       [](const Scenario& s) {
         return s.topology.pod_size
                    ? QStringLiteral("hosts per NVLink domain: groups of %1 ranks (2026-08)")
                          .arg(int64_t{*s.topology.pod_size} *
                               s.topology.local_world_size.value_or(s.topology.world_size))
                    : QStringLiteral("none: table-row-wise groups are hosts");
       }},
      {"Compute device",
       {"topology", "compute_device"},
       FieldKind::kString,
       [](const Scenario& s) { return str(planner::to_string(s.topology.compute_device)); },
       [](const Scenario&) { return QStringLiteral("cuda, cpu or mtia"); }},
      {"HBM capacity",
       {"topology", "hbm_cap"},
       FieldKind::kNumber,
       [](const Scenario& s) { return capacity_value(s.topology.hbm_cap); },
       [](const Scenario& s) { return capacity_meaning(s, s.topology.hbm_cap, "32 GiB"); }},
      {"DDR capacity",
       {"topology", "ddr_cap"},
       FieldKind::kNumber,
       [](const Scenario& s) { return capacity_value(s.topology.ddr_cap); },
       [](const Scenario& s) { return capacity_meaning(s, s.topology.ddr_cap, "128 GiB"); }},
      {"HBM bandwidth",
       {"topology", "hbm_mem_bw"},
       FieldKind::kNumber,
       [](const Scenario& s) { return exact_bandwidth_text(s.topology.hbm_mem_bw); },
       [](const Scenario& s) {
         return QStringLiteral("per device; ") + num(s.topology.hbm_mem_bw) +
                QStringLiteral(" bytes/ms");
       }},
      {"DDR bandwidth",
       {"topology", "ddr_mem_bw"},
       FieldKind::kNumber,
       [](const Scenario& s) { return exact_bandwidth_text(s.topology.ddr_mem_bw); },
       [](const Scenario& s) {
         return QStringLiteral("per device; ") + num(s.topology.ddr_mem_bw) +
                QStringLiteral(" bytes/ms");
       }},
      {"HBM-to-DDR bandwidth",
       {"topology", "hbm_to_ddr_mem_bw"},
       FieldKind::kNumber,
       [](const Scenario& s) { return exact_bandwidth_text(s.topology.hbm_to_ddr_mem_bw); },
       [](const Scenario& s) {
         return QStringLiteral("UVM reads of host memory (2026-08); ") +
                num(s.topology.hbm_to_ddr_mem_bw) + QStringLiteral(" bytes/ms");
       }},
      {"SSD capacity",
       {"topology", "ssd_cap"},
       FieldKind::kNumber,
       [](const Scenario& s) { return capacity_value(s.topology.ssd_cap); },
       [](const Scenario& s) {
         return capacity_meaning(s, s.topology.ssd_cap, "2 TiB") +
                QStringLiteral(": key_value tables (2026-08)");
       }},
      {"SSD bandwidth",
       {"topology", "ssd_mem_bw"},
       FieldKind::kNumber,
       [](const Scenario& s) {
         return s.topology.ssd_mem_bw ? exact_bandwidth_text(*s.topology.ssd_mem_bw) : QString();
       },
       [](const Scenario& s) {
         return QStringLiteral("key_value lookups (2026-08); ") +
                num(s.topology.ssd_mem_bw.value_or(planner::kDefaultSsdMemBw)) +
                QStringLiteral(" bytes/ms");
       }},
      {"Intra-host bandwidth",
       {"topology", "intra_host_bw"},
       FieldKind::kNumber,
       [](const Scenario& s) { return exact_bandwidth_text(s.topology.intra_host_bw); },
       [](const Scenario& s) {
         return QStringLiteral("per device; ") + num(s.topology.intra_host_bw) +
                QStringLiteral(" bytes/ms");
       }},
      {"Inter-host bandwidth",
       {"topology", "inter_host_bw"},
       FieldKind::kNumber,
       [](const Scenario& s) { return exact_bandwidth_text(s.topology.inter_host_bw); },
       [](const Scenario& s) {
         return QStringLiteral("per device; ") + num(s.topology.inter_host_bw) +
                QStringLiteral(" bytes/ms");
       }},
      {"Backward compute multiplier",
       {"topology", "bwd_compute_multiplier"},
       FieldKind::kNumber,
       [](const Scenario& s) { return num(s.topology.bwd_compute_multiplier); },
       [](const Scenario&) { return QStringLiteral("backward / forward compute"); }},
      {"Batch size",
       {"batch_size"},
       FieldKind::kNumber,
       [](const Scenario& s) { return QString::number(s.batch_size); },
       [](const Scenario&) { return QStringLiteral("per rank"); }},
      {"Optimizer",
       {"sharder", "optimizer"},
       FieldKind::kString,
       [](const Scenario& s) { return QString::fromStdString(s.sharder.optimizer_name); },
       [](const Scenario&) { return QStringLiteral("none, sgd, adam, rowwise_adagrad, adagrad"); }},
      {"Dense model",
       {"workload", "dense"},
       FieldKind::kJson,
       [](const Scenario& s) {
         return s.workload.dense
                    ? QString::fromStdString(data::dense_to_json(*s.workload.dense, -1))
                    : QString();
       },
       [](const Scenario& s) {
         return s.workload.dense
                    ? QStringLiteral("%1 parameters (JSON, docs/scenario-format.md)")
                          .arg(format_bytes(static_cast<double>(s.module.dense_param_bytes)))
                    : QStringLiteral(
                          "none (JSON object: dense_features, bottom_mlp, interaction, top_mlp, "
                          "precision)");
       }},
      {"Iteration overhead",
       {"workload", "iteration_overhead_ms"},
       FieldKind::kNumber,
       [](const Scenario& s) { return num(s.workload.iteration_overhead_ms); },
       [](const Scenario&) { return QStringLiteral("ms of host-side work per iteration"); }},
      {"Partitioner",
       {"planner", "partitioner"},
       FieldKind::kString,
       [](const Scenario& s) { return str(planner::to_string(s.planner.partitioner.kind)); },
       [](const Scenario&) {
         return QStringLiteral("greedy_perf or memory_balanced (their default settings)");
       }},
      {"TorchRec version",
       {"planner", "torchrec_version"},
       FieldKind::kString,
       [](const Scenario& s) { return str(planner::to_string(s.planner.torchrec_version)); },
       [](const Scenario&) {
         return QStringLiteral("the planner model: %1 (docs/torchrec-versions.md)")
             .arg(str(planner::torchrec_version_names()));
       }},
      {"Storage reservation",
       {"planner", "storage_reservation", "percentage"},
       FieldKind::kNumber,
       [](const Scenario& s) { return num(s.planner.storage_reservation.percentage); },
       [](const Scenario& s) {
         return QStringLiteral("%1 reservation, fraction of HBM in [0, 1]")
             .arg(QString::fromStdString(data::to_string(s.planner.storage_reservation.kind)));
       }},
  };
  return kFields;
}

}  // namespace

ScenarioSettingsModel::ScenarioSettingsModel(ScenarioValidator validator, QObject* parent)
    : QAbstractTableModel(parent), validator_(std::move(validator)) {}

void ScenarioSettingsModel::reset(ScenarioPtr scenario) {
  if (scenario == scenario_) return;
  if (scenario && scenario_ && rowCount() > 0 &&
      scenario->tables.size() == scenario_->tables.size()) {
    // The same rows with other values (an undo, redo or another view's
    // edit): keep the view's scroll position and selection.
    scenario_ = std::move(scenario);
    emit dataChanged(index(0, 0), index(rowCount() - 1, kNumColumns - 1));
    return;
  }
  beginResetModel();
  scenario_ = std::move(scenario);
  endResetModel();
}

int ScenarioSettingsModel::row_of(const QString& path) const {
  for (size_t i = 0; i < fields().size(); ++i) {
    if (QString::fromStdString(data::to_string(fields()[i].path)) == path)
      return static_cast<int>(i);
  }
  return -1;
}

data::FieldPath ScenarioSettingsModel::field_path(int row) const {
  return fields()[static_cast<size_t>(row)].path;
}

int ScenarioSettingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !scenario_ ? 0 : static_cast<int>(fields().size());
}

int ScenarioSettingsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant ScenarioSettingsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index) || !scenario_) return {};
  const Field& f = fields()[static_cast<size_t>(index.row())];
  if (role == Qt::ToolTipRole) return QString::fromStdString(data::to_string(f.path));
  if (role == ChoicesRole && index.column() == kValue) {
    const QStringList choices = choices_of(f.path);
    return choices.isEmpty() ? QVariant() : QVariant(choices);
  }
  if (role == MultiChoiceRole) return false;
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
  switch (index.column()) {
    case kField:
      return QString::fromLatin1(f.label);
    case kValue:
      return f.value(*scenario_);
    case kMeaning:
      return f.meaning(*scenario_);
    default:
      return {};
  }
}

QVariant ScenarioSettingsModel::headerData(int section, Qt::Orientation orientation,
                                           int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case kField:
      return QStringLiteral("Field");
    case kValue:
      return QStringLiteral("Value");
    case kMeaning:
      return QStringLiteral("Meaning");
    default:
      return {};
  }
}

Qt::ItemFlags ScenarioSettingsModel::flags(const QModelIndex& index) const {
  if (!index.isValid() || !checkIndex(index)) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.column() == kValue) f |= Qt::ItemIsEditable;
  return f;
}

bool ScenarioSettingsModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || !checkIndex(index) || !scenario_ || role != Qt::EditRole ||
      index.column() != kValue) {
    return false;
  }
  const Field& f = fields()[static_cast<size_t>(index.row())];
  const QString typed = value.toString();
  const QString before = f.value(*scenario_);
  if (typed.trimmed() == before) return true;
  const std::string value_json = field_json(f.kind, typed).toStdString();
  Result<ScenarioPtr> edited = validator_(f.path, QString::fromStdString(value_json));
  if (!edited.is_ok()) {
    emit editRefused(QString::fromStdString(edited.status().message()));
    return false;
  }
  scenario_ = std::move(edited).value();
  emit dataChanged(this->index(0, 0), this->index(rowCount() - 1, kNumColumns - 1));
  emit scenarioEdited(scenario_, edit_description(f.path, before, f.value(*scenario_)),
                      data::FieldEdit{f.path, value_json});
  return true;
}

}  // namespace shardlab::gui
