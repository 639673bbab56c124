#include "app/export_action.h"

#include <QAction>
#include <QFileDialog>
#include <QMessageBox>
#include <QWidget>

#include "app/widget_export.h"

namespace shardlab::gui {

void export_with_dialog(QWidget* widget, const QString& name) {
  const QString path =
      QFileDialog::getSaveFileName(widget, QStringLiteral("Export %1").arg(name), name + ".png",
                                   QStringLiteral("PNG image (*.png);;SVG image (*.svg)"));
  if (path.isEmpty()) return;
  QString error;
  if (!export_widget(widget, path, &error))
    QMessageBox::warning(widget, QStringLiteral("Export failed"), error);
}

void add_export_action(QWidget* widget, const QString& name) {
  auto* action = new QAction(QStringLiteral("Export as PNG or SVG..."), widget);
  QObject::connect(action, &QAction::triggered, widget,
                   [widget, name]() { export_with_dialog(widget, name); });
  widget->addAction(action);
  widget->setContextMenuPolicy(Qt::ActionsContextMenu);
}

}  // namespace shardlab::gui
