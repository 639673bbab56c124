// The views at scale, on the bundled 512-table, 64-rank scenario (8 hosts of
// 8): the placement matrix's overview, readable zoom, frozen headers, host
// grouping and find; the timeline's scrollbars, host bands and keyboard zoom;
// the topology's zoom and level of detail.
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QImage>
#include <QObject>
#include <QPainter>
#include <QPen>
#include <QScrollBar>
#include <QTest>
#include <algorithm>
#include <set>
#include <string>

#include "app/charts/chart_view.h"
#include "app/main_window.h"
#include "app/placement_matrix_widget.h"
#include "app/plan_view.h"
#include "app/timeline_view.h"
#include "app/timeline_widget.h"
#include "app/topology_view.h"
#include "gui_test_support.h"
#include "models/model_roles.h"
#include "test_registry.h"

namespace shardlab::gui::test {

class ScaleTest : public QObject {
  Q_OBJECT

 private:
  // Distinct colours in a strip of `image`.
  static int colours_in(const QImage& image, const QRect& strip) {
    QSet<QRgb> seen;
    for (int y = strip.top(); y <= strip.bottom(); y += 2) {
      for (int x = strip.left(); x <= strip.right(); x += 2) seen.insert(image.pixel(x, y));
    }
    return seen.size();
  }

 private slots:
  void initTestCase() {
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 860);
    window_->show();
    window_->show_view(QStringLiteral("plan"));
    QVERIFY(open_and_plan(window_->workbench(), "large_synthetic_8x8.json"));
  }
  void cleanupTestCase() { window_.reset(); }
  void init() { fail_on_warnings(); }

  void the_matrix_overview_shows_every_table_and_rank() {
    auto* plan = static_cast<PlanView*>(window_->view(QStringLiteral("plan")));
    PlacementMatrixWidget* m = plan->matrix();
    QCOMPARE(window_->models().placement.rowCount(), 512);
    QCOMPARE(window_->models().placement.columnCount(), 64);
    QCOMPARE(window_->models().placement.ranks_per_host(), 8);
    m->fit();
    const QSize view = m->viewport()->size();
    QVERIFY(m->cell_width() * 64 <= view.width() - m->name_width() + 0.5);
    QVERIFY(m->cell_height() * 512 <= view.height() - m->header_height() + 0.5);
    QCOMPARE(m->horizontalScrollBar()->maximum(), 0);
    QCOMPARE(m->verticalScrollBar()->maximum(), 0);
    // Host grouping: a band above the rank header.
    QVERIFY(m->header_height() > 20);
    // The overview is coloured cells (a heat map), not empty.
    QImage image(view, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    m->render_frame(p, image.rect());
    p.end();
    QVERIFY(colours_in(image, QRect(m->name_width() + 2, m->header_height() + 2,
                                    view.width() - m->name_width() - 4,
                                    view.height() - m->header_height() - 4)) > 3);
  }

  void the_matrix_keeps_its_headers_while_scrolling_at_readable_zoom() {
    auto* plan = static_cast<PlanView*>(window_->view(QStringLiteral("plan")));
    PlacementMatrixWidget* m = plan->matrix();
    m->show_readable();
    QCOMPARE(m->cell_width(), PlacementMatrixWidget::kReadableWidth);
    QCOMPARE(m->cell_height(), PlacementMatrixWidget::kReadableHeight);
    QVERIFY(m->horizontalScrollBar()->maximum() > 0);
    QVERIFY(m->verticalScrollBar()->maximum() > 0);
    m->horizontalScrollBar()->setValue(m->horizontalScrollBar()->maximum());
    m->verticalScrollBar()->setValue(m->verticalScrollBar()->maximum());
    QVERIFY(m->first_visible_rank() > 30);
    QVERIFY(m->first_visible_row() > 400);
    // Scrolled to the far corner, the rank header and the table names are
    // still painted where they always are.
    const QSize view = m->viewport()->size();
    QImage image(view, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    m->render_frame(p, image.rect());
    p.end();
    const QRgb header = m->palette().button().color().rgb();
    const QRgb names = m->palette().alternateBase().color().rgb();
    int header_px = 0;
    for (int x = m->name_width() + 1; x < view.width(); x += 3)
      header_px += image.pixel(x, m->header_height() - 3) != 0;
    QVERIFY(header_px > 0);
    QVERIFY(colours_in(image, QRect(m->name_width() + 1, 1, view.width() - m->name_width() - 2,
                                    m->header_height() - 2)) > 1);
    int name_px = 0;
    for (int y = m->header_height() + 1; y < view.height(); y += 3)
      name_px += image.pixel(1, y) == names ? 1 : 0;
    QVERIFY(name_px > (view.height() - m->header_height()) / 6);
    QCOMPARE(image.pixel(m->name_width() + 5, 2), header);
    // Zooming about a point keeps the cell under it.
    m->horizontalScrollBar()->setValue(m->horizontalScrollBar()->maximum() / 2);
    const QPointF anchor(m->name_width() + 100.0, m->header_height() + 100.0);
    const int rank_before = static_cast<int>(
        (anchor.x() - m->name_width() + m->horizontalScrollBar()->value()) / m->cell_width());
    m->zoom_by(1.5, anchor);
    QCOMPARE(m->cell_width(), 1.5 * PlacementMatrixWidget::kReadableWidth);
    const int rank_after = static_cast<int>(
        (anchor.x() - m->name_width() + m->horizontalScrollBar()->value()) / m->cell_width());
    QVERIFY(std::abs(rank_after - rank_before) <= 1);
  }

  // The matrix's colours are explained: every sharding type the plan uses,
  // and no other.
  void the_matrix_legend_names_every_sharding_type_it_colours() {
    auto* plan = static_cast<PlanView*>(window_->view(QStringLiteral("plan")));
    const PlacementMatrixModel& pm = window_->models().placement;
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

  // The per-rank charts at 64 ranks: legends name their series without the
  // axis's unit (they fit), ranks are numbered every few bars, and a bar's
  // hover text names the rank and every stacked value.
  void the_rank_charts_read_at_scale() {
    auto* plan = static_cast<PlanView*>(window_->view(QStringLiteral("plan")));
    const ChartView* hbm = plan->hbm_chart();
    QCOMPARE(hbm->legend_names(),
             QStringList({QStringLiteral("HBM shards"), QStringLiteral("HBM dense"),
                          QStringLiteral("HBM KJT"), QStringLiteral("HBM free"),
                          QStringLiteral("HBM margin")}));
    const QStringList labels = hbm->axis_labels();
    QVERIFY2(labels.size() >= 8 && labels.size() <= 32, qPrintable(labels.join(' ')));
    QCOMPARE(labels.front(), QStringLiteral("r0"));
    QVERIFY(labels.contains(QStringLiteral("r32")));
    const QString tip = hbm->describe_row(37);
    QVERIFY2(
        tip.startsWith(QStringLiteral("r37: HBM shards ")) && tip.endsWith(QStringLiteral(" GiB")),
        qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("HBM margin ")));
    QVERIFY(hbm->describe_row(64).isEmpty());
    QVERIFY(plan->time_chart()->describe_row(0).endsWith(QStringLiteral(" ms")));
  }

  void find_brings_a_table_into_view() {
    auto* plan = static_cast<PlanView*>(window_->view(QStringLiteral("plan")));
    PlacementMatrixWidget* m = plan->matrix();
    m->show_readable();
    m->verticalScrollBar()->setValue(0);
    const QString name = QStringLiteral("syn400");
    QVERIFY(plan->find_table(name));
    Workbench& wb = window_->workbench();
    QCOMPARE(wb.selected_table(), wb.scenario()->table_index(name.toStdString()));
    // Its row (in the matrix's order) is on screen.
    int row = -1;
    for (int r = 0; r < window_->models().placement_filter.rowCount(); ++r) {
      if (window_->models().placement_filter.headerData(r, Qt::Vertical).toString() == name)
        row = r;
    }
    QVERIFY(row >= 0);
    const int visible_rows =
        static_cast<int>((m->viewport()->height() - m->header_height()) / m->cell_height());
    QVERIFY(row >= m->first_visible_row() && row < m->first_visible_row() + visible_rows);
    QVERIFY(!plan->find_table(QStringLiteral("no_such_table")));
    // A table whose shards all sit on far ranks: its first shard comes into view too.
    const PlacementMatrixModel& pm = window_->models().placement;
    QString far;
    int far_rank = -1;
    for (int t = 0; t < pm.rowCount() && far_rank < 0; ++t) {
      int first = -1;
      for (int c = 0; c < pm.columnCount() && first < 0; ++c) {
        if (pm.shards_at(t, c) > 0) first = c;
      }
      if (first >= 48) {
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
        qPrintable(QStringLiteral("rank %1, first visible %2")
                       .arg(far_rank)
                       .arg(m->first_visible_rank())));
  }

  void every_shard_stays_visible_when_cells_are_below_a_pixel() {
    auto* plan = static_cast<PlanView*>(window_->view(QStringLiteral("plan")));
    PlacementMatrixWidget* m = plan->matrix();
    const QSize saved = m->size();
    m->resize(600, 300);              // 512 rows in under 300 px
    m->set_selection(-1, QString());  // no tint over the cells
    m->fit();
    QVERIFY(m->cell_height() < 1.0);
    const QSize view = m->viewport()->size();
    QImage image(view, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    m->render_frame(p, image.rect());
    p.end();
    // The pixel a filled cell starts at holds a sharding type's own colour
    // (of this row or of a row sharing the pixel), never the background or a
    // blend with it: a table with one shard stays as visible as any.
    const QAbstractItemModel& rows = window_->models().placement_filter;
    QSet<QRgb> colours;
    for (int r = 0; r < rows.rowCount(); ++r) {
      colours.insert(
          PlacementMatrixWidget::sharding_color(rows.index(r, 0).data(ShardingTypeRole).toString())
              .rgba());
    }
    QVERIFY(m->cell_width() > 4);  // columns wide enough to sample past the grid lines
    int checked = 0;
    for (int r = 0; r < rows.rowCount(); ++r) {
      for (int c = 0; c < rows.columnCount(); ++c) {
        if (rows.index(r, c).data(ShardCountRole).toInt() <= 0) continue;
        ++checked;
        const int x = m->name_width() + static_cast<int>((c + 0.5) * m->cell_width());
        const int y = m->header_height() + static_cast<int>(r * m->cell_height());
        QVERIFY2(colours.contains(image.pixel(x, y)),
                 qPrintable(QStringLiteral("row %1, rank %2").arg(r).arg(c)));
      }
    }
    QVERIFY(checked > rows.rowCount());
    m->resize(saved);
    m->fit();
  }

  void the_timeline_scrolls_groups_hosts_and_zooms_from_the_keyboard() {
    window_->show_view(QStringLiteral("timeline"));
    auto* view = static_cast<TimelineView*>(window_->view(QStringLiteral("timeline")));
    TimelineWidget* t = view->timeline();
    // 64 ranks, each with its host lane and two streams.
    QCOMPARE(static_cast<int>(window_->models().timeline.lanes().size()), 192);
    QVERIFY(view->header_text().contains(QStringLiteral("best plan")));
    // The lanes do not fit: the vertical scrollbar covers them.
    QCOMPARE(view->vertical_bar()->maximum(), t->content_height() - t->visible_height());
    QVERIFY(view->vertical_bar()->maximum() > 0);
    view->vertical_bar()->setValue(view->vertical_bar()->maximum());
    QCOMPARE(t->scroll_y(), view->vertical_bar()->maximum());
    // Keyboard zoom; the horizontal scrollbar follows.
    t->setFocus();
    const double before = t->ms_per_pixel();
    QTest::keyClick(t, Qt::Key_Plus);
    QVERIFY(t->ms_per_pixel() < before);
    QVERIFY(view->horizontal_bar()->maximum() > 0);
    QTest::keyClick(t, Qt::Key_Right);
    QCOMPARE(view->horizontal_bar()->value(), static_cast<int>(t->start_ms() / t->ms_per_pixel()));
    QTest::keyClick(t, Qt::Key_0);
    QCOMPARE(t->scroll_y(), 0);
    // Host bands: the label strip alternates colours between hosts.
    QImage image(t->size(), QImage::Format_ARGB32);
    QPainter p(&image);
    t->render_frame(p, QRect(QPoint(0, 0), t->size()));
    p.end();
    const int y0 = TimelineWidget::kAxisHeight + 2;
    const int y1 =
        TimelineWidget::kAxisHeight + 24 * TimelineWidget::kLanePitch + 2;  // host 1's first lane
    QVERIFY(image.pixel(2, y0) != image.pixel(2, y1));
  }

  // Fit shows the whole run but not all 192 lanes: the header names the
  // critical path's lanes, and "Next critical lane" (C) brings each into
  // view with its first critical phase, in lane order, wrapping.
  void the_timeline_goes_to_every_lane_of_the_critical_path() {
    window_->show_view(QStringLiteral("timeline"));
    auto* view = static_cast<TimelineView*>(window_->view(QStringLiteral("timeline")));
    TimelineWidget* t = view->timeline();
    const TimelineModel& m = window_->models().timeline;
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

  void the_topology_zooms_and_shows_text_when_readable() {
    window_->show_view(QStringLiteral("topology"));
    auto* view = static_cast<TopologyView*>(window_->view(QStringLiteral("topology")));
    QGraphicsScene* scene = view->scene();
    int gpus = 0;
    for (QGraphicsItem* item : scene->items()) {
      if (item->data(0).isValid() && item->type() == QGraphicsRectItem::Type) ++gpus;
    }
    QCOMPARE(gpus, 64);
    view->fit();
    const double fitted = view->scale();
    QVERIFY(fitted < 1.0);
    view->zoom_by(3.0);
    QCOMPARE(view->scale(), fitted * 3.0);
    // GPU labels: hidden in the overview, shown when readable.
    const auto label_visible = [scene]() {
      for (QGraphicsItem* item : scene->items()) {
        if (item->data(0).isValid() && item->type() == QGraphicsSimpleTextItem::Type)
          return item->isVisible();
      }
      return false;
    };
    view->zoom_by(1.0 / (view->scale() / 0.3));
    QVERIFY(!label_visible());
    view->zoom_by(1.0 / (view->scale() / 1.0));
    QVERIFY(label_visible());
    window_->show_view(QStringLiteral("plan"));
  }

  // Link labels never cover one another; once simulated, links carry their
  // load: in the tooltip, and in a colour and width that differ from idle.
  void the_topology_labels_links_apart_and_colours_them_by_load() {
    window_->show_view(QStringLiteral("topology"));
    auto* view = static_cast<TopologyView*>(window_->view(QStringLiteral("topology")));
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
        QVERIFY2(!labels[i].intersects(labels[j]),
                 qPrintable(QStringLiteral("%1 %2").arg(i).arg(j)));
    }
    QVERIFY(loaded > 0);
    QVERIFY(widest > 2.0);  // a busy link is drawn thicker than any idle one
    window_->show_view(QStringLiteral("plan"));
  }

 private:
  std::unique_ptr<MainWindow> window_;
};

SHARDLAB_REGISTER_GUI_TEST(ScaleTest)

}  // namespace shardlab::gui::test

#include "scale_test.moc"
