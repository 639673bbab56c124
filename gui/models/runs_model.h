// The run store's runs, newest first: id, kind, time, label, scenario, device,
// backend, row counts and the run's summary numbers ("rating_ms 0.3148,
// proposals 744"; ToolTipRole one per line at full precision).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "shardlab/data/run_store.h"

namespace shardlab::gui {

class RunsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kId,
    kKind,
    kCreated,
    kLabel,
    kScenario,
    kDevice,
    kBackend,
    kRows,
    kSummary,
    kNumColumns
  };

  explicit RunsModel(QObject* parent = nullptr);

  void reset(const std::vector<data::RunSummary>& runs);
  const data::RunSummary& run(int row) const { return runs_[static_cast<size_t>(row)]; }
  // A summary_json as people read it: "name value" pairs, numbers with 4
  // significant digits (`precise`: all of them, one pair per line).
  static QString format_summary(const std::string& summary_json, bool precise = false);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<data::RunSummary> runs_;
};

}  // namespace shardlab::gui
