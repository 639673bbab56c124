#include "app/screenshot.h"

#include <QApplication>
#include <QDoubleSpinBox>
#include <QPixmap>
#include <QTableView>

#include "app/compare_view.h"
#include "app/main_window.h"
#include "app/workbench_view.h"

namespace shardlab::gui {
namespace {

constexpr double kScreenshotOptimizeSeconds = 10.0;

void settle(MainWindow& window) {
  window.workbench().worker().wait_idle();
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
}

}  // namespace

bool take_screenshot(MainWindow& window, const QString& view, const QString& path,
                     const QSize& size, QString* error) {
  if (window.view(view) == nullptr) {
    *error = QStringLiteral("--view: '%1' is not available in this build (views: %2)")
                 .arg(view, window.views().join(QStringLiteral(", ")));
    return false;
  }
  window.resize(size);
  window.show();
  window.show_view(view);
  settle(window);
  if (view == QLatin1String("compare") && window.workbench().scenario()) {
    window.workbench().compare();
    settle(window);
    // And the optimizer's row, searching for a few seconds, scrolled into view.
    if (auto* compare = qobject_cast<CompareView*>(window.view(view))) {
      compare->time_limit()->setValue(kScreenshotOptimizeSeconds);
      compare->optimize();
      settle(window);
      compare->rows_view()->scrollToBottom();
    }
  }
  settle(window);
  const QPixmap image = window.grab();
  if (image.isNull() || !image.save(path, "PNG")) {
    *error = path + QStringLiteral(": cannot write PNG");
    return false;
  }
  return true;
}

}  // namespace shardlab::gui
