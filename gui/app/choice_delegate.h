// Editors for cells whose model offers ChoicesRole (model_roles.h): a
// drop-down for one value, a list of check boxes for several (written back
// "a, b"; none checked: no constraint). Other cells get the default editor.
#pragma once

#include <QStyledItemDelegate>

namespace shardlab::gui {

class ChoiceDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                        const QModelIndex& index) const override;
  void setEditorData(QWidget* editor, const QModelIndex& index) const override;
  void setModelData(QWidget* editor, QAbstractItemModel* model,
                    const QModelIndex& index) const override;
  void updateEditorGeometry(QWidget* editor, const QStyleOptionViewItem& option,
                            const QModelIndex& index) const override;
};

}  // namespace shardlab::gui
