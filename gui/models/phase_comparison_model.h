// A replay run's measured per-phase times beside what the models said, for
// the plan the workbench shows (kernels::compare_phases, what `shardlab
// replay` prints): per rank and phase, the measured median and p90,
// TorchRec's estimate, the simulated time, and the simulation against the
// measurement. Empty unless the shown plan comes from a run with measurements.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "shardlab/kernels/phase_report.h"

namespace shardlab::gui {

class PhaseComparisonModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kRank,
    kPhase,
    kMeasured,
    kP90,
    kEstimate,
    kSimulated,
    kSimVsMeasured,
    kNumColumns
  };

  explicit PhaseComparisonModel(QObject* parent = nullptr);

  void reset(std::vector<kernels::PhaseComparison> rows);
  void clear() { reset({}); }
  const std::vector<kernels::PhaseComparison>& rows() const { return rows_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<kernels::PhaseComparison> rows_;
};

}  // namespace shardlab::gui
