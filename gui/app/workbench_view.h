// What every dockable view of the main window offers: a name (the --view
// name), and the widget that "Export view" writes as PNG or SVG.
#pragma once

#include <QString>
#include <QWidget>

namespace shardlab::gui {

class WorkbenchView : public QWidget {
  Q_OBJECT

 public:
  using QWidget::QWidget;

  virtual QString view_name() const = 0;
  virtual QString title() const = 0;
  // The chart or painted widget to export; the whole view by default.
  virtual QWidget* export_target() { return this; }
};

}  // namespace shardlab::gui
