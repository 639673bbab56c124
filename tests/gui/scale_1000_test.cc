// The workbench at production scale: a synthetic 1,000-table model on 128
// ranks (16 hosts of 8, benchmarks/synthetic_scenario.h). Each view renders
// offscreen, and what must be visible is: the matrix's legend, the per-rank
// charts' rank numbers, legends and hover text, the far shards find brings
// into view, every lane of the critical path, and topology labels apart with
// links coloured by load (scale_checks.h, as at 512 x 64 in scale_test.cc).
#include <QImage>
#include <QObject>
#include <QSet>
#include <QTemporaryDir>
#include <memory>

#include "../../benchmarks/synthetic_scenario.h"
#include "app/screenshot.h"
#include "gui_test_support.h"
#include "scale_checks.h"
#include "test_registry.h"

namespace shardlab::gui::test {

class Scale1000Test : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    window_ = scale_window();
    window_->workbench().document().open(
        std::make_shared<const planner::Scenario>(bench::synthetic_scenario(1000, 128)), QString(),
        QStringLiteral("synthetic 1,000 x 128"));
    QVERIFY(wait_for_current_plan(window_->workbench(), 240000));
    QVERIFY(window_->workbench().simulation() != nullptr);
    QCOMPARE(window_->models().placement.columnCount(), 128);
  }
  void cleanupTestCase() { window_.reset(); }
  void init() { fail_on_warnings(); }

  void the_matrix_legend_names_every_sharding_type_it_colours() { check_matrix_legend(*window_); }
  void the_rank_charts_read_at_scale() { check_rank_charts(*window_, 128); }
  void find_brings_a_far_shard_into_view() {
    check_find_brings_a_far_shard_into_view(*window_, 96);
  }
  void the_timeline_goes_to_every_lane_of_the_critical_path() { check_critical_lanes(*window_); }
  void the_topology_labels_links_apart_and_colours_them_by_load() {
    check_topology_labels_and_loads(*window_);
  }

  // The views a screenshot shows at this scale are drawn, not blank.
  void the_views_render_offscreen() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const char* view : {"plan", "timeline", "topology"}) {
      const QString path = dir.filePath(QString::fromLatin1(view) + QStringLiteral(".png"));
      QString error;
      QVERIFY2(take_screenshot(*window_, QString::fromLatin1(view), path, QSize(1400, 860), &error),
               qPrintable(error));
      const QImage image(path);
      QSet<QRgb> colours;
      for (int y = 0; y < image.height(); y += 7) {
        for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
      }
      QVERIFY2(colours.size() > 8, view);
    }
    window_->show_view(QStringLiteral("plan"));
  }

 private:
  std::unique_ptr<MainWindow> window_;
};

SHARDLAB_REGISTER_GUI_TEST(Scale1000Test)

}  // namespace shardlab::gui::test

#include "scale_1000_test.moc"
