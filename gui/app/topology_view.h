// The Topology view: hosts as groups of GPUs with each host's fabric, NICs
// and leaf switch, and the network core, drawn as a graph (QGraphicsView).
// Links are labelled with their bandwidth; GPUs are coloured by HBM use of the
// shown plan or by simulated busy time per iteration. Clicking a GPU selects
// its rank.
#pragma once

#include <optional>
#include <vector>

#include "app/workbench_view.h"

#include "models/topology_snapshot.h"
#include "shardlab/planner/plan_summary.h"
#include "shardlab/sim/simulation.h"

class QComboBox;
class QGraphicsScene;
class QGraphicsView;
class QLabel;

namespace shardlab::gui {

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

  QGraphicsScene* scene() const { return scene_; }

 signals:
  void rankClicked(int rank);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void rebuild();
  void fit_scene();

  QComboBox* colour_ = nullptr;
  QLabel* legend_ = nullptr;
  QGraphicsView* view_ = nullptr;
  QGraphicsScene* scene_ = nullptr;
  std::optional<TopologySnapshot> topology_;
  QString topology_error_;
  std::vector<planner::RankSummary> ranks_;
  std::vector<double> busy_;  // per rank: max(compute, comm) busy ms per iteration
  double iteration_ms_ = 0.0;
  int selected_rank_ = -1;
  ColourBy mode_ = ColourBy::kHbmUse;
};

}  // namespace shardlab::gui
