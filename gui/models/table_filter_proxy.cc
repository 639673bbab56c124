#include "models/table_filter_proxy.h"

#include "models/model_roles.h"

namespace shardlab::gui {

TableFilterProxy::TableFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(RawValueRole);
  setDynamicSortFilter(true);
}

void TableFilterProxy::set_name_filter(const QString& text) {
  if (text == name_) return;
  name_ = text;
  invalidateFilter();
}

void TableFilterProxy::set_sharding_type(const QString& type) {
  if (type == sharding_type_) return;
  sharding_type_ = type;
  invalidateFilter();
}

void TableFilterProxy::set_compute_kernel(const QString& kernel) {
  if (kernel == kernel_) return;
  kernel_ = kernel;
  invalidateFilter();
}

bool TableFilterProxy::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  const QAbstractItemModel* m = sourceModel();
  if (m == nullptr) return false;
  // Both per-table models answer the roles on their vertical header.
  const auto value = [&](int role) {
    QVariant v = m->headerData(source_row, Qt::Vertical, role);
    if (!v.isValid() && m->columnCount(source_parent) > 0)
      v = m->index(source_row, 0, source_parent).data(role);
    return v.toString();
  };
  if (!name_.isEmpty() && !value(TableNameRole).contains(name_, Qt::CaseInsensitive)) return false;
  if (!sharding_type_.isEmpty() && value(ShardingTypeRole) != sharding_type_) return false;
  if (!kernel_.isEmpty() && value(ComputeKernelRole) != kernel_) return false;
  return true;
}

}  // namespace shardlab::gui
