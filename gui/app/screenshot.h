// --screenshot: renders one view of the real application to a PNG. The
// session plans (and for "compare" compares the scenario and adds the
// optimizer's row, searching 10 s) first, waiting for the background work, so
// the image shows finished results.
#pragma once

#include <QSize>
#include <QString>

namespace shardlab::gui {

class MainWindow;

// Raises `view`, waits for planning, grabs the window at `size` and writes
// `path`. On failure returns false with *error set.
bool take_screenshot(MainWindow& window, const QString& view, const QString& path,
                     const QSize& size, QString* error);

}  // namespace shardlab::gui
