#include "app/compare_view.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "app/stale_banner.h"
#include "models/units.h"
#include "models/workbench_models.h"

namespace shardlab::gui {

CompareView::CompareView(WorkbenchModels* models, QWidget* parent)
    : WorkbenchView(parent), models_(models) {
  banner_ = new StaleBanner(QStringLiteral("comparison"), QStringLiteral("Run again"), this);
  auto* intro = new QLabel(
      QStringLiteral(
          "Plans the scenario as configured, then with each proposer x partitioner x rating model, "
          "and "
          "simulates every chosen plan: the same comparison as <tt>shardlab compare</tt>. Every "
          "row is "
          "measured alike: TorchRec's rating of its plan and its simulated iteration time."),
      this);
  intro->setWordWrap(true);
  versions_ = new QCheckBox(QStringLiteral("Both TorchRec versions"), this);
  versions_->setToolTip(
      QStringLiteral("Plan each configuration with the TorchRec 2024-02 and 2026-08 models, "
                     "side by side (docs/torchrec-versions.md)"));
  run_ = new QPushButton(QStringLiteral("Run comparison"), this);
  optimize_ = new QPushButton(QStringLiteral("Optimize"), this);
  optimize_->setToolTip(QStringLiteral(
      "Search for a plan faster than TorchRec's by simulated iteration time, in the same memory "
      "(shardlab optimize, docs/optimize.md), and add it as a row. Cancel stops the search and "
      "keeps the best plan so far."));
  const OptimizeRequest defaults;
  time_limit_ = new QDoubleSpinBox(this);
  time_limit_->setRange(0.0, 3600.0);
  time_limit_->setDecimals(1);
  time_limit_->setSuffix(QStringLiteral(" s"));
  time_limit_->setSpecialValueText(QStringLiteral("no limit"));
  time_limit_->setValue(defaults.time_limit_s);
  time_limit_->setToolTip(
      QStringLiteral("The optimizer's time limit (shardlab optimize --time-limit); no limit: "
                     "until it converges"));
  seed_ = new QSpinBox(this);
  seed_->setRange(0, std::numeric_limits<int>::max());
  seed_->setValue(static_cast<int>(defaults.seed));
  seed_->setPrefix(QStringLiteral("seed "));
  seed_->setToolTip(
      QStringLiteral("Seed of the search's random choices (shardlab optimize --seed): the same "
                     "seed walks the same path"));
  cancel_ = new QPushButton(QStringLiteral("Cancel"), this);
  cancel_->setEnabled(false);
  open_ = new QPushButton(QStringLiteral("Open as plan"), this);
  open_->setToolTip(
      QStringLiteral("Show the selected row's plan in the Plan, Topology and Timeline views "
                     "(double-click a row does the same)"));
  open_->setEnabled(false);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(220);
  progress_->hide();
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  rows_ = new QTableView(this);
  rows_->setModel(&models->compare);
  rows_->verticalHeader()->hide();
  rows_->setSelectionBehavior(QAbstractItemView::SelectRows);
  rows_->setSelectionMode(QAbstractItemView::SingleSelection);
  rows_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  rows_->horizontalHeader()->setStretchLastSection(true);
  ranks_header_ = new QLabel(this);
  ranks_header_->setWordWrap(true);
  ranks_ = new QTableView(this);
  ranks_->setModel(&models->compare_ranks);
  ranks_->setAlternatingRowColors(true);
  ranks_->setEditTriggers(QAbstractItemView::NoEditTriggers);

  auto* bar = new QHBoxLayout();
  bar->addWidget(intro, 1);
  bar->addWidget(versions_);
  bar->addWidget(progress_);
  bar->addWidget(run_);
  bar->addWidget(time_limit_);
  bar->addWidget(seed_);
  bar->addWidget(optimize_);
  bar->addWidget(cancel_);
  bar->addWidget(open_);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(rows_);
  auto* lower = new QWidget(split);
  auto* lower_layout = new QVBoxLayout(lower);
  lower_layout->setContentsMargins(0, 0, 0, 0);
  lower_layout->addWidget(ranks_header_);
  lower_layout->addWidget(ranks_, 1);
  split->addWidget(lower);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(banner_);
  layout->addLayout(bar);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);

  Workbench* wb = models->workbench();
  versions_->setChecked(wb->comparison().each_torchrec_version());
  connect(versions_, &QCheckBox::toggled, &wb->comparison(),
          &Comparison::set_each_torchrec_version);
  connect(run_, &QPushButton::clicked, wb, &Workbench::compare);
  connect(optimize_, &QPushButton::clicked, this, &CompareView::optimize);
  connect(cancel_, &QPushButton::clicked, wb, &Workbench::cancel_compare);
  connect(open_, &QPushButton::clicked, this, &CompareView::open_selected);
  connect(rows_, &QTableView::doubleClicked, this, &CompareView::open_selected);
  connect(banner_, &StaleBanner::refreshRequested, wb, &Workbench::compare);
  connect(rows_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& i) {
            if (!i.isValid()) return;
            // The selected row against the winner (or the first row when it is the winner).
            const int winner = models_->compare.winner();
            const int row = i.row();
            models_->compare_ranks.set_rows(row == winner || winner < 0 ? 0 : row,
                                            winner < 0 ? row : winner);
            refresh();
          });
  connect(&wb->comparison(), &Comparison::progress, this,
          [this](int percent, const QString& stage) {
            progress_->setValue(percent);
            progress_->setFormat(stage.section(QLatin1Char(','), 0, 0) + QStringLiteral(" %p%"));
            progress_->setToolTip(stage);
          });
  connect(&wb->comparison(), &Comparison::changed, this, &CompareView::refresh);
  connect(wb, &Workbench::freshnessChanged, this, &CompareView::refresh);
  connect(&models->compare, &QAbstractItemModel::modelReset, this, [this]() {
    rows_->resizeColumnsToContents();
    // A running row's status is a long progress line: the results stay in
    // view, the whole line is the cell's tooltip.
    rows_->setColumnWidth(CompareModel::kStatus,
                          std::min(rows_->columnWidth(CompareModel::kStatus), kMaxStatusWidth));
    ranks_->resizeColumnsToContents();
  });
  refresh();
}

QString CompareView::summary_text() const { return summary_->text(); }

int CompareView::status_width() const { return rows_->columnWidth(CompareModel::kStatus); }

void CompareView::optimize() {
  models_->workbench()->optimize(OptimizeRequest{.seed = static_cast<uint64_t>(seed_->value()),
                                                 .time_limit_s = time_limit_->value()});
}

bool CompareView::open_selected() {
  const QModelIndex i = rows_->currentIndex();
  if (!i.isValid()) return false;
  Workbench* wb = models_->workbench();
  if (Status st = wb->open_compare_row(i.row()); !st.is_ok()) {
    if (isVisible())
      QMessageBox::warning(this, QStringLiteral("Cannot open the row"),
                           QString::fromStdString(st.message()));
    return false;
  }
  emit rowOpened();
  return true;
}

void CompareView::refresh() {
  Workbench* wb = models_->workbench();
  const ResultState state = wb->compare_state();
  banner_->set_state(state);
  const bool running = wb->worker().comparing();
  progress_->setVisible(running);
  cancel_->setEnabled(running);
  run_->setEnabled(wb->scenario() != nullptr);
  optimize_->setEnabled(wb->scenario() != nullptr);
  const CompareOutcomePtr& c = wb->comparison().outcome();
  const QModelIndex current = rows_->currentIndex();
  open_->setEnabled(state.current() && current.isValid() && models_->compare.row(current.row()) &&
                    models_->compare.row(current.row())->plan.has_value());
  if (!c) {
    summary_->setText(QStringLiteral("Not run yet for this scenario."));
    ranks_header_->clear();
    return;
  }
  const sim::Comparison& cmp = c->comparison;
  QString text;
  if (c->complete && cmp.winner >= 0) {
    const sim::CompareRow& w = cmp.rows[static_cast<size_t>(cmp.winner)];
    text =
        QStringLiteral("<b>Winner: #%1 %2</b>, simulated iteration %3 ms (TorchRec rating %4 ms)")
            .arg(cmp.winner + 1)
            .arg(QString::fromStdString(w.label).toHtmlEscaped())
            .arg(*w.iteration_ms, 0, 'f', 5)
            .arg(*w.torchrec_rating_ms, 0, 'f', 5);
    const sim::CompareRow& first = cmp.rows.front();
    if (cmp.winner != 0 && first.iteration_vs_winner) {
      text += QStringLiteral(
                  "; the scenario as configured (#1) takes %1 longer and places %2 table(s) "
                  "differently")
                  .arg(format_percent(*first.iteration_vs_winner))
                  .arg(first.moved_vs_winner.size());
    } else if (cmp.winner == 0) {
      text += QStringLiteral("; the scenario as configured (#1) is the winner");
    }
    text += QStringLiteral(". Ties go to the lower TorchRec rating, then the earlier row.");
    if (c->optimizer) {
      const search::OptimizerRun& run = *c->optimizer;
      const search::OptimizeSummary& s = run.summary;
      text += QStringLiteral(
                  "<br><b>Optimizer (#%1)</b>: simulated iteration %2 \u2192 %3 ms (%4), "
                  "TorchRec rating %5 \u2192 %6 ms (%7) against %8; %9 of %10 tables moved (open "
                  "the row to see them); %11.")
                  .arg(c->optimizer_row + 1)
                  .arg(s.reference().simulated_ms, 0, 'f', 5)
                  .arg(s.best.simulated_ms, 0, 'f', 5)
                  .arg(format_percent(s.simulated_change()))
                  .arg(s.reference().torchrec_ms, 0, 'f', 5)
                  .arg(s.best.torchrec_ms, 0, 'f', 5)
                  .arg(format_percent(s.rating_change()))
                  .arg(s.torchrec ? QStringLiteral("TorchRec's plan")
                                  : QStringLiteral("the start plan"))
                  .arg(run.result.moved.size())
                  .arg(wb->scenario() ? static_cast<int>(wb->scenario()->tables.size()) : 0)
                  .arg(QString::fromStdString(search::search_text(run.result)));
    }
  } else if (c->complete) {
    text = QStringLiteral("No row has a simulated plan.");
  } else {
    text = QStringLiteral("%1 of %2 rows done.").arg(cmp.rows.size()).arg(c->grid.size());
  }
  summary_->setText(text);
  const CompareRanksModel& r = models_->compare_ranks;
  if (r.first() >= 0 && r.second() >= 0 && r.first() != r.second()) {
    ranks_header_->setText(
        QStringLiteral("<b>Per rank</b>: #%1 against #%2 (select a row to compare it with the "
                       "winner): TorchRec perf, shard HBM and simulated busy time per "
                       "iteration of each stream; d busiest is the difference of the busier "
                       "stream, which bounds the iteration.")
            .arg(r.first() + 1)
            .arg(r.second() + 1));
  } else if (r.first() >= 0) {
    ranks_header_->setText(
        QStringLiteral("<b>Per rank</b>: #%1 (select a row to compare it with the winner)")
            .arg(r.first() + 1));
  } else {
    ranks_header_->clear();
  }
}

}  // namespace shardlab::gui
