#include "models/calibration_models.h"

#include <algorithm>
#include <limits>

#include "models/model_roles.h"
#include "models/units.h"

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
  held_out_begin_ = static_cast<int>(points_.size());
  for (size_t i = 0; i < points_.size(); ++i) {
    if (points_[i].held_out) {
      held_out_begin_ = static_cast<int>(i);
      break;
    }
  }
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

int CalibrationPointsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant CalibrationPointsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const CalibrationPoint& p = points_[static_cast<size_t>(index.row())];
  if (role == Qt::ToolTipRole) {
    return QStringLiteral("%1 (%2%3)\nmeasured %4\nTorchRec's constants %5\ncalibrated %6")
        .arg(QString::fromStdString(p.what), QString::fromStdString(p.group),
             p.held_out ? QStringLiteral(", held out of the fit") : QString(),
             format_ms(p.measured_ms), format_ms(p.before_ms), format_ms(p.after_ms));
  }
  if (role != Qt::DisplayRole && role != RawValueRole) return {};
  switch (index.column()) {
    case kGroup:
      return QString::fromStdString(p.group);
    case kMeasured:
      return p.measured_ms;
    case kBefore:
      return p.before_ms;
    case kAfter:
      return p.after_ms;
    case kHeldOut:
      return role == RawValueRole
                 ? QVariant(p.held_out)
                 : QVariant(p.held_out ? QStringLiteral("yes") : QStringLiteral("no"));
    default:
      return {};
  }
}

QVariant CalibrationPointsModel::headerData(int section, Qt::Orientation orientation,
                                            int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {"Group", "Measured (ms)", "TorchRec's model (ms)",
                                         "Calibrated (ms)", "Held out"};
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

CalibrationParametersModel::CalibrationParametersModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void CalibrationParametersModel::reset(
    const std::vector<kernels::CalibrationParameter>& parameters) {
  beginResetModel();
  parameters_ = parameters;
  endResetModel();
}

int CalibrationParametersModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(parameters_.size());
}

int CalibrationParametersModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant CalibrationParametersModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  const kernels::CalibrationParameter& p = parameters_[static_cast<size_t>(index.row())];
  const auto show = [&p](double v) {
    switch (p.unit) {
      case kernels::CalibrationParameter::Unit::kBandwidth:
        return format_bandwidth(v);
      case kernels::CalibrationParameter::Unit::kMs:
        return QString::number(v, 'g', 4) + QStringLiteral(" ms");
      case kernels::CalibrationParameter::Unit::kRatio:
        return QString::number(v, 'g', 4);
    }
    return QString();
  };
  if (role == Qt::TextAlignmentRole) {
    return index.column() == kParameter ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == RawValueRole) {
    switch (index.column()) {
      case kTorchRec:
        return p.torchrec ? QVariant(*p.torchrec) : QVariant();
      case kFitted:
        return p.fitted ? QVariant(*p.fitted) : QVariant();
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole && index.column() == kFitted && !p.fitted) {
    return QStringLiteral("The fit kept TorchRec's value (see the profile's notes)");
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kParameter:
      return QString::fromStdString(p.name);
    case kTorchRec:
      return p.torchrec ? show(*p.torchrec) : QStringLiteral("-");
    case kFitted:
      return p.fitted ? show(*p.fitted) : QStringLiteral("TorchRec's");
    case kChange:
      if (!p.fitted || !p.torchrec || *p.torchrec == 0.0) return QString();
      return QStringLiteral("x%1").arg(*p.fitted / *p.torchrec, 0, 'g', 3);
    default:
      return {};
  }
}

QVariant CalibrationParametersModel::headerData(int section, Qt::Orientation orientation,
                                                int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {"Parameter", "TorchRec", "Fitted", "Fitted / TorchRec"};
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

int CalibrationGroupsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

QVariant CalibrationGroupsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  if (role != Qt::DisplayRole && role != RawValueRole) return {};
  const kernels::CalibrationGroup& g = groups_[static_cast<size_t>(index.row())];
  switch (index.column()) {
    case kGroup:
      return QString::fromStdString(g.name);
    case kFitted:
      return role == RawValueRole
                 ? QVariant(g.fitted)
                 : QVariant(g.fitted ? QStringLiteral("yes") : QStringLiteral("no"));
    case kFitCount:
      return g.fit_count;
    case kHeldOut:
      return g.held_out;
    case kMapeBefore:
      return percent(g.mape_before, role);
    case kMapeAfter:
      return percent(g.mape_after, role);
    case kFitMapeBefore:
      return percent(g.fit_mape_before, role);
    case kFitMapeAfter:
      return percent(g.fit_mape_after, role);
    default:
      return {};
  }
}

QVariant CalibrationGroupsModel::headerData(int section, Qt::Orientation orientation,
                                            int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {
      "Group",        "Fitted",      "Fit records",      "Held out",
      "Error before", "Error after", "Fit error before", "Fit error after"};
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

}  // namespace shardlab::gui
