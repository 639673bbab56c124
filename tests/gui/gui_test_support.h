// Shared pieces of the workbench tests: bundled scenario paths, waiting for
// the background planner, and a QAbstractItemModelTester on every model.
#pragma once

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QString>
#include <QTest>
#include <memory>
#include <vector>

#include "models/workbench_models.h"

namespace shardlab::gui::test {

inline QString scenario_path(const char* file) {
  return QStringLiteral(SHARDLAB_SOURCE_DIR "/data/scenarios/") + QString::fromLatin1(file);
}

// Every warning fails the test, except the offscreen platform's note that it
// cannot propagate size hints (printed whenever a top-level window shows).
inline void fail_on_warnings() {
  QTest::failOnWarning(
      QRegularExpression(QStringLiteral("^(?!This plugin does not support propagateSizeHints).*")));
}

// Waits for `signal` of `object` (already spied by `spy`) up to `ms`.
inline bool wait_for(QSignalSpy& spy, int count = 1, int ms = 60000) {
  while (spy.count() < count) {
    if (!spy.wait(ms)) return false;
  }
  return true;
}

// Waits until the session holds a current plan outcome (planned for the
// scenario and settings on screen) and nothing runs.
inline bool wait_for_current_plan(Workbench& wb, int ms = 60000) {
  QElapsedTimer clock;
  clock.start();
  while (!(wb.outcome() && wb.plan_state().current() && !wb.busy())) {
    if (clock.elapsed() > ms) return false;
    QTest::qWait(5);
  }
  return true;
}

// Waits until the session holds a complete comparison and none runs.
inline bool wait_for_compare(Workbench& wb, int ms = 60000) {
  QElapsedTimer clock;
  clock.start();
  while (!(wb.comparison().outcome() && wb.comparison().outcome()->complete &&
           !wb.worker().comparing())) {
    if (clock.elapsed() > ms) return false;
    QTest::qWait(5);
  }
  return true;
}

// Opens `file` and waits for its planning outcome (and the best plan's
// simulation, which comes with it).
inline bool open_and_plan(Workbench& wb, const char* file) {
  if (!wb.document().open_file(scenario_path(file)).is_ok()) return false;
  return wait_for_current_plan(wb);
}

// A tester per model; they check every change the models make while the
// test runs, and report through QTest.
inline std::vector<std::unique_ptr<QAbstractItemModelTester>> attach_testers(WorkbenchModels& m) {
  std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
  for (QAbstractItemModel* model : std::initializer_list<QAbstractItemModel*>{
           &m.tables, &m.settings, &m.placement, &m.placement_filter, &m.ranks, &m.table_summary,
           &m.table_filter, &m.proposals, &m.compare, &m.compare_ranks, &m.timeline,
           &m.measured_phases}) {
    testers.push_back(std::make_unique<QAbstractItemModelTester>(
        model, QAbstractItemModelTester::FailureReportingMode::QtTest));
  }
  return testers;
}

}  // namespace shardlab::gui::test
