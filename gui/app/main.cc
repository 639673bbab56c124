// shardlab-gui: the ShardLab workbench (GPL-3.0-or-later, gui/LICENSE).
#include <QApplication>
#include <QMessageBox>
#include <cstdio>
#include <string>
#include <vector>

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
    std::fprintf(help ? stdout : stderr, "%s%s\n",
                 help ? "" : "shardlab-gui: error: ", qPrintable(error));
    return help ? 0 : 2;
  }
  shardlab::gui::MainWindow window;
  const bool interactive = cl.screenshot.isEmpty();
  // Errors go to stderr, and in a dialog once the window is up.
  QStringList errors;
  const auto report = [&](const shardlab::Status& st) {
    std::fprintf(stderr, "shardlab-gui: error: %s\n", st.message().c_str());
    errors << QString::fromStdString(st.message());
  };
  if (!cl.db.isEmpty()) {
    if (shardlab::Status st = window.runs().open(cl.db); !st.is_ok()) {
      report(st);
      if (!interactive) return 2;
    }
  }
  // The view that fits what was given: the plan of a scenario, else the runs
  // of a store, else the scenario view (File > Open scenario).
  QString first_view = !cl.view.isEmpty()       ? cl.view
                       : !cl.scenario.isEmpty() ? QStringLiteral("plan")
                       : !cl.db.isEmpty()       ? QStringLiteral("runs")
                                                : QStringLiteral("scenario");
  if (!cl.scenario.isEmpty()) {
    if (shardlab::Status st = window.workbench().document().open_file(cl.scenario); !st.is_ok()) {
      report(st);
      if (!interactive) return 2;
      if (cl.view.isEmpty()) first_view = QStringLiteral("scenario");
    } else if (!cl.plan.isEmpty()) {
      if (shardlab::Status ps = window.workbench().open_plan(cl.plan); !ps.is_ok()) {
        report(ps);
        if (!interactive) return 2;
      }
    }
  }
  if (!cl.traces.isEmpty()) {
    std::vector<std::string> paths;
    for (const QString& t : cl.traces) paths.push_back(t.toStdString());
    window.models().trace.load(std::move(paths));
    if (!interactive) {
      window.models().trace.wait_idle();
      if (const shardlab::Status& st = window.models().trace.status(); !st.is_ok()) {
        report(st);
        return 2;
      }
    }
  }
  if (!interactive) {
    if (!shardlab::gui::take_screenshot(window, cl.view, cl.screenshot, cl.size, &error)) {
      std::fprintf(stderr, "shardlab-gui: error: %s\n", qPrintable(error));
      return 2;
    }
    return 0;
  }
  window.show();
  window.show_view(first_view);
  if (!errors.isEmpty()) {
    QMessageBox::critical(&window, QStringLiteral("ShardLab workbench"),
                          errors.join(QStringLiteral("\n\n")));
  }
  return QApplication::exec();
}
