// The scenario's topology, batch and planner fields, one row each (Field,
// Value, Meaning), the Value column editable under the loader's rules as in
// ScenarioTablesModel. Sizes and bandwidths take plain numbers (bytes,
// bytes/ms) or unit strings ("32 GiB", "897 GiB/s"), as a scenario file does.
#pragma once

#include <QAbstractTableModel>

#include "models/field_value.h"
#include "models/scenario_tables_model.h"

namespace shardlab::gui {

class ScenarioSettingsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kField, kValue, kMeaning, kNumColumns };

  explicit ScenarioSettingsModel(ScenarioValidator validator, QObject* parent = nullptr);

  void reset(ScenarioPtr scenario);
  // Row of the field whose JSON path renders as `path` ("topology.world_size"), or -1.
  int row_of(const QString& path) const;
  data::FieldPath field_path(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;

 signals:
  void editRefused(const QString& message);
  // `field`: the field set and its value, for the file on save.
  void scenarioEdited(shardlab::gui::ScenarioPtr scenario, const QString& description,
                      const shardlab::data::FieldEdit& field);

 private:
  ScenarioValidator validator_;
  ScenarioPtr scenario_;
};

}  // namespace shardlab::gui
