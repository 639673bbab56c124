// Sorting and filtering of per-table models (TableSummaryModel,
// PlacementMatrixModel) by table name, sharding type and compute kernel.
// Sorts by RawValueRole, so numbers sort as numbers.
#pragma once

#include <QSortFilterProxyModel>
#include <QString>

namespace shardlab::gui {

class TableFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit TableFilterProxy(QObject* parent = nullptr);

  // Case-insensitive substring of the table name; empty: any.
  void set_name_filter(const QString& text);
  // "table_wise", ... / "fused", ...; empty: any.
  void set_sharding_type(const QString& type);
  void set_compute_kernel(const QString& kernel);

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  QString name_;
  QString sharding_type_;
  QString kernel_;
};

}  // namespace shardlab::gui
