// The scenario's tables with their main constraints, one row per table,
// editable in place. An edit goes through the loader's rules (the injected
// validator, ScenarioDocument::validate_edit): a refused value leaves the model unchanged and
// emits editRefused with the loader's message; an accepted one updates the
// row and emits scenarioEdited with the new scenario. Nothing is clamped.
#pragma once

#include <QAbstractTableModel>
#include <functional>

#include "models/planning_job.h"
#include "shardlab/data/scenario_edit.h"
#include "shardlab/planner/status.h"

namespace shardlab::gui {

using ScenarioValidator =
    std::function<Result<ScenarioPtr>(const data::FieldPath&, const QString& value_json)>;

// How an accepted edit is named in the undo history: "tables[2].embedding_dim: 32 -> 64".
QString edit_description(const data::FieldPath& path, const QString& before, const QString& after);

class ScenarioTablesModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kName,
    kRows,
    kDim,
    kDataType,
    kWeighted,
    kFeatures,
    kPoolingFactors,
    kShardingTypes,
    kComputeKernels,
    kMinPartition,
    kVirtualTable,  // tables[].use_virtual_table (2026-08)
    kL1Cache,       // constraints.<t>.key_value_params.max_l1_cache_size, MiB (2026-08)
    kNumColumns
  };

  explicit ScenarioTablesModel(ScenarioValidator validator, QObject* parent = nullptr);

  // Shows `scenario`; a no-op when it is already shown (an accepted edit
  // comes back this way).
  void reset(ScenarioPtr scenario);
  const ScenarioPtr& scenario() const { return scenario_; }

  // The scenario field a cell edits.
  data::FieldPath field_path(int row, int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;

 signals:
  void editRefused(const QString& message);
  // `description`: edit_description() of the field.
  // `field`: the field set and its value, for the file on save.
  void scenarioEdited(shardlab::gui::ScenarioPtr scenario, const QString& description,
                      const shardlab::data::FieldEdit& field);

 private:
  QString text(int row, int column) const;

  ScenarioValidator validator_;
  ScenarioPtr scenario_;
};

}  // namespace shardlab::gui

Q_DECLARE_METATYPE(shardlab::gui::ScenarioPtr)
