#include "models/calibration_models.h"

#include <algorithm>
#include <limits>

#include "models/model_roles.h"

namespace shardlab::gui {
namespace {

QVariant percent(const std::optional<double>& v, int role) {
  if (!v) return role == Qt::DisplayRole ? QVariant(QStringLiteral("-")) : QVariant();
  if (role == RawValueRole) return *v;
  return QString::number(*v, 'f', 1) + QLatin1Char('%');
}

}  // namespace

CalibrationPointsModel::CalibrationPointsModel(QObject* parent) : QAbstractTableModel(parent) {}

void CalibrationPointsModel::reset(const std::vector<CalibrationPoint>& points) {
  beginResetModel();
  points_ = points;
  endResetModel();
}

std::pair<double, double> CalibrationPointsModel::range() const {
  if (points_.empty()) return {0.0, 0.0};
  double lo = std::numeric_limits<double>::max();
  double hi = 0.0;
  for (const CalibrationPoint& p : points_) {
    for (double v : {p.measured_ms, p.before_ms, p.after_ms}) {
      if (v > 0) lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  return {lo, hi};
}

int CalibrationPointsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(points_.size());
}

int CalibrationPointsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kNumColumns; }

QVariant CalibrationPointsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  if (role != Qt::DisplayRole && role != RawValueRole) return {};
  const CalibrationPoint& p = points_[static_cast<size_t>(index.row())];
  switch (index.column()) {
    case kGroup: return QString::fromStdString(p.group);
    case kMeasured: return p.measured_ms;
    case kBefore: return p.before_ms;
    case kAfter: return p.after_ms;
    default: return {};
  }
}

QVariant CalibrationPointsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {"Group", "Measured (ms)", "TorchRec's model (ms)", "Calibrated (ms)"};
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

CalibrationGroupsModel::CalibrationGroupsModel(QObject* parent) : QAbstractTableModel(parent) {}

void CalibrationGroupsModel::reset(const data::CalibrationProfile& profile) {
  beginResetModel();
  groups_ = profile.groups;
  groups_.push_back(kernels::CalibrationGroup{.name = "all",
                                              .fit_count = profile.fit_count,
                                              .held_out = profile.held_out,
                                              .fitted = true,
                                              .mape_before = profile.mape_before,
                                              .mape_after = profile.mape_after,
                                              .fit_mape_before = profile.fit_mape_before,
                                              .fit_mape_after = profile.fit_mape_after});
  endResetModel();
}

void CalibrationGroupsModel::clear() {
  beginResetModel();
  groups_.clear();
  endResetModel();
}

int CalibrationGroupsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(groups_.size());
}

int CalibrationGroupsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kNumColumns; }

QVariant CalibrationGroupsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  if (role != Qt::DisplayRole && role != RawValueRole) return {};
  const kernels::CalibrationGroup& g = groups_[static_cast<size_t>(index.row())];
  switch (index.column()) {
    case kGroup: return QString::fromStdString(g.name);
    case kFitted:
      return role == RawValueRole ? QVariant(g.fitted) : QVariant(g.fitted ? QStringLiteral("yes") : QStringLiteral("no"));
    case kFitCount: return g.fit_count;
    case kHeldOut: return g.held_out;
    case kMapeBefore: return percent(g.mape_before, role);
    case kMapeAfter: return percent(g.mape_after, role);
    case kFitMapeBefore: return percent(g.fit_mape_before, role);
    case kFitMapeAfter: return percent(g.fit_mape_after, role);
    default: return {};
  }
}

QVariant CalibrationGroupsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {"Group",          "Fitted",          "Fit records",  "Held out",
                                         "Error before",   "Error after",     "Fit error before", "Fit error after"};
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

}  // namespace shardlab::gui
