// Entry points of the scenario loader: read the file, parse it defensively,
// read the sections in format order, then run the checks that span sections
// (TorchRec's build-time refusals). The first error wins; its message is one
// line, "<origin>: <json path>: <what is wrong>: got <value>, expected <what>".
#include "shardlab/data/scenario_loader.h"

#include <filesystem>

#include "json_document.h"
#include "json_input.h"
#include "message_text.h"
#include "problem_collector.h"
#include "read_document.h"
#include "scenario_sections.h"
#include "shardlab/data/file_io.h"

namespace shardlab::data {
namespace {

using internal::invalid_at;
using internal::Json;
using internal::JsonPath;
using internal::ObjectReader;
using internal::with_origin;

// TorchRec builds the modules before it plans, and refuses some scenarios
// there (golden README §3.2 item 15, §3.2 item 26). Those refusals are
// kInvalidArgument too, reported at the table that triggers them.
Status check_module_build(const Json& tables_json, const JsonPath& tables_path,
                          const planner::Scenario& s) {
  if (s.module.kind == planner::ModuleKind::kEmbeddingCollection) {
    // An EmbeddingCollection's tables share one dim; TorchRec compares each
    // table with the first and names the first one that differs.
    const int64_t dim = s.tables.front().embedding_dim;
    for (std::size_t i = 1; i < s.tables.size(); ++i) {
      const planner::TableSpec& t = s.tables[i];
      if (t.embedding_dim == dim) continue;
      return Status::invalid_argument(
          tables_path.at(i).child("embedding_dim").to_string() +
          ": All tables in a EmbeddingCollection are required to have same embedding dimension. "
          "Violating case: " +
          t.name + "'s embedding_dim " + std::to_string(t.embedding_dim) +
          " != " + std::to_string(dim));
    }
  }
  if (!s.planner.is_inference) return Status::ok();
  // Quantized modules (FBGEMM) have no bf16 row layout and pack int4/int2
  // values two/four to a byte, so those dims must divide exactly.
  for (std::size_t i = 0; i < s.tables.size(); ++i) {
    const planner::TableSpec& t = s.tables[i];
    const JsonPath table_path = tables_path.at(i);
    const Json& table_json = tables_json[i];
    if (t.data_type == planner::DataType::kBf16) {
      return invalid_at(table_path.child("data_type"),
                        "bf16 tables cannot be quantized for inference",
                        &*table_json.find("data_type"),
                        "fp32, fp16, int8, int4 or int2 with planner.is_inference");
    }
    if (t.data_type == planner::DataType::kInt4 && t.embedding_dim % 2 != 0) {
      return invalid_at(table_path.child("embedding_dim"),
                        "an int4 table needs an even embedding_dim for inference",
                        &*table_json.find("embedding_dim"), "a multiple of 2");
    }
    if (t.data_type == planner::DataType::kInt2 && t.embedding_dim % 4 != 0) {
      return invalid_at(table_path.child("embedding_dim"),
                        "an int2 table needs an embedding_dim divisible by 4 for inference",
                        &*table_json.find("embedding_dim"), "a multiple of 4");
    }
  }
  return Status::ok();
}

Result<planner::Scenario> read_scenario(const Json& doc, const std::string& origin) {
  const JsonPath root_path;
  ObjectReader root(doc, root_path);
  SHARDLAB_RETURN_IF_ERROR(root.check("a scenario object", internal::kRootKeys));
  planner::Scenario s;
  s.name = std::filesystem::path(origin).stem().string();
  SHARDLAB_RETURN_IF_ERROR(root.read("name", s.name, internal::StringValue{.non_empty = true}));
  SHARDLAB_RETURN_IF_ERROR(
      internal::read_topology(root, s.topology, s.fabric, s.gpu, s.preset_fills));
  SHARDLAB_RETURN_IF_ERROR(root.read("batch_size", s.batch_size, internal::IntValue{.min = 1}));
  SHARDLAB_RETURN_IF_ERROR(internal::read_module(root, s.module));
  internal::TableIndex index;
  SHARDLAB_RETURN_IF_ERROR(internal::read_tables(root, s.tables, index));
  SHARDLAB_RETURN_IF_ERROR(internal::read_constraints(root, index, s.constraints));
  SHARDLAB_RETURN_IF_ERROR(internal::read_sharder(root, s.sharder));
  SHARDLAB_RETURN_IF_ERROR(internal::read_planner(root, s.planner));
  SHARDLAB_RETURN_IF_ERROR(internal::read_workload(root, s.topology.world_size, s.workload));
  SHARDLAB_RETURN_IF_ERROR(check_module_build(*root.find("tables"), root.path_of("tables"), s));
  SHARDLAB_RETURN_IF_ERROR(internal::finish_simulator_sections(root, s));
  // Each field is in range; now the byte counts they multiply into.
  if (const auto violation = planner::find_limit_violation(s))
    return internal::limit_error(*violation, &doc);
  return s;
}

}  // namespace

namespace internal {

const KeySchema& scenario_schema() {
  static const KeySchema host{.keys = kHostKeys};
  static const KeySchema hosts{.elements = &host};
  static const KeySchema fabric{.keys = kFabricKeys, .members = {{"hosts", &hosts}}};
  static const KeySchema topology{.keys = kTopologyKeys, .members = {{"fabric", &fabric}}};
  static const KeySchema module{.keys = kModuleKeys};
  static const KeySchema table{.keys = kTableKeys};
  static const KeySchema tables{.elements = &table};
  static const KeySchema cache_params{.keys = kCacheParamsKeys};
  static const KeySchema key_value_params{.keys = kKeyValueParamsKeys};
  static const KeySchema constraint{
      .keys = kConstraintKeys,
      .members = {{"cache_params", &cache_params}, {"key_value_params", &key_value_params}}};
  static const KeySchema constraints{.any_member = &constraint};
  static const KeySchema fused_params{.keys = kFusedParamsKeys};
  static const KeySchema qcomm{.keys = kQcommKeys};
  static const KeySchema sharder{.keys = kSharderKeys,
                                 .members = {{"fused_params", &fused_params}, {"qcomm", &qcomm}}};
  static const KeySchema proposer{.keys = kAnyProposerKeys};
  static const KeySchema proposers{.elements = &proposer};
  static const KeySchema partitioner{.keys = kAnyPartitionerKeys};
  static const KeySchema reservation{.keys = kReservationKeys};
  static const KeySchema planner_section{.keys = kPlannerKeys,
                                         .members = {{"proposers", &proposers},
                                                     {"partitioner", &partitioner},
                                                     {"storage_reservation", &reservation}}};
  static const KeySchema interaction{.keys = kInteractionKeys};
  static const KeySchema dense{.keys = kDenseKeys, .members = {{"interaction", &interaction}}};
  static const KeySchema workload{.keys = kWorkloadKeys, .members = {{"dense", &dense}}};
  static const KeySchema root{.keys = kRootKeys,
                              .members = {{"topology", &topology},
                                          {"module", &module},
                                          {"tables", &tables},
                                          {"constraints", &constraints},
                                          {"sharder", &sharder},
                                          {"planner", &planner_section},
                                          {"workload", &workload}}};
  return root;
}

}  // namespace internal

Result<planner::Scenario> parse_scenario(const std::string& text, const std::string& origin) {
  return internal::read_document(text, origin, &internal::scenario_schema(), "scenario",
                                 [&](const Json& doc) { return read_scenario(doc, origin); });
}

namespace {

// check_scenario and check_scenario_file: `load` under a collector.
template <typename Load>
ScenarioCheck check_with(const std::string& origin, Load&& load) {
  ScenarioCheck out;
  internal::ProblemCollector collector;
  Result<planner::Scenario> loaded = load();
  if (collector.problems().empty()) {
    if (loaded) {
      out.scenario = std::move(loaded).value();
    } else {
      out.problems.push_back(loaded.status());
    }
    return out;
  }
  // What stopped the reading (if anything) ran on members read as absent:
  // left out, as the header says.
  for (const Status& p : collector.problems()) out.problems.push_back(with_origin(p, origin));
  return out;
}

}  // namespace

ScenarioCheck check_scenario_file(const std::string& path) {
  return check_with(path, [&] { return load_scenario_file(path); });
}

ScenarioCheck check_scenario(const std::string& text, const std::string& origin) {
  return check_with(origin, [&] { return parse_scenario(text, origin); });
}

Result<planner::Scenario> load_scenario_file(const std::string& path) {
  // Larger files are refused before parsing: a 100k-table scenario is ~20 MB.
  auto text = read_input_file(path, "scenario", kMaxInputFileBytes);
  if (!text) return text.status();
  return parse_scenario(*text, path);
}

}  // namespace shardlab::data
