// Planning and simulation through the workbench's own actions (the session
// and its background worker), checking what the models hold against the
// core's own numbers.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "gui_test_support.h"
#include "models/model_roles.h"
#include "models/run_browser.h"
#include "shardlab/data/plan_json.h"
#include "shardlab/data/run_records.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/torchrec_version.h"
#include "shardlab/sim/compare.h"
#include "test_registry.h"

namespace shardlab::gui::test {

class PlanningTest : public QObject {
  Q_OBJECT

 private:
  // Ranks holding shards of `table` in the placement model.
  static std::vector<int> matrix_ranks(const PlacementMatrixModel& m, const QString& table) {
    std::vector<int> ranks;
    for (int row = 0; row < m.rowCount(); ++row) {
      if (m.headerData(row, Qt::Vertical, TableNameRole).toString() != table) continue;
      for (int c = 0; c < m.columnCount(); ++c) {
        for (int k = 0; k < m.index(row, c).data(ShardCountRole).toInt(); ++k) ranks.push_back(c);
      }
    }
    return ranks;
  }

  static QString matrix_type(const PlacementMatrixModel& m, const QString& table) {
    for (int row = 0; row < m.rowCount(); ++row) {
      if (m.headerData(row, Qt::Vertical, TableNameRole).toString() == table) {
        return m.headerData(row, Qt::Vertical, ShardingTypeRole).toString();
      }
    }
    return {};
  }

  static int table_row(const ScenarioTablesModel& m, const QString& name) {
    for (int r = 0; r < m.rowCount(); ++r) {
      if (m.index(r, ScenarioTablesModel::kName).data().toString() == name) return r;
    }
    return -1;
  }

 private slots:
  void init() { fail_on_warnings(); }

  void models_hold_the_cores_plan_of_criteo_kaggle() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "dlrm_criteo_kaggle.json"));
    const PlanOutcomePtr o = wb.outcome();
    QVERIFY(o->result.ok());
    const planner::PlannerResult& r = o->result;
    const planner::SearchSpace& space = *r.search_space;

    // Placement: every table's shards on the ranks the planner chose.
    QCOMPARE(models.placement.rowCount(), 26);
    QCOMPARE(models.placement.columnCount(), 8);
    for (size_t i = 0; i < r.best->proposal.size(); ++i) {
      const planner::ShardingOption& opt = space.options[static_cast<size_t>(r.best->proposal[i])];
      std::vector<int> expected(r.best->ranks.begin() + r.best->first_shard[i],
                                r.best->ranks.begin() + r.best->first_shard[i + 1]);
      std::sort(expected.begin(), expected.end());
      QCOMPARE(matrix_ranks(models.placement, QString::fromStdString(opt.name)), expected);
      QCOMPARE(matrix_type(models.placement, QString::fromStdString(opt.name)),
               QString::fromUtf8(std::string(planner::to_string(opt.sharding_type)).c_str()));
    }

    // Per-rank totals equal the plan JSON's (the CLI's numbers) and the
    // planner's per-rank perf, exactly.
    const QJsonObject plan =
        QJsonDocument::fromJson(QByteArray::fromStdString(data::plan_to_json(*o->scenario, r)))
            .object();
    const QJsonArray devices = plan.value(QStringLiteral("devices")).toArray();
    QCOMPARE(models.ranks.rowCount(), devices.size());
    for (int rank = 0; rank < devices.size(); ++rank) {
      const QJsonObject d = devices[rank].toObject();
      QCOMPARE(models.ranks.index(rank, RankUsageModel::kHbmShards).data(RawValueRole).toLongLong(),
               d.value(QStringLiteral("hbm_used")).toInteger());
      QCOMPARE(models.ranks.index(rank, RankUsageModel::kDdrShards).data(RawValueRole).toLongLong(),
               d.value(QStringLiteral("ddr_used")).toInteger());
      QCOMPARE(models.ranks.index(rank, RankUsageModel::kPerfTotal).data(RawValueRole).toDouble(),
               r.device_perf_total[static_cast<size_t>(rank)]);
      // The HBM stack adds up to the raw capacity while the plan fits.
      qint64 stack = 0;
      for (int c = RankUsageModel::kHbmShards; c <= RankUsageModel::kHbmMargin; ++c) {
        stack += models.ranks.index(rank, c).data(RawValueRole).toLongLong();
      }
      QCOMPARE(stack, d.value(QStringLiteral("hbm_cap")).toInteger());
      // Busy time from the simulation.
      QCOMPARE(models.ranks.index(rank, RankUsageModel::kBusyCompute).data(RawValueRole).toDouble(),
               wb.simulation()->ranks[static_cast<size_t>(rank)].busy_compute_ms);
    }

    // Per-table summary: one row per table, in plan order.
    QCOMPARE(models.table_summary.rowCount(), 26);
    QCOMPARE(models.table_summary.index(0, TableSummaryModel::kFqn).data().toString(),
             QString::fromStdString(space.options[static_cast<size_t>(r.best->proposal[0])].fqn));

    // Proposals: every evaluated proposal, the best among them.
    QCOMPARE(models.proposals.rowCount(), r.num_proposals);
    int partitioned = 0;
    for (int i = 0; i < models.proposals.rowCount(); ++i)
      partitioned += models.proposals.record(i).partitioned;
    QCOMPARE(partitioned, r.num_plans);
    QVERIFY(models.proposals.best_row() >= 0);
    QCOMPARE(models.proposals.record(models.proposals.best_row()).rating, r.perf_rating);

    // The log does not change the plan: the default (unlogged) run agrees.
    const planner::PlannerResult plain = planner::plan(*o->scenario);
    QCOMPARE(plain.num_proposals, r.num_proposals);
    QCOMPARE(plain.perf_rating, r.perf_rating);
    QVERIFY(plain.best->proposal == r.best->proposal);
    QVERIFY(plain.best->ranks == r.best->ranks);

    // Timeline: per rank its host and two streams; critical phases on the
    // lanes of the critical path's steps.
    const sim::SimResult& s = *wb.simulation();
    QCOMPARE(models.timeline.rowCount(), 24);
    QCOMPARE(models.timeline.critical_phase_count(), static_cast<int>(s.critical_path.size()));
    std::set<int> expected_lanes;
    for (const sim::CriticalStep& step : s.critical_path) {
      for (const sim::PhaseRecord& p : s.ranks[static_cast<size_t>(step.rank)].phases) {
        if (p.phase == step.phase && p.stream == step.stream && p.iteration == step.iteration) {
          expected_lanes.insert(models.timeline.lane_of(step.rank, p.stream));
        }
      }
    }
    const std::vector<int> lanes = models.timeline.critical_lanes();
    QCOMPARE(std::set<int>(lanes.begin(), lanes.end()), expected_lanes);
    QVERIFY(!expected_lanes.empty());
  }

  void editing_a_constraint_replans_and_moves_the_table() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    const QString table = QStringLiteral("user_id");
    QCOMPARE(matrix_ranks(models.placement, table).size(), size_t{1});  // table-wise on one rank
    QCOMPARE(matrix_type(models.placement, table), QStringLiteral("table_wise"));

    QSignalSpy replanned(&wb, &Workbench::outcomeChanged);
    const int row = table_row(models.tables, table);
    QVERIFY(models.tables.setData(models.tables.index(row, ScenarioTablesModel::kShardingTypes),
                                  QStringLiteral("row_wise"), Qt::EditRole));
    QVERIFY(wait_for(replanned));
    QCOMPARE(matrix_type(models.placement, table), QStringLiteral("row_wise"));
    QCOMPARE(matrix_ranks(models.placement, table), (std::vector<int>{0, 1}));
    QVERIFY(wb.scenario()->constraints[0]->sharding_types.has_value());
  }

  void the_newest_request_wins() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "dlrm_criteo_kaggle.json"));
    QSignalSpy replanned(&wb, &Workbench::outcomeChanged);
    const QModelIndex batch = models.settings.index(
        models.settings.row_of(QStringLiteral("batch_size")), ScenarioSettingsModel::kValue);
    QVERIFY(models.settings.setData(batch, QStringLiteral("512"), Qt::EditRole));
    QVERIFY(models.settings.setData(batch, QStringLiteral("1024"), Qt::EditRole));
    QVERIFY(models.settings.setData(batch, QStringLiteral("4096"), Qt::EditRole));
    QVERIFY(wait_for(replanned));
    wb.worker().wait_idle();
    QTest::qWait(20);
    QCOMPARE(replanned.count(), 1);  // the two older requests were dropped
    QCOMPARE(wb.outcome()->scenario->batch_size, int64_t{4096});
    QCOMPARE(wb.outcome()->scenario, wb.scenario());
  }

  void cancel_stops_planning_and_delivers_nothing() {
    Workbench wb;
    WorkbenchModels models(&wb);
    QSignalSpy cancelled(&wb.worker(), &PlanningWorker::cancelled);
    QSignalSpy busy(&wb, &Workbench::busyChanged);
    QVERIFY(wb.document().open_file(scenario_path("large_synthetic_8x8.json")).is_ok());
    QSignalSpy planned(&wb, &Workbench::outcomeChanged);
    QVERIFY(wb.busy());
    wb.cancel();
    QCOMPARE(cancelled.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(!wb.busy(), 30000);
    QTest::qWait(20);
    QCOMPARE(planned.count(), 0);
    QVERIFY(!wb.outcome());
    QCOMPARE(busy.count(), 2);  // busy, then idle
  }

  void why_not_names_the_overflowing_ranks() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QSignalSpy replanned(&wb, &Workbench::outcomeChanged);
    // 300 MiB per GPU and only HBM kernels for the 512 MB user_id table.
    QVERIFY(models.settings.setData(
        models.settings.index(models.settings.row_of(QStringLiteral("topology.hbm_cap")),
                              ScenarioSettingsModel::kValue),
        QStringLiteral("300 MiB"), Qt::EditRole));
    QVERIFY(models.tables.setData(
        models.tables.index(table_row(models.tables, QStringLiteral("user_id")),
                            ScenarioTablesModel::kComputeKernels),
        QStringLiteral("fused"), Qt::EditRole));
    QVERIFY(wait_for(replanned));
    QTRY_VERIFY(!wb.busy());
    const Status st = wb.planning_status();
    QCOMPARE(st.code(), StatusCode::kPlanner);
    QCOMPARE(st.planner_error(), PlannerErrorType::kInsufficientStorage);
    QVERIFY(!wb.displayed());
    QCOMPARE(models.proposals.rowCount(), wb.outcome()->result.num_proposals);
    QVERIFY(models.proposals.rowCount() > 0);
    const int last = models.proposals.rowCount() - 1;
    const planner::ProposalRecord& rec = models.proposals.record(last);
    QVERIFY(!rec.partitioned);
    // The outcome explains the failure with the last proposal placed again.
    QVERIFY(wb.outcome()->last_failure.has_value());
    const planner::ProposalPlacement& failure = *wb.outcome()->last_failure;
    QCOMPARE(failure.overflow.size(), size_t{2});
    QVERIFY(failure.total_hbm_overflow() > 0);
    const QStringList why = ProposalsModel::why_not(failure.overflow);
    QVERIFY(!why.isEmpty());
    QVERIFY(why.front().startsWith(QStringLiteral("rank ")));

    // Selecting it shows its relaxed placement, with the same overflow per rank.
    QSignalSpy shown(&wb, &Workbench::displayedChanged);
    QVERIFY(wb.select_proposal(last).is_ok());
    QCOMPARE(shown.count(), 1);
    QVERIFY(!wb.displayed()->fits);
    for (int rank = 0; rank < 2; ++rank) {
      QCOMPARE(
          models.ranks.index(rank, RankUsageModel::kHbmOverflow).data(RawValueRole).toLongLong(),
          failure.overflow[static_cast<size_t>(rank)].hbm);
    }
    bool any_red = false;
    for (int c = 0; c < models.placement.columnCount(); ++c) {
      any_red = any_red || models.placement.headerData(c, Qt::Horizontal, OverflowRole).toBool();
    }
    QVERIFY(any_red);
    QVERIFY(!wb.simulation());
  }

  void selecting_a_proposal_shows_its_plan() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    const PlanOutcomePtr o = wb.outcome();
    // A partitioned proposal whose placement differs from the best plan's.
    int pick = -1;
    for (size_t i = 0; i < o->proposals.size() && pick < 0; ++i) {
      if (o->proposals[i].rated() && o->proposals.proposal(i) != o->result.best->proposal)
        pick = static_cast<int>(i);
    }
    QVERIFY(pick >= 0);
    QSignalSpy simulated(&wb, &Workbench::simulationChanged);
    QVERIFY(wb.select_proposal(pick).is_ok());
    QCOMPARE(wb.selected_proposal(), pick);
    auto placed = planner::place_proposal(*o->scenario, o->result,
                                          o->proposals.proposal(static_cast<size_t>(pick)));
    QVERIFY(placed.is_ok());
    QVERIFY(placed->fits);
    const planner::PlanSummary summary =
        planner::summarize_plan(*o->scenario, o->result, placed->plan);
    for (const planner::TableSummary& t : summary.tables) {
      std::vector<int> expected = t.ranks;
      std::sort(expected.begin(), expected.end());
      QCOMPARE(matrix_ranks(models.placement, QString::fromStdString(t.name)), expected);
    }
    // The rating the planner logged is the placement's rating.
    QCOMPARE(o->proposals[static_cast<size_t>(pick)].rating, placed->torchrec_rating);
    // Its simulation follows (the second signal: cleared, then delivered).
    QVERIFY(wait_for(simulated, 2));
    QVERIFY(wb.simulation());
    QVERIFY(wb.select_proposal(-1).is_ok());
    QCOMPARE(wb.selected_proposal(), -1);
    QCOMPARE(models.proposals.best_row() >= 0, true);
  }

  // What is shown can be kept: saved as the plan files `shardlab plan` writes
  // (either format reads back as the same placement), and recorded in a run
  // store as `shardlab simulate` records it (data/run_records.h).
  void the_plan_shown_is_saved_and_recorded() {
    Workbench wb;
    WorkbenchModels models(&wb);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QTRY_VERIFY(wb.simulation() != nullptr);
    const PlanOutcomePtr o = wb.outcome();
    QTemporaryDir dir;
    const auto read = [](const QString& path) {
      QFile f(path);
      return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
    };
    const QString ours = dir.filePath(QStringLiteral("plan.json"));
    const QString theirs = dir.filePath(QStringLiteral("torchrec.json"));
    QVERIFY(save_plan(wb.displayed(), ours, false).is_ok());
    QCOMPARE(read(ours), data::plan_to_json(*o->scenario, o->result) + "\n");
    QVERIFY(save_plan(wb.displayed(), theirs, true).is_ok());
    planner::SearchSpace space = *o->result.search_space;
    auto back = data::read_plan_file(theirs.toStdString(), *o->scenario, space);
    QVERIFY2(back.is_ok(), back.status().message().c_str());
    QCOMPARE(back->proposal, o->result.best->proposal);
    QCOMPARE(back->ranks, o->result.best->ranks);

    // Recorded where the user says (a new store), then browsed there.
    RunBrowser browser(&wb);
    const QString db = dir.filePath(QStringLiteral("runs.db"));
    Result<data::NewRun> run = run_record(wb.displayed(), wb.simulation().get());
    QVERIFY(run.is_ok());
    Result<int64_t> id = browser.record(*run, db);
    QVERIFY2(id.is_ok(), id.status().message().c_str());
    QCOMPARE(browser.path(), db);
    QCOMPARE(browser.runs().size(), size_t{1});
    Result<data::RunStore> store = data::RunStore::open(db.toStdString(), data::StoreAccess::kRead);
    QVERIFY(store.is_ok());
    Result<data::StoredRun> stored = store->get_run(*id);
    QVERIFY(stored.is_ok());
    QCOMPARE(stored->summary.kind, data::RunKind::kSimulate);
    QCOMPARE(stored->plan_json, data::plan_to_json(*o->scenario, o->result, data::kCompactJson));
    QCOMPARE(stored->sim_phases.size(), data::sim_phase_rows(*wb.simulation()).size());
    double iteration_ms = -1.0;
    for (const auto& [key, value] : data::summary_fields(stored->summary.summary_json)) {
      if (key == "iteration_ms") iteration_ms = std::get<double>(value);
    }
    QCOMPARE(iteration_ms, wb.simulation()->iteration_ms);
    QVERIFY(data::parse_scenario(stored->scenario_json, "stored").is_ok());

    // A proposal that fits is kept as its own placement, with TorchRec's rating.
    int pick = -1;
    for (size_t i = 0; i < o->proposals.size() && pick < 0; ++i) {
      if (o->proposals[i].rated() && o->proposals.proposal(i) != o->result.best->proposal)
        pick = static_cast<int>(i);
    }
    QVERIFY(pick >= 0);
    QVERIFY(wb.select_proposal(pick).is_ok());
    QVERIFY(save_plan(wb.displayed(), ours, false).is_ok());
    planner::SearchSpace chosen_space = *o->result.search_space;
    auto proposal = data::read_plan_file(ours.toStdString(), *o->scenario, chosen_space);
    QVERIFY(proposal.is_ok());
    QCOMPARE(proposal->ranks, wb.displayed()->plan.ranks);
    const auto saved = nlohmann::json::parse(read(ours));
    QCOMPARE(saved["perf_rating_ms"].get<double>(), wb.displayed()->summary.torchrec_rating);
    QCOMPARE(wb.displayed()->summary.torchrec_rating, *wb.displayed()->torchrec_rating);
  }

  // The Compare view's rows are the core's comparison (sim/compare.h), the
  // one `shardlab compare` prints: same grid, same numbers.
  void compare_is_the_cores_comparison() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QSignalSpy compared(&wb.comparison(), &Comparison::changed);
    wb.compare();
    QTRY_VERIFY_WITH_TIMEOUT(wb.comparison().outcome() && wb.comparison().outcome()->complete,
                             60000);
    const std::vector<sim::CompareConfig> grid = sim::default_compare_grid();
    QCOMPARE(models.compare.rowCount(), static_cast<int>(grid.size()));
    const sim::Comparison core = sim::compare_configurations(
        *wb.scenario(), grid,
        sim::CompareOptions{.sim = sim::SimOptions{.iterations = wb.settings().sim_iterations}});
    QCOMPARE(models.compare.winner(), core.winner);
    for (int i = 0; i < models.compare.rowCount(); ++i) {
      const sim::CompareRow& mine = *models.compare.row(i);
      const sim::CompareRow& theirs = core.rows[static_cast<size_t>(i)];
      QCOMPARE(mine.label, theirs.label);
      QCOMPARE(mine.torchrec_rating_ms, theirs.torchrec_rating_ms);
      QCOMPARE(mine.iteration_ms, theirs.iteration_ms);
      QCOMPARE(mine.moved_vs_winner, theirs.moved_vs_winner);
      QCOMPARE(models.compare.index(i, CompareModel::kIterationMs).data(RawValueRole),
               theirs.iteration_ms ? QVariant(*theirs.iteration_ms) : QVariant());
      QCOMPARE(models.compare.index(i, CompareModel::kStatus).data(WinnerRole).toBool(),
               i == core.winner);
    }
    // The first row is the scenario as configured: the session's own plan.
    QCOMPARE(*models.compare.row(0)->torchrec_rating_ms, wb.outcome()->result.perf_rating);
    // Per rank: the first row against the winner, simulated busy times.
    QCOMPARE(models.compare_ranks.rowCount(), 2);
    QCOMPARE(models.compare_ranks.first(), 0);
    QCOMPARE(models.compare_ranks.second(), core.winner);
    QCOMPARE(models.compare_ranks.index(1, CompareRanksModel::kBusyCompute)
                 .data(RawValueRole)
                 .toDouble(),
             core.rows[0].ranks[1].busy_compute_ms);
    // Partial outcomes came first (one per row at least), the complete one last.
    QVERIFY(compared.count() >= static_cast<int>(grid.size()));

    // A row opens as the plan shown, rated and simulated.
    const int row = core.winner;
    QVERIFY(wb.open_compare_row(row).is_ok());
    QCOMPARE(wb.displayed()->base->source, PlanSource::kCompareRow);
    QCOMPARE(wb.displayed()->plan.ranks, core.rows[static_cast<size_t>(row)].plan->ranks);
    QCOMPARE(wb.displayed()->summary.torchrec_rating,
             *core.rows[static_cast<size_t>(row)].torchrec_rating_ms);
    QTRY_VERIFY(wb.simulation() != nullptr);
    QCOMPARE(wb.simulation()->iteration_ms, *core.rows[static_cast<size_t>(row)].iteration_ms);
  }

  void compare_puts_the_torchrec_versions_side_by_side() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    // UVM kernels cost more in 2026-08 (docs/torchrec-versions.md), so the
    // two versions rate this scenario differently.
    QSignalSpy planned(&wb, &Workbench::outcomeChanged);
    QVERIFY(wb.document()
                .open_file(QStringLiteral(SHARDLAB_SOURCE_DIR
                                          "/tests/golden/data/kernel_fused_uvm_forced.json"))
                .is_ok());
    QVERIFY(wait_for(planned));
    wb.comparison().set_each_torchrec_version(true);
    wb.compare();
    QTRY_VERIFY_WITH_TIMEOUT(wb.comparison().outcome() && wb.comparison().outcome()->complete,
                             120000);
    const std::vector<planner::TorchRecVersion>& versions = planner::all_torchrec_versions();
    const int configurations = static_cast<int>(sim::default_compare_grid().size());
    QCOMPARE(models.compare.rowCount(), configurations * static_cast<int>(versions.size()));
    for (int i = 0; i < models.compare.rowCount(); ++i) {
      const sim::CompareRow& row = *models.compare.row(i);
      const planner::TorchRecVersion version = versions[static_cast<size_t>(i) % versions.size()];
      QVERIFY(row.config.torchrec_version == version);
      QVERIFY(row.torchrec_version == version);
      const QString label = models.compare.index(i, CompareModel::kConfiguration).data().toString();
      QVERIFY2(label.endsWith(QStringLiteral("TorchRec ") +
                              QString::fromStdString(std::string(planner::to_string(version)))),
               qPrintable(label));
    }
    // The first two rows are the scenario as configured, each rated as its
    // version's planner rates the scenario.
    double ratings[2] = {};
    for (int i = 0; i < 2; ++i) {
      const sim::CompareRow& row = *models.compare.row(i);
      QVERIFY(!row.config.proposer.has_value() && !row.config.partitioner.has_value());
      QCOMPARE(row.config.rating, sim::RatingModel::kTorchRec);
      planner::Scenario s = *wb.scenario();
      s.planner.torchrec_version = versions[static_cast<size_t>(i)];
      QVERIFY(row.torchrec_rating_ms.has_value());
      QCOMPARE(*row.torchrec_rating_ms, planner::plan(s).perf_rating);
      ratings[i] = *row.torchrec_rating_ms;
    }
    QVERIFY(ratings[0] != ratings[1]);
    // Unchecked, the comparison is the scenario's own version only.
    wb.comparison().set_each_torchrec_version(false);
    wb.compare();
    QTRY_VERIFY_WITH_TIMEOUT(wb.comparison().outcome() && wb.comparison().outcome()->complete &&
                                 models.compare.rowCount() == configurations,
                             120000);
    QVERIFY(!models.compare.row(0)->config.torchrec_version.has_value());
  }
};

SHARDLAB_REGISTER_GUI_TEST(PlanningTest)

}  // namespace shardlab::gui::test

#include "planning_test.moc"
