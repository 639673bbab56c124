#include "app/widget_export.h"

#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

namespace shardlab::gui {

bool export_widget(QWidget* widget, const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(widget->size());
    svg.setViewBox(widget->rect());
    svg.setTitle(widget->windowTitle());
    svg.setDescription(QStringLiteral("ShardLab workbench"));
    QPainter painter;
    if (!painter.begin(&svg)) {
      *error = path + QStringLiteral(": cannot write SVG");
      return false;
    }
    widget->render(&painter);
    painter.end();
    if (!QFileInfo(path).exists()) {
      *error = path + QStringLiteral(": cannot write SVG");
      return false;
    }
    return true;
  }
  if (suffix != QLatin1String("png")) {
    *error =
        path + QStringLiteral(": unknown image format '.%1', expected .png or .svg").arg(suffix);
    return false;
  }
  const QPixmap pixmap = widget->grab();
  if (!pixmap.save(path, "PNG")) {
    *error = path + QStringLiteral(": cannot write PNG");
    return false;
  }
  return true;
}

}  // namespace shardlab::gui
