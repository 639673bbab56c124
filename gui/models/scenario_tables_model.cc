#include "models/scenario_tables_model.h"

#include <QLocale>
#include <QStringList>

#include "models/field_value.h"
#include "models/model_roles.h"

namespace shardlab::gui {
namespace {

QString number_list(const std::vector<double>& values) {
  QStringList out;
  for (double v : values) out << QString::number(v, 'g', QLocale::FloatingPointShortest);
  return out.join(QStringLiteral(", "));
}

template <typename T, typename F>
QString name_list(const std::vector<T>& values, F&& name) {
  QStringList out;
  for (const T& v : values) out << QString::fromUtf8(std::string(name(v)).c_str());
  return out.join(QStringLiteral(", "));
}

FieldKind kind_of(int column) {
  switch (column) {
    case ScenarioTablesModel::kRows:
    case ScenarioTablesModel::kDim:
    case ScenarioTablesModel::kMinPartition:
    case ScenarioTablesModel::kL1Cache:
      return FieldKind::kNumber;
    case ScenarioTablesModel::kWeighted:
    case ScenarioTablesModel::kVirtualTable:
      return FieldKind::kBool;
    case ScenarioTablesModel::kPoolingFactors:
      return FieldKind::kNumberList;
    case ScenarioTablesModel::kFeatures:
    case ScenarioTablesModel::kShardingTypes:
    case ScenarioTablesModel::kComputeKernels:
      return FieldKind::kStringList;
    default:
      return FieldKind::kString;
  }
}

// The checkable columns: booleans shown as a check box.
bool is_check_column(int column) {
  return column == ScenarioTablesModel::kWeighted || column == ScenarioTablesModel::kVirtualTable;
}

}  // namespace

QString edit_description(const data::FieldPath& path, const QString& before, const QString& after) {
  const auto shown = [](const QString& v) { return v.isEmpty() ? QStringLiteral("(none)") : v; };
  return QStringLiteral("%1: %2 \u2192 %3")
      .arg(QString::fromStdString(data::to_string(path)), shown(before), shown(after));
}

ScenarioTablesModel::ScenarioTablesModel(ScenarioValidator validator, QObject* parent)
    : QAbstractTableModel(parent), validator_(std::move(validator)) {}

void ScenarioTablesModel::reset(ScenarioPtr scenario) {
  if (scenario == scenario_) return;
  if (scenario && scenario_ && rowCount() > 0 &&
      scenario->tables.size() == scenario_->tables.size()) {
    // The same rows with other values (an undo, redo or another view's
    // edit): keep the view's scroll position and selection.
    scenario_ = std::move(scenario);
    emit dataChanged(index(0, 0), index(rowCount() - 1, kNumColumns - 1));
    return;
  }
  beginResetModel();
  scenario_ = std::move(scenario);
  endResetModel();
}

int ScenarioTablesModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !scenario_) return 0;
  return static_cast<int>(scenario_->tables.size());
}

int ScenarioTablesModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kNumColumns;
}

data::FieldPath ScenarioTablesModel::field_path(int row, int column) const {
  const planner::TableSpec& t = scenario_->tables[static_cast<size_t>(row)];
  const auto table_field = [&](const char* key) {
    return data::FieldPath{"tables", row, std::string(key)};
  };
  const auto constraint = [&](const char* key) {
    return data::FieldPath{"constraints", t.name, std::string(key)};
  };
  switch (column) {
    case kName:
      return table_field("name");
    case kRows:
      return table_field("num_embeddings");
    case kDim:
      return table_field("embedding_dim");
    case kDataType:
      return table_field("data_type");
    case kWeighted:
      return table_field("is_weighted");
    case kFeatures:
      return table_field("feature_names");
    case kPoolingFactors:
      return constraint("pooling_factors");
    case kShardingTypes:
      return constraint("sharding_types");
    case kComputeKernels:
      return constraint("compute_kernels");
    case kMinPartition:
      return constraint("min_partition");
    case kVirtualTable:
      return table_field("use_virtual_table");
    case kL1Cache:
      return data::FieldPath{"constraints", t.name, "key_value_params", "max_l1_cache_size"};
    default:
      return {};
  }
}

QString ScenarioTablesModel::text(int row, int column) const {
  const planner::TableSpec& t = scenario_->tables[static_cast<size_t>(row)];
  const std::optional<planner::ConstraintSpec>& c =
      scenario_->constraints[static_cast<size_t>(row)];
  switch (column) {
    case kName:
      return QString::fromStdString(t.name);
    case kRows:
      return QString::number(t.num_embeddings);
    case kDim:
      return QString::number(t.embedding_dim);
    case kDataType:
      return QString::fromUtf8(std::string(planner::to_string(t.data_type)).c_str());
    case kWeighted:
      return t.is_weighted ? QStringLiteral("true") : QStringLiteral("false");
    case kFeatures:
      return name_list(t.feature_names, [](const std::string& s) { return s; });
    case kPoolingFactors:
      return c && c->pooling_factors
                 ? (c->pooling_factors->empty() ? QStringLiteral("[]")
                                                : number_list(*c->pooling_factors))
                 : QString();
    case kShardingTypes:
      return c && c->sharding_types
                 ? name_list(*c->sharding_types,
                             [](planner::ShardingType s) { return planner::to_string(s); })
                 : QString();
    case kComputeKernels:
      return c && c->compute_kernels
                 ? name_list(*c->compute_kernels,
                             [](planner::ComputeKernel k) { return planner::to_string(k); })
                 : QString();
    case kMinPartition:
      return c && c->min_partition ? QString::number(*c->min_partition) : QString();
    case kVirtualTable:
      return t.use_virtual_table ? QStringLiteral("true") : QStringLiteral("false");
    case kL1Cache:
      return c && c->key_value_params && c->key_value_params->max_l1_cache_size
                 ? QString::number(*c->key_value_params->max_l1_cache_size)
                 : QString();
    default:
      return {};
  }
}

QVariant ScenarioTablesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index) || !scenario_) return {};
  const int row = index.row();
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
      if (is_check_column(column) && role == Qt::DisplayRole) return {};
      return text(row, column);
    case Qt::CheckStateRole:
      if (is_check_column(column))
        return text(row, column) == QStringLiteral("true") ? Qt::Checked : Qt::Unchecked;
      return {};
    case Qt::ToolTipRole: {
      QString tip = QString::fromStdString(data::to_string(field_path(row, column)));
      if (column == kRows) {
        const planner::TableSpec& t = scenario_->tables[static_cast<size_t>(row)];
        tip += QStringLiteral(": %1 rows x %2 columns")
                   .arg(QLocale().toString(t.num_embeddings))
                   .arg(t.embedding_dim);
      }
      return tip;
    }
    case TableNameRole:
      return QString::fromStdString(scenario_->tables[static_cast<size_t>(row)].name);
    case ChoicesRole:
      if (column == kShardingTypes) return sharding_type_names();
      if (column == kComputeKernels) return compute_kernel_names();
      if (column == kDataType) return data_type_names();
      return {};
    case MultiChoiceRole:
      return column == kShardingTypes || column == kComputeKernels;
    case RawValueRole:
      if (column == kRows)
        return QVariant::fromValue<qint64>(
            scenario_->tables[static_cast<size_t>(row)].num_embeddings);
      if (column == kDim)
        return QVariant::fromValue<qint64>(
            scenario_->tables[static_cast<size_t>(row)].embedding_dim);
      return text(row, column);
    default:
      return {};
  }
}

QVariant ScenarioTablesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  static const char* const kHeaders[] = {"Table",           "Rows",           "Dim",
                                         "Data type",       "Weighted",       "Features",
                                         "Pooling factors", "Sharding types", "Compute kernels",
                                         "Min partition",   "Virtual table",  "L1 cache (MiB)"};
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

Qt::ItemFlags ScenarioTablesModel::flags(const QModelIndex& index) const {
  if (!index.isValid() || !checkIndex(index)) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  // Renaming would orphan the table's constraints entry: names are fixed here.
  if (index.column() == kName) return f;
  if (is_check_column(index.column())) return f | Qt::ItemIsUserCheckable;
  return f | Qt::ItemIsEditable;
}

bool ScenarioTablesModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || !checkIndex(index) || !scenario_) return false;
  const int column = index.column();
  QString typed;
  if (role == Qt::CheckStateRole && is_check_column(column)) {
    typed = value.toInt() == Qt::Checked ? QStringLiteral("true") : QStringLiteral("false");
  } else if (role == Qt::EditRole && (flags(index) & Qt::ItemIsEditable)) {
    typed = value.toString();
  } else {
    return false;
  }
  const QString before = text(index.row(), column);
  if (typed.trimmed() == before) return true;  // unchanged: no replan
  const data::FieldPath path = field_path(index.row(), column);
  const std::string value_json = field_json(kind_of(column), typed).toStdString();
  Result<ScenarioPtr> edited = validator_(path, QString::fromStdString(value_json));
  if (!edited.is_ok()) {
    emit editRefused(QString::fromStdString(edited.status().message()));
    return false;
  }
  scenario_ = std::move(edited).value();
  emit dataChanged(this->index(index.row(), 0), this->index(index.row(), kNumColumns - 1));
  emit scenarioEdited(scenario_, edit_description(path, before, text(index.row(), column)),
                      data::FieldEdit{path, value_json});
  return true;
}

}  // namespace shardlab::gui
