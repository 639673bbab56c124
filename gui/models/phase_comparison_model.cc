#include "models/phase_comparison_model.h"

#include "models/model_roles.h"
#include "models/units.h"
#include "shardlab/sim/compare.h"

namespace shardlab::gui {

PhaseComparisonModel::PhaseComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void PhaseComparisonModel::reset(std::vector<kernels::PhaseComparison> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int PhaseComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int PhaseComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant PhaseComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const kernels::PhaseComparison& r = rows_[static_cast<size_t>(index.row())];
  const bool measured = r.measured.samples > 0;
  std::optional<double> raw;
  switch (index.column()) {
    case kMeasured:
      if (measured) raw = r.measured.median_ms;
      break;
    case kP90:
      if (measured) raw = r.measured.p90_ms;
      break;
    case kEstimate:
      raw = r.estimate_ms;
      break;
    case kSimulated:
      raw = r.simulated_ms;
      break;
    case kSimVsMeasured:
      if (measured && r.simulated_ms && r.measured.median_ms > 0) {
        raw = sim::relative_change(r.measured.median_ms, *r.simulated_ms);
      }
      break;
    default:
      break;
  }
  if (role == Qt::TextAlignmentRole) {
    return index.column() == kPhase ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                    : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == RawValueRole) {
    if (index.column() == kRank) return r.rank;
    if (index.column() == kPhase) return static_cast<int>(r.phase);
    return raw ? QVariant(*raw) : QVariant();
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kRank:
      return r.rank;
    case kPhase:
      return QString::fromUtf8(std::string(sim::to_string(r.phase)).c_str());
    case kSimVsMeasured:
      return raw ? format_percent(*raw) : QStringLiteral("-");
    default:
      return raw ? QString::number(*raw, 'f', 4) : QStringLiteral("-");
  }
}

QVariant PhaseComparisonModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {
      "Rank",          "Phase",          "Measured median (ms)", "Measured p90 (ms)",
      "TorchRec (ms)", "Simulated (ms)", "Simulated vs measured"};
  static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == kNumColumns);
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

}  // namespace shardlab::gui
