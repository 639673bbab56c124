// Editing a scenario in the Scenario view's models: values go through the
// loader's rules, refusals carry the loader's message and change nothing,
// accepted edits become the session's scenario and are planned again.
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QObject>
#include <QSignalSpy>
#include <QTest>

#include "app/topology_view.h"
#include "gui_test_support.h"
#include "models/field_value.h"
#include "models/model_roles.h"
#include "models/topology_snapshot.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/types.h"
#include "test_registry.h"

namespace shardlab::gui::test {

class ScenarioEditTest : public QObject {
  Q_OBJECT

 private:
  // Row of table `name` in the tables model.
  static int row_of(const ScenarioTablesModel& m, const QString& name) {
    for (int r = 0; r < m.rowCount(); ++r) {
      if (m.index(r, ScenarioTablesModel::kName).data().toString() == name) return r;
    }
    return -1;
  }

 private slots:
  void init() { fail_on_warnings(); }

  void shows_the_tables_and_settings_of_the_scenario() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QCOMPARE(models.tables.rowCount(), 4);
    const int item = row_of(models.tables, QStringLiteral("item_id"));
    QVERIFY(item >= 0);
    QCOMPARE(models.tables.index(item, ScenarioTablesModel::kRows).data().toString(),
             QStringLiteral("500000"));
    QCOMPARE(models.tables.index(item, ScenarioTablesModel::kFeatures).data().toString(),
             QStringLiteral("item_id, last_clicked_item"));
    QCOMPARE(models.tables.index(item, ScenarioTablesModel::kPoolingFactors).data().toString(),
             QStringLiteral("1, 1"));
    const int category = row_of(models.tables, QStringLiteral("item_category"));
    QCOMPARE(models.tables.index(category, ScenarioTablesModel::kShardingTypes).data().toString(),
             QStringLiteral("data_parallel, table_wise"));
    const int world = models.settings.row_of(QStringLiteral("topology.world_size"));
    QVERIFY(world >= 0);
    QCOMPARE(models.settings.index(world, ScenarioSettingsModel::kValue).data().toString(),
             QStringLiteral("2"));
    const int hbm = models.settings.row_of(QStringLiteral("topology.hbm_cap"));
    // Sizes and bandwidths show as unit strings the loader reads back exactly.
    QCOMPARE(models.settings.index(hbm, ScenarioSettingsModel::kValue).data().toString(),
             QStringLiteral("16 GiB"));
    const int bw = models.settings.row_of(QStringLiteral("topology.hbm_mem_bw"));
    const QString bw_text =
        models.settings.index(bw, ScenarioSettingsModel::kValue).data().toString();
    QVERIFY2(bw_text.endsWith(QStringLiteral("/s")), qPrintable(bw_text));
    QCOMPARE(*data::parse_bandwidth_string(bw_text.toStdString()),
             wb.scenario()->topology.hbm_mem_bw);
    // Enumerated fields offer their values.
    QCOMPARE(models.tables.index(0, ScenarioTablesModel::kShardingTypes)
                 .data(ChoicesRole)
                 .toStringList()
                 .size(),
             static_cast<qsizetype>(planner::kNumShardingTypes));
    QVERIFY(models.tables.index(0, ScenarioTablesModel::kComputeKernels)
                .data(MultiChoiceRole)
                .toBool());
    QVERIFY(models.tables.index(0, ScenarioTablesModel::kDataType)
                .data(ChoicesRole)
                .toStringList()
                .contains(QStringLiteral("fp16")));
    QVERIFY(!models.tables.index(0, ScenarioTablesModel::kDataType).data(MultiChoiceRole).toBool());
  }

  void unit_strings_are_exact() {
    QCOMPARE(exact_size_text(int64_t{80} << 30), QStringLiteral("80 GiB"));
    QCOMPARE(exact_size_text(int64_t{3} << 29), QStringLiteral("1.5 GiB"));
    QCOMPARE(exact_size_text(12345), QStringLiteral("12345"));
    const double h100 = *data::parse_bandwidth_string("897 GiB/s");
    for (const double bw : {h100, 1e6, 12.5e6, 3.3}) {
      const QString text = exact_bandwidth_text(bw);
      if (text.endsWith(QStringLiteral("/s"))) {
        QCOMPARE(*data::parse_bandwidth_string(text.toStdString()), bw);
      } else {
        QCOMPARE(text.toDouble(), bw);
      }
    }
    QCOMPARE(exact_bandwidth_text(h100), QStringLiteral("897 GiB/s"));
  }

  void refuses_a_bad_value_with_the_loaders_reason_and_changes_nothing() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    const ScenarioPtr before = wb.scenario();
    QSignalSpy refused(&wb.document(), &ScenarioDocument::editRefused);
    QSignalSpy replanned(&wb, &Workbench::outcomeChanged);
    const int row = row_of(models.tables, QStringLiteral("item_category"));
    const QModelIndex dim = models.tables.index(row, ScenarioTablesModel::kDim);

    QVERIFY(!models.tables.setData(dim, QStringLiteral("0"), Qt::EditRole));
    QCOMPARE(refused.count(), 1);
    const QString message = refused.takeFirst().at(0).toString();
    QVERIFY2(message.contains(QStringLiteral("tables[2].embedding_dim")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("got 0")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("in [1, 1073741824]")), qPrintable(message));
    QCOMPARE(dim.data().toString(), QStringLiteral("32"));  // not clamped to 1
    QCOMPARE(wb.scenario(), before);

    // Not a number: refused naming what was typed, not coerced.
    QVERIFY(!models.tables.setData(dim, QStringLiteral("abc"), Qt::EditRole));
    QVERIFY(refused.takeFirst().at(0).toString().contains(QStringLiteral("\"abc\"")));
    // Too large for the table's byte counts: refused, not clamped.
    QVERIFY(!models.tables.setData(dim, QStringLiteral("99999999999999999"), Qt::EditRole));
    const QString too_large = refused.takeFirst().at(0).toString();
    QVERIFY2(too_large.contains(QStringLiteral("99999999999999999")), qPrintable(too_large));
    QCOMPARE(dim.data().toString(), QStringLiteral("32"));

    // A constraint list with a negative entry.
    const int history = row_of(models.tables, QStringLiteral("user_history"));
    QVERIFY(
        !models.tables.setData(models.tables.index(history, ScenarioTablesModel::kPoolingFactors),
                               QStringLiteral("-2"), Qt::EditRole));
    const QString pooling = refused.takeFirst().at(0).toString();
    QVERIFY2(pooling.contains(QStringLiteral("constraints.user_history.pooling_factors")),
             qPrintable(pooling));
    QVERIFY2(pooling.contains(QStringLiteral("-2")), qPrintable(pooling));
    // An unknown sharding type.
    QVERIFY(
        !models.tables.setData(models.tables.index(history, ScenarioTablesModel::kShardingTypes),
                               QStringLiteral("diagonal_wise"), Qt::EditRole));
    QVERIFY(refused.takeFirst().at(0).toString().contains(QStringLiteral("diagonal_wise")));

    // Settings: 0 ranks and a reservation above 100% are refused.
    const QModelIndex world =
        models.settings.index(models.settings.row_of(QStringLiteral("topology.world_size")),
                              ScenarioSettingsModel::kValue);
    QVERIFY(!models.settings.setData(world, QStringLiteral("0"), Qt::EditRole));
    QVERIFY(refused.takeFirst().at(0).toString().contains(QStringLiteral("topology.world_size")));
    QCOMPARE(world.data().toString(), QStringLiteral("2"));
    const QModelIndex pct = models.settings.index(
        models.settings.row_of(QStringLiteral("planner.storage_reservation.percentage")),
        ScenarioSettingsModel::kValue);
    QVERIFY(!models.settings.setData(pct, QStringLiteral("1.5"), Qt::EditRole));
    QVERIFY(refused.takeFirst().at(0).toString().contains(QStringLiteral("1.5")));
    QCOMPARE(pct.data().toString(), QStringLiteral("0.15"));

    QCOMPARE(wb.scenario(), before);
    QTest::qWait(50);
    QCOMPARE(replanned.count(), 0);  // nothing was accepted, nothing re-planned
  }

  void accepts_a_good_value_and_replans() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QSignalSpy replanned(&wb, &Workbench::outcomeChanged);
    const int row = row_of(models.tables, QStringLiteral("user_id"));
    QVERIFY(models.tables.setData(models.tables.index(row, ScenarioTablesModel::kDataType),
                                  QStringLiteral("fp16"), Qt::EditRole));
    QCOMPARE(wb.scenario()->tables[0].data_type, planner::DataType::kFp16);
    QCOMPARE(models.tables.index(row, ScenarioTablesModel::kDataType).data().toString(),
             QStringLiteral("fp16"));
    // Sizes take unit strings, as in a file.
    const QModelIndex hbm = models.settings.index(
        models.settings.row_of(QStringLiteral("topology.hbm_cap")), ScenarioSettingsModel::kValue);
    QVERIFY(models.settings.setData(hbm, QStringLiteral("8 GiB"), Qt::EditRole));
    QCOMPARE(wb.scenario()->topology.hbm_cap, int64_t{8} << 30);
    QVERIFY(wait_for(replanned));
    QTRY_VERIFY(!wb.busy());
    QCOMPARE(wb.outcome()->scenario, wb.scenario());
    QVERIFY(wb.outcome()->result.ok());
  }

  // topology.pod_size (TorchRec 2026-08's pods) is edited like any field:
  // the loader's limits decide, and a pod of more hosts than ranks is refused.
  void edits_the_pod_size() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    const int row = models.settings.row_of(QStringLiteral("topology.pod_size"));
    QVERIFY(row >= 0);
    const QModelIndex pod = models.settings.index(row, ScenarioSettingsModel::kValue);
    QCOMPARE(pod.data().toString(), QString());
    QVERIFY(!models.settings.setData(pod, QStringLiteral("3"), Qt::EditRole));
    QVERIFY(!wb.scenario()->topology.pod_size.has_value());
    QVERIFY(models.settings.setData(pod, QStringLiteral("1"), Qt::EditRole));
    QCOMPARE(wb.scenario()->topology.pod_size, std::optional<int>(1));
    QCOMPARE(pod.data().toString(), QStringLiteral("1"));
    QTRY_VERIFY(!wb.busy());
  }

  // TorchRec 2026-08's SSD tier: the SSD capacity in the settings, a
  // table's key-value L1 cache and virtual-table flag in the tables view.
  void edits_the_ssd_tier() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    const QModelIndex ssd = models.settings.index(
        models.settings.row_of(QStringLiteral("topology.ssd_cap")), ScenarioSettingsModel::kValue);
    QVERIFY(models.settings.setData(ssd, QStringLiteral("4 TB"), Qt::EditRole));
    QCOMPARE(wb.scenario()->topology.ssd_cap, std::optional<int64_t>(4000000000000));
    QTRY_VERIFY(!wb.busy());

    const QModelIndex l1 = models.tables.index(0, ScenarioTablesModel::kL1Cache);
    QCOMPARE(l1.data().toString(), QString());
    QVERIFY(models.tables.setData(l1, QStringLiteral("64"), Qt::EditRole));
    const auto& c = wb.scenario()->constraints[0];
    QVERIFY(c && c->key_value_params);
    QCOMPARE(c->key_value_params->max_l1_cache_size, std::optional<int64_t>(64));
    QVERIFY(!models.tables.setData(l1, QStringLiteral("-1"), Qt::EditRole));
    QTRY_VERIFY(!wb.busy());

    const QModelIndex virtual_table = models.tables.index(0, ScenarioTablesModel::kVirtualTable);
    QCOMPARE(virtual_table.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QVERIFY(models.tables.setData(virtual_table, Qt::Checked, Qt::CheckStateRole));
    QVERIFY(wb.scenario()->tables[0].use_virtual_table);
    QTRY_VERIFY(!wb.busy());
    QVERIFY(wb.outcome()->result.ok());
  }

  // A pod (topology.pod_size) is one NVLink domain: the topology view draws
  // it as one box over its hosts and says so.
  void the_topology_draws_a_pod_as_one_nvlink_domain() {
    auto scenario = data::parse_scenario(
        R"({"topology": {"world_size": 16, "local_world_size": 4, "pod_size": 2},
            "tables": [{"name": "t0", "num_embeddings": 1000, "embedding_dim": 64,
                        "feature_names": ["f0"]}]})",
        "pods.json");
    QVERIFY2(scenario.is_ok(), scenario.status().message().c_str());
    TopologyView view;
    view.set_topology(topology_snapshot(*scenario));
    QStringList titles;
    for (QGraphicsItem* item : view.scene()->items()) {
      if (item->type() != QGraphicsSimpleTextItem::Type) continue;
      const QString text = static_cast<QGraphicsSimpleTextItem*>(item)->text();
      if (text.startsWith(QStringLiteral("NVLink domain")) ||
          text.startsWith(QStringLiteral("host ")))
        titles << text;
    }
    titles.sort();
    QCOMPARE(titles, (QStringList{QStringLiteral("NVLink domain 0: 2 hosts of 4 GPUs"),
                                  QStringLiteral("NVLink domain 1: 2 hosts of 4 GPUs")}));
  }

  void edits_the_gpu_preset_and_the_dense_model() {
    Workbench wb;
    WorkbenchModels models(&wb);
    auto testers = attach_testers(models);
    QVERIFY(open_and_plan(wb, "tiny_2gpu.json"));
    QSignalSpy refused(&wb.document(), &ScenarioDocument::editRefused);
    const QModelIndex gpu = models.settings.index(
        models.settings.row_of(QStringLiteral("topology.gpu")), ScenarioSettingsModel::kValue);
    QCOMPARE(gpu.data().toString(), QString());
    // A preset fills the bandwidths the file leaves out (tiny_2gpu sets only hbm_cap).
    QVERIFY(models.settings.setData(gpu, QStringLiteral("h100-sxm"), Qt::EditRole));
    QVERIFY(wb.scenario()->gpu.has_value());
    QCOMPARE(wb.scenario()->topology.hbm_mem_bw, 3.35e9);
    QCOMPARE(wb.scenario()->topology.hbm_cap, int64_t{16} << 30);  // explicit in the file: kept
    QVERIFY(!models.settings.setData(gpu, QStringLiteral("h1000"), Qt::EditRole));
    QVERIFY(refused.takeFirst().at(0).toString().contains(QStringLiteral("unknown GPU preset")));

    const QModelIndex dense = models.settings.index(
        models.settings.row_of(QStringLiteral("workload.dense")), ScenarioSettingsModel::kValue);
    QVERIFY(models.settings.setData(
        dense,
        QStringLiteral(
            R"({"dense_features": 13, "bottom_mlp": [64], "interaction": {"kind": "cat"}, "top_mlp": [32, 1]})"),
        Qt::EditRole));
    QVERIFY(wb.scenario()->workload.dense.has_value());
    QCOMPARE(wb.scenario()->workload.dense->bottom_mlp, std::vector<int64_t>{64});
    QVERIFY(dense.data().toString().contains(QStringLiteral("\"cat\"")));
    // The loader judges the object: a DCN interaction needs its layer count.
    QVERIFY(!models.settings.setData(
        dense,
        QStringLiteral(
            R"({"dense_features": 13, "bottom_mlp": [32], "interaction": {"kind": "dcn"}})"),
        Qt::EditRole));
    QVERIFY(refused.takeFirst().at(0).toString().contains(
        QStringLiteral("workload.dense.interaction.layers")));
    // Empty removes both.
    QVERIFY(models.settings.setData(dense, QString(), Qt::EditRole));
    QVERIFY(!wb.scenario()->workload.dense.has_value());
    QVERIFY(models.settings.setData(gpu, QString(), Qt::EditRole));
    QVERIFY(!wb.scenario()->gpu.has_value());
    QCOMPARE(wb.scenario()->topology.hbm_mem_bw, planner::kDefaultHbmMemBw);
  }

  void field_values_are_typed_as_json_without_judging_them() {
    QCOMPARE(field_json(FieldKind::kNumber, QStringLiteral(" 64 ")), QStringLiteral("64"));
    QCOMPARE(field_json(FieldKind::kNumber, QStringLiteral("32 GiB")),
             QStringLiteral("\"32 GiB\""));
    QCOMPARE(field_json(FieldKind::kNumber, QString()), QStringLiteral("null"));
    QCOMPARE(field_json(FieldKind::kNumberList, QStringLiteral("1.5, x")),
             QStringLiteral("[1.5,\"x\"]"));
    QCOMPARE(field_json(FieldKind::kNumberList, QStringLiteral("[]")), QStringLiteral("[]"));
    QCOMPARE(field_json(FieldKind::kStringList, QStringLiteral("table_wise, row_wise")),
             QStringLiteral("[\"table_wise\",\"row_wise\"]"));
    QCOMPARE(field_json(FieldKind::kString, QStringLiteral("a\"b")), QStringLiteral("\"a\\\"b\""));
    QCOMPARE(field_json(FieldKind::kBool, QStringLiteral("yes")), QStringLiteral("true"));
    QCOMPARE(field_json(FieldKind::kName, QStringLiteral(" b200 ")), QStringLiteral("\"b200\""));
    QCOMPARE(field_json(FieldKind::kName, QString()), QStringLiteral("null"));
    QCOMPARE(field_json(FieldKind::kJson, QStringLiteral("{\"a\": 1}")),
             QStringLiteral("{\"a\": 1}"));
    QCOMPARE(field_json(FieldKind::kJson, QStringLiteral("  ")), QStringLiteral("null"));
  }
};

SHARDLAB_REGISTER_GUI_TEST(ScenarioEditTest)

}  // namespace shardlab::gui::test

#include "scenario_edit_test.moc"
