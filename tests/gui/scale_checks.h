// Checks of the workbench at scale, shared by the scale tests of the bundled
// 512 x 64 scenario (scale_test.cc) and of a synthetic 1,000 x 128 one
// (scale_1000_test.cc): what must be visible, asserted on the views' state.
// Each reports through QTest; the caller stops on a failure.
#pragma once

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QPen>
#include <QScrollBar>
#include <QTest>
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/charts/chart_view.h"
#include "app/main_window.h"
#include "app/placement_matrix_widget.h"
#include "app/plan_view.h"
#include "app/timeline_view.h"
#include "app/timeline_widget.h"
#include "app/topology_view.h"

namespace shardlab::gui::test {

// The window the scale tests look at: 1400 x 860, shown, on the Plan view.
inline std::unique_ptr<MainWindow> scale_window() {
  auto window = std::make_unique<MainWindow>();
  window->resize(1400, 860);
  window->show();
  window->show_view(QStringLiteral("plan"));
  return window;
}

// The matrix's colours are explained: every sharding type the plan uses,
// and no other.
inline void check_matrix_legend(MainWindow& w) {
  auto* plan = static_cast<PlanView*>(w.view(QStringLiteral("plan")));
  const PlacementMatrixModel& pm = w.models().placement;
  std::set<planner::ShardingType> used;
  for (int t = 0; t < pm.rowCount(); ++t) used.insert(pm.table(t).sharding_type);
  QVERIFY(!used.empty());
  const QString legend = plan->legend_text();
  for (int i = 0; i < planner::kNumShardingTypes; ++i) {
    const auto type = static_cast<planner::ShardingType>(i);
    const QString name = QString::fromStdString(std::string(planner::to_string(type)));
    QCOMPARE(legend.contains(QStringLiteral(" ") + name), used.count(type) > 0);
    if (used.count(type) > 0)
      QVERIFY(legend.contains(PlacementMatrixWidget::sharding_color(type).name()));
  }
}

// The per-rank charts at `ranks` ranks: legends name their series without
// the axis's unit (they fit), ranks are numbered every few bars, and a
// bar's hover text names the rank and every stacked value.
inline void check_rank_charts(MainWindow& w, int ranks) {
  auto* plan = static_cast<PlanView*>(w.view(QStringLiteral("plan")));
  const ChartView* hbm = plan->hbm_chart();
  QCOMPARE(hbm->legend_names(),
           QStringList({QStringLiteral("HBM shards"), QStringLiteral("HBM dense"),
                        QStringLiteral("HBM KJT"), QStringLiteral("HBM free"),
                        QStringLiteral("HBM margin")}));
  const QStringList labels = hbm->axis_labels();
  QVERIFY2(labels.size() >= 8 && labels.size() <= 32, qPrintable(labels.join(' ')));
  QCOMPARE(labels.front(), QStringLiteral("r0"));
  QVERIFY(labels.contains(QStringLiteral("r%1").arg(ranks / 2)));
  const int row = ranks / 2 + 5;
  const QString tip = hbm->describe_row(row);
  QVERIFY2(tip.startsWith(QStringLiteral("r%1: HBM shards ").arg(row)) &&
               tip.endsWith(QStringLiteral(" GiB")),
           qPrintable(tip));
  QVERIFY(tip.contains(QStringLiteral("HBM margin ")));
  QVERIFY(hbm->describe_row(ranks).isEmpty());
  QVERIFY(plan->time_chart()->describe_row(0).endsWith(QStringLiteral(" ms")));
}

// A table whose shards all sit on ranks from `min_rank` on: find brings its
// first shard into view, not only its row.
inline void check_find_brings_a_far_shard_into_view(MainWindow& w, int min_rank) {
  auto* plan = static_cast<PlanView*>(w.view(QStringLiteral("plan")));
  PlacementMatrixWidget* m = plan->matrix();
  m->show_readable();
  // A table whose shards all sit on far ranks: its first shard comes into view too.
  const PlacementMatrixModel& pm = w.models().placement;
  QString far;
  int far_rank = -1;
  for (int t = 0; t < pm.rowCount() && far_rank < 0; ++t) {
    int first = -1;
    for (int c = 0; c < pm.columnCount() && first < 0; ++c) {
      if (pm.shards_at(t, c) > 0) first = c;
    }
    if (first >= min_rank) {
      far = QString::fromStdString(pm.table(t).name);
      far_rank = first;
    }
  }
  QVERIFY(far_rank >= 0);
  m->horizontalScrollBar()->setValue(0);
  const int visible_ranks =
      static_cast<int>((m->viewport()->width() - m->name_width()) / m->cell_width());
  QVERIFY(far_rank >= visible_ranks);  // off screen before the find
  QVERIFY(plan->find_table(far));
  QVERIFY2(
      far_rank >= m->first_visible_rank() && far_rank < m->first_visible_rank() + visible_ranks,
      qPrintable(
          QStringLiteral("rank %1, first visible %2").arg(far_rank).arg(m->first_visible_rank())));
}

// Fit shows the whole run but not every lane: the header names the
// critical path's lanes, and "Next critical lane" (C) brings each into view
// with its first critical phase, in lane order, wrapping.
inline void check_critical_lanes(MainWindow& w) {
  w.show_view(QStringLiteral("timeline"));
  auto* view = static_cast<TimelineView*>(w.view(QStringLiteral("timeline")));
  TimelineWidget* t = view->timeline();
  const TimelineModel& m = w.models().timeline;
  const std::vector<int> critical = m.critical_lanes();
  QVERIFY(!critical.empty());
  QVERIFY2(view->header_text().contains(lane_name(m.lanes()[static_cast<size_t>(critical[0])])),
           qPrintable(view->header_text()));
  t->fit();
  t->setFocus();
  for (size_t round = 0; round < critical.size() + 1; ++round) {
    const int lane = round == 0 ? t->show_next_critical() : -2;
    if (round > 0) QTest::keyClick(t, Qt::Key_C);
    const int want = critical[round % critical.size()];
    if (round == 0) QCOMPARE(lane, want);
    // The lane is in view...
    const int y = want * TimelineWidget::kLanePitch - t->scroll_y();
    QVERIFY2(y >= 0 && y + TimelineWidget::kLaneHeight <= t->visible_height(),
             qPrintable(QStringLiteral("lane %1 at y %2").arg(want).arg(y)));
    // ... and so is its first critical phase.
    const TimelineLane& l = m.lanes()[static_cast<size_t>(want)];
    const auto first = std::find_if(l.phases.begin(), l.phases.end(),
                                    [](const TimelinePhase& p) { return p.critical; });
    QVERIFY(first != l.phases.end());
    const double right =
        t->start_ms() + (t->width() - TimelineWidget::kLabelWidth) * t->ms_per_pixel();
    QVERIFY(first->record.start_ms >= t->start_ms() && first->record.start_ms <= right);
  }
}

// Link labels never cover one another; once simulated, links carry their
// load: in the tooltip, and in a colour and width that differ from idle.
inline void check_topology_labels_and_loads(MainWindow& w) {
  w.show_view(QStringLiteral("topology"));
  auto* view = static_cast<TopologyView*>(w.view(QStringLiteral("topology")));
  QGraphicsScene* scene = view->scene();
  std::vector<QRectF> labels;
  int loaded = 0;
  double widest = 0.0;
  for (QGraphicsItem* item : scene->items()) {
    if (auto* text = qgraphicsitem_cast<QGraphicsSimpleTextItem*>(item);
        text != nullptr && text->text().endsWith(QStringLiteral("/s")))
      labels.push_back(text->sceneBoundingRect());
    if (item->toolTip().contains(QStringLiteral("; simulated: "))) {
      ++loaded;
      if (auto* line = qgraphicsitem_cast<QGraphicsLineItem*>(item))
        widest = std::max(widest, line->pen().widthF());
      if (auto* path = qgraphicsitem_cast<QGraphicsPathItem*>(item))
        widest = std::max(widest, path->pen().widthF());
    }
  }
  QVERIFY(labels.size() > 8);
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t j = i + 1; j < labels.size(); ++j)
      QVERIFY2(!labels[i].intersects(labels[j]), qPrintable(QStringLiteral("%1 %2").arg(i).arg(j)));
  }
  QVERIFY(loaded > 0);
  QVERIFY(widest > 2.0);  // a busy link is drawn thicker than any idle one
  w.show_view(QStringLiteral("plan"));
}

}  // namespace shardlab::gui::test
