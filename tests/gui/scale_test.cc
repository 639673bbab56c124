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
#include "scale_checks.h"
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
    window_ = scale_window();
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

  void the_matrix_legend_names_every_sharding_type_it_colours() { check_matrix_legend(*window_); }
  void the_rank_charts_read_at_scale() { check_rank_charts(*window_, 64); }
  void the_timeline_goes_to_every_lane_of_the_critical_path() { check_critical_lanes(*window_); }
  void the_topology_labels_links_apart_and_colours_them_by_load() {
    check_topology_labels_and_loads(*window_);
  }

  void find_brings_a_table_into_view() {
    auto* plan = static_cast<PlanView*>(window_->view(QStringLiteral("plan")));
    PlacementMatrixWidget* m = plan->matrix();
    m->show_readable();
    m->verticalScrollBar()->setValue(0);
    const QString name = QStringLiteral("syn400");
    QVERIFY(plan->find_table(name));
    Workbench& wb = window_->workbench();
    QCOMPARE(wb.selection().table(), wb.scenario()->table_index(name.toStdString()));
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
    check_find_brings_a_far_shard_into_view(*window_, 48);
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

 private:
  std::unique_ptr<MainWindow> window_;
};

SHARDLAB_REGISTER_GUI_TEST(ScaleTest)

}  // namespace shardlab::gui::test

#include "scale_test.moc"
