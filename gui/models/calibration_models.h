// The Calibration view's models, from a RunBrowser::calibration() result:
//  CalibrationPointsModel  one row per measurement: group, measured ms, and
//      what TorchRec's constants (before) and the calibration (after)
//      predict, and whether the fit held it out; records the fit used come
//      first, held-out ones from held_out_begin(). The scatter chart maps
//      measured to before / after; ToolTipRole names the record.
//  CalibrationParametersModel  the fitted parameters beside TorchRec's
//      values (kernels::calibration_parameters, as `shardlab calibrate`
//      prints them).
//  CalibrationGroupsModel  the profile's per-group errors (MAPE before and
//      after on held-out records, and on the fit's own), as the fit reported.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "models/run_browser.h"

namespace shardlab::gui {

class CalibrationPointsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kGroup, kMeasured, kBefore, kAfter, kHeldOut, kNumColumns };

  explicit CalibrationPointsModel(QObject* parent = nullptr);

  // REQUIRES: fitted points before held-out ones (RunBrowser::calibration).
  void reset(const std::vector<CalibrationPoint>& points);
  void clear() { reset({}); }
  int held_out_begin() const { return held_out_begin_; }
  // Smallest and largest of every measured and predicted time (ms), for the
  // chart's axes and its y = x line; {0, 0} when empty.
  std::pair<double, double> range() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<CalibrationPoint> points_;
  int held_out_begin_ = 0;
};

class CalibrationParametersModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kParameter, kTorchRec, kFitted, kChange, kNumColumns };

  explicit CalibrationParametersModel(QObject* parent = nullptr);

  void reset(const std::vector<kernels::CalibrationParameter>& parameters);
  void clear() { reset({}); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<kernels::CalibrationParameter> parameters_;
};

class CalibrationGroupsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kGroup,
    kFitted,
    kFitCount,
    kHeldOut,
    kMapeBefore,
    kMapeAfter,
    kFitMapeBefore,
    kFitMapeAfter,
    kNumColumns
  };

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
