#include "app/choice_delegate.h"

#include <QComboBox>
#include <QListWidget>

#include "models/model_roles.h"

namespace shardlab::gui {
namespace {

QStringList split_list(const QString& text) {
  QStringList out;
  for (const QString& item : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
    out << item.trimmed();
  return out;
}

}  // namespace

QWidget* ChoiceDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                                      const QModelIndex& index) const {
  const QStringList choices = index.data(ChoicesRole).toStringList();
  if (choices.isEmpty()) return QStyledItemDelegate::createEditor(parent, option, index);
  if (index.data(MultiChoiceRole).toBool()) {
    auto* list = new QListWidget(parent);
    list->setObjectName(QStringLiteral("choices"));
    for (const QString& c : choices) {
      auto* item = new QListWidgetItem(c, list);
      item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
      item->setCheckState(Qt::Unchecked);
    }
    list->setToolTip(
        QStringLiteral("Check the allowed values; none checked removes the constraint. "
                       "Enter or a click elsewhere applies."));
    return list;
  }
  auto* combo = new QComboBox(parent);
  combo->addItems(choices);
  return combo;
}

void ChoiceDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
  const QString text = index.data(Qt::EditRole).toString();
  if (auto* list = qobject_cast<QListWidget*>(editor)) {
    const QStringList chosen = split_list(text);
    for (int i = 0; i < list->count(); ++i) {
      list->item(i)->setCheckState(chosen.contains(list->item(i)->text()) ? Qt::Checked
                                                                          : Qt::Unchecked);
    }
    return;
  }
  if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    const int at = combo->findText(text);
    if (at >= 0) combo->setCurrentIndex(at);
    return;
  }
  QStyledItemDelegate::setEditorData(editor, index);
}

void ChoiceDelegate::setModelData(QWidget* editor, QAbstractItemModel* model,
                                  const QModelIndex& index) const {
  if (auto* list = qobject_cast<QListWidget*>(editor)) {
    QStringList chosen;
    for (int i = 0; i < list->count(); ++i) {
      if (list->item(i)->checkState() == Qt::Checked) chosen << list->item(i)->text();
    }
    model->setData(index, chosen.join(QStringLiteral(", ")), Qt::EditRole);
    return;
  }
  if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    model->setData(index, combo->currentText(), Qt::EditRole);
    return;
  }
  QStyledItemDelegate::setModelData(editor, model, index);
}

void ChoiceDelegate::updateEditorGeometry(QWidget* editor, const QStyleOptionViewItem& option,
                                          const QModelIndex& index) const {
  if (auto* list = qobject_cast<QListWidget*>(editor)) {
    // Taller than the cell: every choice visible.
    const int rows = list->count();
    const int height = rows * list->sizeHintForRow(0) + 2 * list->frameWidth() + 2;
    list->setGeometry(option.rect.x(), option.rect.y(),
                      std::max(option.rect.width(), list->sizeHintForColumn(0) + 40), height);
    return;
  }
  QStyledItemDelegate::updateEditorGeometry(editor, option, index);
}

}  // namespace shardlab::gui
