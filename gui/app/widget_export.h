// Exporting what a widget shows: PNG (a pixel grab) or SVG (the widget
// painted into a QSvgGenerator, so custom-painted views and QtCharts stay
// vector graphics). The format follows the file's suffix.
#pragma once

#include <QString>

class QWidget;

namespace shardlab::gui {

// Writes `widget` to `path` (.png or .svg). On failure returns false and
// sets *error to a message naming the path.
bool export_widget(QWidget* widget, const QString& path, QString* error);

}  // namespace shardlab::gui
