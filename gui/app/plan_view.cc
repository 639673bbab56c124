#include "app/plan_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <array>
#include <string_view>

#include "app/charts/chart_view.h"
#include "app/export_action.h"
#include "app/placement_matrix_widget.h"
#include "app/stale_banner.h"
#include "models/model_roles.h"
#include "models/units.h"
#include "models/workbench_models.h"

namespace shardlab::gui {
namespace {

QComboBox* filter_combo(const QStringList& names, QWidget* parent) {
  auto* combo = new QComboBox(parent);
  combo->addItem(QStringLiteral("any"), QString());
  for (const QString& n : names) combo->addItem(n, n);
  return combo;
}

}  // namespace

PlanView::PlanView(WorkbenchModels* models, QWidget* parent)
    : WorkbenchView(parent), models_(models) {
  banner_ = new StaleBanner(QStringLiteral("plan"), QStringLiteral("Re-plan (F5)"), this);
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  change_ = new QLabel(this);
  change_->setWordWrap(true);
  change_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  change_->hide();
  name_filter_ = new QLineEdit(this);
  name_filter_->setPlaceholderText(QStringLiteral("table name"));
  name_filter_->setClearButtonEnabled(true);
  type_filter_ = filter_combo({QStringLiteral("data_parallel"), QStringLiteral("table_wise"),
                               QStringLiteral("column_wise"), QStringLiteral("table_column_wise"),
                               QStringLiteral("row_wise"), QStringLiteral("table_row_wise")},
                              this);
  kernel_filter_ =
      filter_combo({QStringLiteral("dense"), QStringLiteral("fused"), QStringLiteral("fused_uvm"),
                    QStringLiteral("fused_uvm_caching"), QStringLiteral("quant"),
                    QStringLiteral("quant_uvm"), QStringLiteral("quant_uvm_caching")},
                   this);
  auto* filters = new QHBoxLayout();
  filters->addWidget(new QLabel(QStringLiteral("Filter:"), this));
  filters->addWidget(name_filter_, 1);
  filters->addWidget(new QLabel(QStringLiteral("sharding"), this));
  filters->addWidget(type_filter_);
  filters->addWidget(new QLabel(QStringLiteral("kernel"), this));
  filters->addWidget(kernel_filter_);

  matrix_ = new PlacementMatrixWidget(this);
  matrix_->set_model(&models->placement_filter, &models->placement);
  add_export_action(matrix_->viewport(), QStringLiteral("placement-matrix"));
  find_ = new QLineEdit(this);
  find_->setPlaceholderText(QStringLiteral("find table (Enter)"));
  find_->setClearButtonEnabled(true);
  auto* zoom_bar = new QHBoxLayout();
  zoom_bar->setContentsMargins(0, 0, 0, 0);
  const auto tool = [this, zoom_bar](const QString& text, const QString& tip, auto fn) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    connect(b, &QToolButton::clicked, matrix_, fn);
    zoom_bar->addWidget(b);
  };
  tool(QStringLiteral("Fit"), QStringLiteral("Every table and rank in view (0)"),
       [this]() { matrix_->fit(); });
  tool(QStringLiteral("1:1"), QStringLiteral("Readable cells (1)"),
       [this]() { matrix_->show_readable(); });
  tool(QStringLiteral("\u2212"), QStringLiteral("Zoom out (-, Ctrl+wheel)"),
       [this]() { matrix_->zoom_by(0.8); });
  tool(QStringLiteral("+"), QStringLiteral("Zoom in (+, Ctrl+wheel)"),
       [this]() { matrix_->zoom_by(1.25); });
  zoom_bar->addWidget(find_, 1);
  auto* matrix_scroll = new QWidget(this);
  auto* matrix_layout = new QVBoxLayout(matrix_scroll);
  matrix_layout->setContentsMargins(0, 0, 0, 0);
  matrix_layout->addLayout(zoom_bar);
  matrix_layout->addWidget(matrix_, 1);
  legend_ = new QLabel(this);
  legend_->setWordWrap(true);
  matrix_layout->addWidget(legend_);

  hbm_chart_ = make_stacked_bar_chart(
      &models->ranks, StackedBarSpec{.title = QStringLiteral("HBM per rank against capacity"),
                                     .value_axis = QStringLiteral("GiB"),
                                     .first_column = RankUsageModel::kHbmShards,
                                     .last_column = RankUsageModel::kHbmMargin});
  ddr_chart_ = make_stacked_bar_chart(
      &models->ranks, StackedBarSpec{.title = QStringLiteral("DDR per rank against capacity"),
                                     .value_axis = QStringLiteral("GiB"),
                                     .first_column = RankUsageModel::kDdrShards,
                                     .last_column = RankUsageModel::kDdrFree});
  time_chart_ = make_stacked_bar_chart(
      &models->ranks,
      StackedBarSpec{.title = QStringLiteral("Estimated time per rank (TorchRec cost model)"),
                     .value_axis = QStringLiteral("ms"),
                     .first_column = RankUsageModel::kFwdCompute,
                     .last_column = RankUsageModel::kPrefetch});
  add_export_action(hbm_chart_, QStringLiteral("hbm-per-rank"));
  add_export_action(ddr_chart_, QStringLiteral("ddr-per-rank"));
  add_export_action(time_chart_, QStringLiteral("time-per-rank"));
  auto* memory_tabs = new QTabWidget(this);
  memory_tabs->addTab(hbm_chart_, QStringLiteral("HBM"));
  memory_tabs->addTab(ddr_chart_, QStringLiteral("DDR"));
  auto* charts = new QSplitter(Qt::Vertical, this);
  charts->addWidget(memory_tabs);
  charts->addWidget(time_chart_);

  top_ = new QSplitter(Qt::Horizontal, this);
  top_->addWidget(matrix_scroll);
  top_->addWidget(charts);
  top_->setStretchFactor(0, 3);
  top_->setStretchFactor(1, 2);

  summary_ = new QTableView(this);
  summary_->setModel(&models->table_filter);
  summary_->setSortingEnabled(true);
  summary_->sortByColumn(-1, Qt::AscendingOrder);
  summary_->setAlternatingRowColors(true);
  summary_->horizontalHeader()->setStretchLastSection(true);
  summary_->horizontalHeader()->setResizeContentsPrecision(40);
  summary_->setSelectionBehavior(QAbstractItemView::SelectRows);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(top_);
  split->addWidget(summary_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(banner_);
  layout->addWidget(header_);
  layout->addWidget(change_);
  layout->addLayout(filters);
  layout->addWidget(split, 1);

  const auto apply_filters = [this]() {
    for (TableFilterProxy* proxy : {&models_->placement_filter, &models_->table_filter}) {
      proxy->set_name_filter(name_filter_->text());
      proxy->set_sharding_type(type_filter_->currentData().toString());
      proxy->set_compute_kernel(kernel_filter_->currentData().toString());
    }
  };
  connect(name_filter_, &QLineEdit::textChanged, this, apply_filters);
  connect(type_filter_, &QComboBox::currentIndexChanged, this, apply_filters);
  connect(kernel_filter_, &QComboBox::currentIndexChanged, this, apply_filters);

  Workbench* wb = models->workbench();
  connect(matrix_, &PlacementMatrixWidget::rankClicked, &wb->selection(), &Selection::select_rank);
  connect(matrix_, &PlacementMatrixWidget::tableClicked, this, [wb](const QString& name) {
    if (wb->scenario())
      wb->selection().select_table(wb->scenario()->table_index(name.toStdString()));
  });
  connect(summary_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this, wb](const QModelIndex& current) {
            if (!current.isValid() || !wb->scenario()) return;
            const QString name = current.data(TableNameRole).toString();
            wb->selection().select_table(wb->scenario()->table_index(name.toStdString()));
          });
  connect(find_, &QLineEdit::returnPressed, this,
          [this]() { (void)find_table(find_->text().trimmed()); });
  connect(banner_, &StaleBanner::refreshRequested, wb, &Workbench::replan);
  connect(wb, &Workbench::freshnessChanged, this, [this, wb]() {
    banner_->set_state(wb->plan_state());
    refresh_change();
  });
  connect(wb, &Workbench::changeExplained, this, &PlanView::refresh_change);
  connect(wb, &Workbench::displayedChanged, this, &PlanView::refresh_header);
  connect(wb, &Workbench::displayedChanged, this, &PlanView::refresh_legend);
  connect(wb, &Workbench::simulationChanged, this, &PlanView::refresh_header);
  connect(&wb->selection(), &Selection::changed, this, &PlanView::refresh_selection);
  connect(&models->table_summary, &QAbstractItemModel::modelReset, summary_,
          [this]() { summary_->resizeColumnsToContents(); });
  refresh_header();
  refresh_legend();
  banner_->set_state(wb->plan_state());
}

QWidget* PlanView::export_target() { return top_; }

void PlanView::showEvent(QShowEvent* event) {
  WorkbenchView::showEvent(event);
  if (sized_ || top_->width() <= 0) return;
  // Three fifths to the matrix, the rest to the per-rank charts.
  sized_ = true;
  top_->setSizes({top_->width() * 3 / 5, top_->width() * 2 / 5});
}

QString PlanView::header_text() const { return header_->text(); }

QString PlanView::change_text() const { return change_->isHidden() ? QString() : change_->text(); }

bool PlanView::find_table(const QString& name) {
  Workbench* wb = models_->workbench();
  if (!wb->scenario() || name.isEmpty()) return false;
  // Exact name first, else the first table containing the text.
  int table = wb->scenario()->table_index(name.toStdString());
  if (table < 0) {
    for (size_t t = 0; t < wb->scenario()->tables.size() && table < 0; ++t) {
      if (QString::fromStdString(wb->scenario()->tables[t].name)
              .contains(name, Qt::CaseInsensitive)) {
        table = static_cast<int>(t);
      }
    }
  }
  if (table < 0) return false;
  wb->selection().select_table(table);
  return matrix_->scroll_to_table(
      QString::fromStdString(wb->scenario()->tables[static_cast<size_t>(table)].name));
}

QString PlanView::legend_text() const { return legend_->text(); }

void PlanView::refresh_legend() {
  const PlacementMatrixModel& pm = models_->placement;
  std::array<bool, planner::kNumShardingTypes> used{};
  bool uvm = false;
  for (int t = 0; t < pm.rowCount(); ++t) {
    used[static_cast<size_t>(pm.table(t).sharding_type)] = true;
    uvm = uvm || std::string_view(planner::to_string(pm.table(t).compute_kernel)).find("uvm") !=
                     std::string_view::npos;
  }
  QStringList items;
  for (int i = 0; i < planner::kNumShardingTypes; ++i) {
    if (!used[static_cast<size_t>(i)]) continue;
    const auto type = static_cast<planner::ShardingType>(i);
    items << QStringLiteral("<span style='background:%1'>&nbsp;&nbsp;&nbsp;</span> %2 %3")
                 .arg(PlacementMatrixWidget::sharding_color(type).name(),
                      QString::fromUtf8(planner::abbreviation(type).data(),
                                        static_cast<qsizetype>(planner::abbreviation(type).size())),
                      QString::fromUtf8(planner::to_string(type).data(),
                                        static_cast<qsizetype>(planner::to_string(type).size())));
  }
  if (uvm) items << QStringLiteral("hatched: a UVM kernel (embeddings in host memory)");
  legend_->setText(items.join(QStringLiteral("&nbsp;&nbsp; ")));
  legend_->setVisible(!items.isEmpty());
}

void PlanView::refresh_change() {
  Workbench* wb = models_->workbench();
  const std::optional<PlanChange>& c = wb->last_change();
  if (!c || !wb->plan_state().current() || !wb->displayed() || wb->displayed()->proposal >= 0) {
    change_->hide();
    return;
  }
  change_->setText(describe_change(*c));
  change_->show();
}

void PlanView::refresh_header() {
  Workbench* wb = models_->workbench();
  const DisplayedPlanPtr& d = wb->displayed();
  if (!d) {
    const Status st = wb->planning_status();
    header_->setText(
        st.is_ok()
            ? QStringLiteral("No plan yet")
            : QStringLiteral("<b>No plan.</b> ") +
                  QString::fromStdString(st.message()).toHtmlEscaped().replace('\n', "<br>"));
    return;
  }
  const PlanOutcome& o = *d->base;
  QString text = QStringLiteral("<b>%1</b>: ").arg(plan_title(*d).toHtmlEscaped());
  const QString model = o.settings.perf_model == PerfModelChoice::kTorchRec
                            ? QStringLiteral("TorchRec")
                            : QStringLiteral("simulated");
  if (o.source != PlanSource::kPlanner) {
    text += QStringLiteral("TorchRec rating %1 ms").arg(d->summary.torchrec_rating, 0, 'f', 5);
  } else if (d->proposal < 0) {
    text += QStringLiteral("rating %1 ms (%2 perf model), %3 proposals, %4 plans, planned in %5 ms")
                .arg(o.result.perf_rating, 0, 'f', 5)
                .arg(model)
                .arg(o.result.num_proposals)
                .arg(o.result.num_plans)
                .arg(o.plan_ms, 0, 'f', 1);
  } else {
    const planner::ProposalRecord& r = o.proposals[static_cast<size_t>(d->proposal)];
    if (!d->fits) {
      text += QStringLiteral(
          "<span style='color:#c0392b'>does not fit</span>; relaxed placement shown, "
          "overflowing ranks in red");
    } else if (r.rated()) {
      text += QStringLiteral("rating %1 ms (%2 perf model), TorchRec rating %3 ms")
                  .arg(r.rating, 0, 'f', 5)
                  .arg(model)
                  .arg(d->summary.torchrec_rating, 0, 'f', 5);
    } else {
      text += QStringLiteral(
                  "not rated by the planner (it could not beat the best), TorchRec rating %1 ms")
                  .arg(d->summary.torchrec_rating, 0, 'f', 5);
    }
  }
  if (o.settings.calibration) {
    text += QStringLiteral(", calibration %1")
                .arg(QString::fromStdString(o.settings.calibration->name).toHtmlEscaped());
  }
  if (const SimResultPtr& s = wb->simulation()) {
    text += QStringLiteral("; simulated iteration %1 ms").arg(s->iteration_ms, 0, 'f', 5);
  }
  // Which TorchRec planner model planned (docs/torchrec-versions.md).
  if (o.scenario) {
    text +=
        QStringLiteral("; TorchRec %1 model")
            .arg(QString::fromStdString(planner::model_name(o.scenario->planner.torchrec_version)));
  }
  header_->setText(text);
}

void PlanView::refresh_selection() {
  Workbench* wb = models_->workbench();
  QString table;
  if (wb->scenario() && wb->selection().table() >= 0) {
    table = QString::fromStdString(
        wb->scenario()->tables[static_cast<size_t>(wb->selection().table())].name);
  }
  matrix_->set_selection(wb->selection().rank(), table);
  hbm_chart_->set_highlighted_row(wb->selection().rank());
  ddr_chart_->set_highlighted_row(wb->selection().rank());
  time_chart_->set_highlighted_row(wb->selection().rank());
}

}  // namespace shardlab::gui
