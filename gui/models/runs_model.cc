#include "models/runs_model.h"

#include <QStringList>

#include "models/model_roles.h"
#include "shardlab/data/run_records.h"

namespace shardlab::gui {
namespace {

QString str(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace

QString RunsModel::format_summary(const std::string& summary_json, bool precise) {
  // The text `shardlab runs list` shows (data::summary_text); the tooltip
  // gives every digit, one field per line.
  return QString::fromStdString(precise ? data::summary_text(summary_json, 0, "\n")
                                        : data::summary_text(summary_json));
}

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsModel::reset(const std::vector<data::RunSummary>& runs) {
  beginResetModel();
  runs_ = runs;
  endResetModel();
}

int RunsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const data::RunSummary& r = runs_[static_cast<size_t>(index.row())];
  if (role == RawValueRole && index.column() == kId) return QVariant::fromValue<qint64>(r.id);
  if (role != Qt::DisplayRole && role != RawValueRole && role != Qt::ToolTipRole) return {};
  switch (index.column()) {
    case kId:
      return QVariant::fromValue<qint64>(r.id);
    case kKind:
      return str(data::to_string(r.kind));
    case kCreated:
      return QString::fromStdString(r.created_at);
    case kLabel:
      return QString::fromStdString(r.label);
    case kScenario:
      return QString::fromStdString(r.scenario_name);
    case kDevice:
      return QString::fromStdString(r.device);
    case kBackend:
      return QString::fromStdString(r.backend);
    case kRows:
      return QStringLiteral("%1 estimates, %2 phases, %3 measurements%4")
          .arg(r.estimate_count)
          .arg(r.sim_phase_count)
          .arg(r.measurement_count)
          .arg(r.has_calibration ? QStringLiteral(", calibration") : QString());
    case kSummary:
      return format_summary(r.summary_json, role == Qt::ToolTipRole);
    default:
      return {};
  }
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {"Run",    "Kind",    "Created (UTC)", "Label",  "Scenario",
                                         "Device", "Backend", "Rows",          "Summary"};
  static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == kNumColumns);
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

}  // namespace shardlab::gui
