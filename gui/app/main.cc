// shardlab-gui: the ShardLab workbench (GPL-3.0-or-later, gui/LICENSE).
#include <cstdio>

#include <QApplication>

#include "app/command_line.h"
#include "app/main_window.h"
#include "app/screenshot.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("shardlab-gui"));
  QApplication::setOrganizationName(QStringLiteral("ShardLab"));

  shardlab::gui::CommandLine cl;
  QString error;
  bool help = false;
  if (!shardlab::gui::parse_command_line(QApplication::arguments(), &cl, &error, &help)) {
    std::fprintf(help ? stdout : stderr, "%s%s\n", help ? "" : "shardlab-gui: error: ", qPrintable(error));
    return help ? 0 : 2;
  }
  shardlab::gui::MainWindow window;
  if (!cl.db.isEmpty()) {
    if (shardlab::Status st = window.runs().open(cl.db); !st.is_ok()) {
      std::fprintf(stderr, "shardlab-gui: error: %s\n", st.message().c_str());
      if (!cl.screenshot.isEmpty()) return 2;
    }
  }
  if (!cl.scenario.isEmpty()) {
    if (shardlab::Status st = window.workbench().open_scenario(cl.scenario); !st.is_ok()) {
      std::fprintf(stderr, "shardlab-gui: error: %s\n", st.message().c_str());
      if (!cl.screenshot.isEmpty()) return 2;
    } else if (!cl.plan.isEmpty()) {
      if (shardlab::Status ps = window.workbench().open_plan(cl.plan); !ps.is_ok()) {
        std::fprintf(stderr, "shardlab-gui: error: %s\n", ps.message().c_str());
        if (!cl.screenshot.isEmpty()) return 2;
      }
    }
  }
  if (!cl.screenshot.isEmpty()) {
    if (!shardlab::gui::take_screenshot(window, cl.view, cl.screenshot, cl.size, &error)) {
      std::fprintf(stderr, "shardlab-gui: error: %s\n", qPrintable(error));
      return 2;
    }
    return 0;
  }
  if (!cl.view.isEmpty()) window.show_view(cl.view);
  window.show();
  return QApplication::exec();
}
