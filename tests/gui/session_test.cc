// The session never shows a result that does not belong to what is on
// screen, and never loses an edit: the stale-result model through edit,
// cancel, open, settings and compare sequences; undo and redo; saving; the
// window's title and its prompts on open and close with unsaved edits; and
// what a re-plan changed.
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/compare_view.h"
#include "app/main_window.h"
#include "app/plan_view.h"
#include "app/stale_banner.h"
#include "gui_test_support.h"
#include "models/model_roles.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/scenario_writer.h"
#include "test_registry.h"

namespace shardlab::gui::test {

class SessionTest : public QObject {
  Q_OBJECT

 private:
  static QModelIndex setting(WorkbenchModels& m, const char* path) {
    return m.settings.index(m.settings.row_of(QString::fromLatin1(path)),
                            ScenarioSettingsModel::kValue);
  }

 private slots:
  void init() { fail_on_warnings(); }

  // Edit: results stay, marked stale (plan and comparison) until re-planned;
  // the comparison stays stale until it runs again, and cannot be opened.
  void an_edit_marks_every_result_stale_until_it_is_refreshed() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QVERIFY(wb.plan_state().current());
    wb.compare();
    QVERIFY(wait_for_compare(wb));
    QVERIFY(wb.compare_state().current());
    const PlanOutcomePtr before = wb.outcome();

    QVERIFY(models.settings.setData(setting(models, "batch_size"), QStringLiteral("4096"),
                                    Qt::EditRole));
    // At once: the old plan is still shown, stale, with a re-plan running.
    QCOMPARE(wb.outcome(), before);
    QVERIFY(wb.plan_state().stale());
    QVERIFY(wb.plan_state().refreshing);
    QVERIFY(wb.compare_state().stale());
    QVERIFY(!wb.compare_state().refreshing);
    QVERIFY(wb.compare_state().reason.contains(QStringLiteral("scenario changed")));
    QVERIFY(!wb.open_compare_row(0).is_ok());

    QVERIFY(wait_for_current_plan(wb));
    QCOMPARE(wb.outcome()->scenario, wb.scenario());
    QCOMPARE(wb.outcome()->scenario->batch_size, int64_t{4096});
    QVERIFY(wb.displayed()->base == wb.outcome());
    QVERIFY(wb.compare_state().stale());  // a comparison is only refreshed on request
    wb.compare();
    QVERIFY(wb.compare_state().stale() && wb.compare_state().refreshing);
    QVERIFY(wait_for_compare(wb));
    QVERIFY(wb.compare_state().current());
    QVERIFY(wb.open_compare_row(0).is_ok());
  }

  // Cancel after an edit: the old plan stays, stale, and the banner offers
  // the re-plan; re-planning makes it current.
  void cancel_after_an_edit_leaves_the_plan_stale_with_its_action() {
    MainWindow window;
    Workbench& wb = window.workbench();
    QVERIFY(open_and_plan(wb, "dlrm_criteo_kaggle.json"));
    auto* plan = static_cast<PlanView*>(window.view(QStringLiteral("plan")));
    QVERIFY(plan->banner()->text().isEmpty());
    QVERIFY(window.models().settings.setData(setting(window.models(), "batch_size"),
                                             QStringLiteral("1024"), Qt::EditRole));
    window.cancel_action()->trigger();
    QTRY_VERIFY(!wb.busy());
    QTest::qWait(20);
    QVERIFY(wb.plan_state().stale());
    QVERIFY(!wb.plan_state().refreshing);
    QVERIFY2(plan->banner()->text().contains(QStringLiteral("Out of date")),
             qPrintable(plan->banner()->text()));
    QVERIFY(plan->banner()->action_visible());
    QVERIFY(wb.outcome()->scenario != wb.scenario());
    window.replan_action()->trigger();
    QVERIFY(wait_for_current_plan(wb));
    QVERIFY(plan->banner()->text().isEmpty());
  }

  // ScenarioDocument's contract, code by code: nothing open is kNotFound; no
  // file to save to is kInvalidArgument; no such file kNotFound, a
  // directory kIo; a file that
  // is not a scenario, or a refused value, kInvalidArgument.
  void the_document_says_each_failure_by_its_code() {
    ScenarioDocument doc;
    const data::FieldPath batch{std::string("batch_size")};
    QCOMPARE(doc.validate_edit(batch, QStringLiteral("4096")).status().code(),
             StatusCode::kNotFound);
    QCOMPARE(doc.save(QStringLiteral("unused.json")).code(), StatusCode::kNotFound);
    QCOMPARE(doc.save().code(), StatusCode::kInvalidArgument);
    QCOMPARE(doc.open_file(QStringLiteral("no/such/scenario.json")).code(), StatusCode::kNotFound);
    QTemporaryDir dir;
    QCOMPARE(doc.open_file(dir.path()).code(), StatusCode::kIo);
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    std::ofstream(bad.toStdString()) << "{\"tables\": 3}";
    QCOMPARE(doc.open_file(bad).code(), StatusCode::kInvalidArgument);
    QVERIFY(doc.open_file(scenario_path("tiny_2gpu.json")).is_ok());
    QSignalSpy refused(&doc, &ScenarioDocument::editRefused);
    QCOMPARE(doc.validate_edit(batch, QStringLiteral("-1")).status().code(),
             StatusCode::kInvalidArgument);
    QVERIFY(!doc.apply_edit(batch, QStringLiteral("-1")));
    QCOMPARE(refused.count(), 1);
    QVERIFY(doc.apply_edit(batch, QStringLiteral("4096")));
    QVERIFY(doc.modified());
  }

  // Comparison's contract: no row (or a stale outcome) is kInvalidArgument;
  // a plan of another search space is kInternal.
  void a_comparison_row_is_checked_before_it_is_shown() {
    const Comparison empty;
    QCOMPARE(empty.row_plan(0, ResultState{}).status().code(), StatusCode::kInvalidArgument);
    planner::SearchSpace space;
    space.fqns = {"ebc.t0"};
    space.options.resize(1);
    space.fqn_of_option = {0};
    planner::PartitionedPlan plan;
    plan.proposal = {0};
    QVERIFY(Comparison::check_row_plan(plan, space).is_ok());
    plan.proposal = {1};  // no such option
    QCOMPARE(Comparison::check_row_plan(plan, space).code(), StatusCode::kInternal);
    plan.proposal = {0, 0};  // another table count
    QCOMPARE(Comparison::check_row_plan(plan, space).code(), StatusCode::kInternal);
  }

  // The rank and table every view follows: set once, said once, and
  // dropped when the scenario on screen has no such rank or table.
  void the_selection_fits_the_scenario_on_screen() {
    Selection selection;
    QSignalSpy changed(&selection, &Selection::changed);
    selection.select_rank(3);
    selection.select_rank(3);
    selection.select_table(1);
    QCOMPARE(changed.count(), 2);
    planner::Scenario small;
    small.topology.world_size = 4;
    small.tables.resize(2);
    selection.fit(small);  // both still there
    QCOMPARE(changed.count(), 2);
    small.topology.world_size = 2;
    small.tables.resize(1);
    selection.fit(small);
    QCOMPARE(selection.rank(), -1);
    QCOMPARE(selection.table(), -1);
    QCOMPARE(changed.count(), 3);

    Workbench wb;
    QVERIFY(open_and_plan(wb, "large_synthetic_8x8.json"));
    wb.selection().select_rank(63);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QCOMPARE(wb.selection().rank(), -1);
  }

  // Opening another scenario drops every result of the previous one, even
  // when its planning is cancelled: no view shows another scenario's plan.
  void opening_another_scenario_drops_the_previous_results() {
    MainWindow window;
    Workbench& wb = window.workbench();
    QVERIFY(open_and_plan(wb, "dlrm_criteo_kaggle.json"));
    wb.compare();
    QVERIFY(wait_for_compare(wb));
    QVERIFY(window.open_scenario(scenario_path("large_synthetic_8x8.json"), /*quiet=*/true));
    window.cancel_action()->trigger();
    QTRY_VERIFY(!wb.busy());
    QTest::qWait(20);
    QVERIFY(!wb.outcome());
    QVERIFY(!wb.displayed());
    QVERIFY(!wb.simulation());
    QVERIFY(!wb.comparison().outcome());
    QCOMPARE(window.models().placement.rowCount(), 0);
    QCOMPARE(window.models().proposals.rowCount(), 0);
    QCOMPARE(window.models().compare.rowCount(), 0);
    auto* plan = static_cast<PlanView*>(window.view(QStringLiteral("plan")));
    QVERIFY(!plan->header_text().contains(QStringLiteral("best plan")));
    QVERIFY2(plan->banner()->text().contains(QStringLiteral("No plan")),
             qPrintable(plan->banner()->text()));
    QVERIFY(plan->banner()->action_visible());
  }

  // Changing a setting the results depend on makes them stale too.
  void a_settings_change_marks_the_plan_stale() {
    Workbench wb;
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    wb.set_perf_model(PerfModelChoice::kSimulated);
    QVERIFY(wb.plan_state().stale());
    QVERIFY(wb.plan_state().reason.contains(QStringLiteral("rating model")));
    QVERIFY(wait_for_current_plan(wb));
    QCOMPARE(wb.outcome()->settings.perf_model, PerfModelChoice::kSimulated);
  }

  // A cancelled comparison keeps the rows it finished, marked stale.
  void a_cancelled_comparison_is_marked_incomplete() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "dlrm_criteo_kaggle.json"));
    wb.compare();
    QTRY_VERIFY_WITH_TIMEOUT(
        wb.comparison().outcome() && !wb.comparison().outcome()->comparison.rows.empty(), 60000);
    wb.cancel_compare();
    QTRY_VERIFY(!wb.worker().comparing());
    QTest::qWait(20);
    if (wb.comparison().outcome()->complete) QSKIP("the comparison finished before the cancel");
    QVERIFY(wb.compare_state().stale());
    QVERIFY2(wb.compare_state().reason.contains(QStringLiteral("cancelled")),
             qPrintable(wb.compare_state().reason));
    const int done = static_cast<int>(wb.comparison().outcome()->comparison.rows.size());
    QCOMPARE(models.compare.index(done, CompareModel::kStatus).data().toString(),
             QStringLiteral("cancelled"));
    QVERIFY(models.compare.row(done - 1) != nullptr);
  }

  // Undo and redo step through the edits; undo brings back the very scenario
  // (so its plan, re-planned, is current), redo the edited one.
  void undo_and_redo_step_through_edits() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    const ScenarioPtr original = wb.scenario();
    QUndoStack* undo = wb.document().undo_stack();
    QVERIFY(!undo->canUndo());
    QVERIFY(!wb.document().modified());
    QVERIFY(models.settings.setData(setting(models, "batch_size"), QStringLiteral("2048"),
                                    Qt::EditRole));
    const ScenarioPtr edited = wb.scenario();
    QVERIFY(wb.document().modified());
    QVERIFY(undo->canUndo());
    QVERIFY2(undo->undoText().contains(QStringLiteral("batch_size")), qPrintable(undo->undoText()));
    QVERIFY(wait_for_current_plan(wb));

    undo->undo();
    QCOMPARE(wb.scenario(), original);
    QVERIFY(!wb.document().modified());  // back where it was saved
    QCOMPARE(models.settings
                 .index(models.settings.row_of(QStringLiteral("batch_size")),
                        ScenarioSettingsModel::kValue)
                 .data()
                 .toString(),
             QString::number(original->batch_size));
    QVERIFY(wb.plan_state().stale());
    QVERIFY(wait_for_current_plan(wb));
    QCOMPARE(wb.outcome()->scenario, original);
    QVERIFY(wb.last_change() && wb.last_change()->cause.startsWith(QStringLiteral("Undo")));

    undo->redo();
    QCOMPARE(wb.scenario(), edited);
    QVERIFY(wb.document().modified());
    QVERIFY(wait_for_current_plan(wb));
    QCOMPARE(wb.outcome()->scenario->batch_size, int64_t{2048});
    // A new document forgets the history.
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QVERIFY(!undo->canUndo());
    QVERIFY(!wb.document().modified());
  }

  static std::string read_text(const QString& path) {
    std::ifstream in(path.toStdString());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // Save writes a file that loads back to the same scenario and clears the
  // unsaved mark; Save without a file refuses.
  void save_writes_the_edited_scenario() {
    Workbench wb;
    WorkbenchModels models(&wb);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QVERIFY(models.settings.setData(setting(models, "topology.hbm_cap"), QStringLiteral("8 GiB"),
                                    Qt::EditRole));
    QVERIFY(wb.document().modified());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("edited.json"));
    QSignalSpy modified(&wb.document(), &ScenarioDocument::modifiedChanged);
    QVERIFY(wb.document().save(path).is_ok());
    QVERIFY(!wb.document().modified());
    QCOMPARE(modified.count(), 1);
    QCOMPARE(wb.document().path(), path);
    QCOMPARE(wb.document().name(), QStringLiteral("edited.json"));
    auto loaded = data::load_scenario_file(path.toStdString());
    QVERIFY(loaded.is_ok());
    QCOMPARE(data::scenario_to_json(*loaded), data::scenario_to_json(*wb.scenario()));
    QCOMPARE(loaded->topology.hbm_cap, int64_t{8} << 30);
    // The file is the one opened with that field set: keys in their order,
    // nothing the file left out written (no defaults).
    nlohmann::ordered_json want =
        nlohmann::ordered_json::parse(read_text(scenario_path("tiny_2gpu.json")));
    want["topology"]["hbm_cap"] = "8 GiB";
    const nlohmann::ordered_json saved = nlohmann::ordered_json::parse(read_text(path));
    QVERIFY2(saved == want, saved.dump().c_str());
    // An edit the file cannot take field by field (the whole scenario set at
    // once) writes the whole scenario, which loads as the current one.
    wb.document().edit(wb.scenario(), QStringLiteral("whole"));
    QVERIFY(models.settings.setData(setting(models, "topology.hbm_cap"), QStringLiteral("9 GiB"),
                                    Qt::EditRole));
    QVERIFY(wb.document().save().is_ok());
    auto whole = data::load_scenario_file(path.toStdString());
    QVERIFY(whole.is_ok());
    QCOMPARE(data::scenario_to_json(*whole), data::scenario_to_json(*wb.scenario()));
    // Save again goes to the same file; a failing save changes nothing.
    QVERIFY(wb.document().save().is_ok());
    QVERIFY(!wb.document().save(dir.filePath(QStringLiteral("missing/dir/x.json"))).is_ok());
    QCOMPARE(wb.document().path(), path);
    // A scenario without a file (a run's) cannot be saved in place.
    wb.document().open(wb.scenario(), QString(), QStringLiteral("run 3"));
    QVERIFY(!wb.document().save().is_ok());
    wb.worker().wait_idle();
  }

  // The title names the file with an unsaved marker; opening another
  // scenario or closing the window with unsaved edits asks first, and Cancel
  // keeps everything.
  void the_window_asks_before_unsaved_edits_are_lost() {
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("copy.json"));
    QVERIFY(QFile::copy(scenario_path("tiny_2gpu.json"), copy));
    MainWindow window;
    Workbench& wb = window.workbench();
    QVERIFY(window.open_scenario(copy, /*quiet=*/true));
    QVERIFY(wait_for_current_plan(wb));
    QVERIFY(window.windowTitle().contains(QStringLiteral("copy.json")));
    QVERIFY(!window.isWindowModified());
    QVERIFY(window.models().settings.setData(setting(window.models(), "batch_size"),
                                             QStringLiteral("64"), Qt::EditRole));
    QVERIFY(window.isWindowModified());
    QVERIFY(window.undo_action()->isEnabled());
    const ScenarioPtr edited = wb.scenario();

    QStringList asked;
    MainWindow::UnsavedAnswer answer = MainWindow::UnsavedAnswer::kCancel;
    window.set_unsaved_prompt([&](const QString& name) {
      asked << name;
      return answer;
    });
    // Cancel: neither opening nor closing goes ahead.
    QVERIFY(!window.open_scenario(scenario_path("dlrm_criteo_kaggle.json"), true));
    QCOMPARE(asked, QStringList{QStringLiteral("copy.json")});
    QCOMPARE(wb.scenario(), edited);
    window.show();
    QVERIFY(!window.close());
    QCOMPARE(asked.size(), 2);
    QVERIFY(window.isVisible());
    // Save: the edits go to the file, then the other scenario opens.
    answer = MainWindow::UnsavedAnswer::kSave;
    QVERIFY(window.open_scenario(scenario_path("dlrm_criteo_kaggle.json"), true));
    QCOMPARE(asked.size(), 3);
    auto saved = data::load_scenario_file(copy.toStdString());
    QVERIFY(saved.is_ok());
    QCOMPARE(saved->batch_size, int64_t{64});
    QVERIFY(!window.isWindowModified());
    QVERIFY(window.windowTitle().contains(QStringLiteral("dlrm_criteo_kaggle.json")));
    QVERIFY(wait_for_current_plan(wb));
    // Nothing unsaved: no question.
    QVERIFY(window.open_scenario(copy, true));
    QCOMPARE(asked.size(), 3);
    QVERIFY(wait_for_current_plan(wb));
    // Discard: closes without saving.
    QVERIFY(window.models().settings.setData(setting(window.models(), "batch_size"),
                                             QStringLiteral("128"), Qt::EditRole));
    answer = MainWindow::UnsavedAnswer::kDiscard;
    QVERIFY(window.close());
    QCOMPARE(asked.size(), 4);
    QCOMPARE(data::load_scenario_file(copy.toStdString())->batch_size, int64_t{64});
    wb.worker().wait_idle();
  }

  // After an edit the Plan view says what the re-plan changed, from the two
  // outcomes' own numbers.
  void a_replan_explains_what_changed() {
    MainWindow window;
    Workbench& wb = window.workbench();
    QVERIFY(open_and_plan(wb, "dlrm_criteo_kaggle.json"));
    const PlanOutcomePtr before = wb.outcome();
    QVERIFY(window.models().settings.setData(setting(window.models(), "batch_size"),
                                             QStringLiteral("8192"), Qt::EditRole));
    QVERIFY(wait_for_current_plan(wb));
    QVERIFY(wb.last_change().has_value());
    const PlanChange& c = *wb.last_change();
    QVERIFY2(c.cause.contains(QStringLiteral("batch_size")), qPrintable(c.cause));
    QCOMPARE(c.rating_before, before->result.perf_rating);
    QCOMPARE(c.rating_after, wb.outcome()->result.perf_rating);
    QCOMPARE(*c.iteration_before, before->simulation->iteration_ms);
    QCOMPARE(*c.iteration_after, wb.outcome()->simulation->iteration_ms);
    QCOMPARE(c.peak_hbm_after, wb.outcome()->summary->peak_shard_hbm);
    QCOMPARE(c.moved_tables,
             planner::diff_plans(*before->summary, *wb.outcome()->summary).moved_tables);
    auto* plan = static_cast<PlanView*>(window.view(QStringLiteral("plan")));
    QVERIFY2(plan->change_text().contains(QStringLiteral("rating")),
             qPrintable(plan->change_text()));
    QVERIFY(plan->change_text().contains(QStringLiteral("simulated iteration")));
    QVERIFY(plan->change_text().contains(QStringLiteral("peak HBM")));
  }

  // Every view can be closed and brought back from the View menu.
  void the_view_menu_shows_and_hides_every_view() {
    MainWindow window;
    window.show();
    for (const QString& name : window.views()) {
      QDockWidget* dock = window.dock(name);
      QVERIFY(dock->toggleViewAction()->isEnabled());
      dock->toggleViewAction()->trigger();
      QVERIFY2(dock->isHidden(), qPrintable(name));
      dock->toggleViewAction()->trigger();
      QVERIFY2(!dock->isHidden(), qPrintable(name));
    }
  }
};

SHARDLAB_REGISTER_GUI_TEST(SessionTest)

}  // namespace shardlab::gui::test

#include "session_test.moc"
