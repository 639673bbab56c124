// A context-menu action "Export as PNG or SVG..." on a widget (charts, the
// matrix, the timeline), so any chart can be exported on its own.
#pragma once

#include <QString>

class QWidget;

namespace shardlab::gui {

// Adds the action to `widget`'s context menu; `name` is the default file name.
void add_export_action(QWidget* widget, const QString& name);

// Asks for a file name and exports `widget` (widget_export.h), reporting a
// failure in a message box.
void export_with_dialog(QWidget* widget, const QString& name);

}  // namespace shardlab::gui
