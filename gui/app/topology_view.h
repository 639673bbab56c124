// The Topology view: hosts as groups of GPUs with each host's fabric, NICs
// and leaf switch, and the network core, drawn as a graph (QGraphicsView).
// Links are labelled with their bandwidth (a label that would overlap one
// already placed is left to the link's tooltip) and, once simulated,
// coloured and thickened by their load (the busier direction's utilization
// over the run, sim::LinkResult); GPUs are coloured by HBM use of the shown
// plan or by simulated busy time per iteration. Double-clicking a GPU
// selects its rank.
//
// At a hundred GPUs: hosts sit in a grid, and each host's link to the core
// runs along the gaps between hosts (a bus above each row of hosts, a trunk
// on the left), never across another host. The wheel zooms about the cursor,
// dragging pans, +/- zoom, 0 (or Fit) shows everything; GPU text appears
// once the zoom makes it readable. The scene is rebuilt only while the view
// is visible.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/workbench_view.h"
#include "models/topology_snapshot.h"
#include "shardlab/planner/plan_summary.h"
#include "shardlab/sim/simulation.h"

class QComboBox;
class QGraphicsItem;
class QGraphicsScene;
class QGraphicsView;
class QLabel;

namespace shardlab::gui {

class StaleBanner;
class WorkbenchModels;

class TopologyView : public WorkbenchView {
  Q_OBJECT

 public:
  enum class ColourBy { kHbmUse, kBusyTime };

  // Follows `models`' workbench when given (the application); tests may
  // feed it directly.
  explicit TopologyView(WorkbenchModels* models = nullptr, QWidget* parent = nullptr);

  QString view_name() const override { return QStringLiteral("topology"); }
  QString title() const override { return QStringLiteral("Topology"); }
  QWidget* export_target() override;

  void set_topology(const Result<TopologySnapshot>& topology);
  void set_usage(const std::vector<planner::RankSummary>& ranks);
  void set_simulation(const sim::SimResult* simulation);
  void set_selected_rank(int rank);
  void set_colour_by(ColourBy mode);

  // Shows the whole cluster; zooms by `factor` about the view's centre.
  void fit();
  void zoom_by(double factor);
  double scale() const;

  // The scene, rebuilt first when it is out of date.
  QGraphicsScene* scene();

 signals:
  void rankClicked(int rank);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  // Marks the scene out of date and rebuilds it now when visible.
  void invalidate();
  void rebuild();
  void update_detail();

  StaleBanner* banner_ = nullptr;
  QComboBox* colour_ = nullptr;
  QLabel* legend_ = nullptr;
  QGraphicsView* view_ = nullptr;
  QGraphicsScene* scene_ = nullptr;
  std::vector<QGraphicsItem*> details_;  // text shown only when readable
  std::optional<TopologySnapshot> topology_;
  QString topology_error_;
  std::vector<planner::RankSummary> ranks_;
  std::vector<double> busy_;  // per rank: max(compute, comm) busy ms per iteration
  std::map<std::string, sim::LinkResult> link_use_;  // by link name; empty: not simulated
  double iteration_ms_ = 0.0;
  int selected_rank_ = -1;
  ColourBy mode_ = ColourBy::kHbmUse;
  bool dirty_ = true;
  bool fitted_ = true;  // keep fitting on resize until the user zooms
};

}  // namespace shardlab::gui
