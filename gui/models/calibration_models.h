// The Calibration view's models, from a RunBrowser::calibration() result:
//  CalibrationPointsModel  one row per measurement: group, measured ms, and
//      what TorchRec's constants (before) and the calibration (after)
//      predict; the scatter chart maps measured to before / after.
//  CalibrationGroupsModel  the profile's per-group errors (MAPE before and
//      after on held-out records, and on the fit's own), as the fit reported.
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "models/run_browser.h"

namespace shardlab::gui {

class CalibrationPointsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kGroup, kMeasured, kBefore, kAfter, kNumColumns };

  explicit CalibrationPointsModel(QObject* parent = nullptr);

  void reset(const std::vector<CalibrationPoint>& points);
  void clear() { reset({}); }
  // Smallest and largest of every measured and predicted time (ms), for the
  // chart's axes and its y = x line; {0, 0} when empty.
  std::pair<double, double> range() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<CalibrationPoint> points_;
};

class CalibrationGroupsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kGroup, kFitted, kFitCount, kHeldOut, kMapeBefore, kMapeAfter, kFitMapeBefore, kFitMapeAfter, kNumColumns };

  explicit CalibrationGroupsModel(QObject* parent = nullptr);

  // Groups of the profile, then an "all" row with the profile's totals.
  void reset(const data::CalibrationProfile& profile);
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<kernels::CalibrationGroup> groups_;
};

}  // namespace shardlab::gui
