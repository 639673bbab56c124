// The loader on input meant to break it: truncated and corrupted JSON, wrong
// types in every slot, huge numbers, NaN literals, deep nesting, duplicate
// keys, garbage bytes, odd files, and a 100k-table scenario. Every case must
// end in a clean value (a loaded scenario or an error Status with a one-line,
// printable message), never a crash, a hang or an escaped exception.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "../printable_text.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::data {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kOrigin = "s.json";

// Checks the invariants every outcome must have; returns the error message, or
// "" when the scenario loaded.
std::string outcome(const std::string& text) {
  auto r = parse_scenario(text, std::string(kOrigin));
  if (r.is_ok()) return "";
  const std::string& msg = r.status().message();
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << msg;
  EXPECT_TRUE(msg.starts_with("s.json: ")) << msg;
  EXPECT_TRUE(testing_support::is_printable_utf8_line(msg)) << msg;
  EXPECT_LT(msg.size(), 600u) << msg;
  return msg.empty() ? "<empty message>" : msg;
}

std::string expect_error(const std::string& text) {
  const std::string msg = outcome(text);
  EXPECT_FALSE(msg.empty()) << "loaded: " << text.substr(0, 200);
  return msg;
}

#define EXPECT_ERROR_CONTAINS(text, needle)                                 \
  do {                                                                      \
    const std::string msg_ = expect_error(text);                            \
    EXPECT_NE(msg_.find(needle), std::string::npos) << "message: " << msg_; \
  } while (false)

// ---- A document made of named slots. ---------------------------------------
//
// Each slot is a value in the document; its default may contain further slot
// markers (@name@). Replacing one slot's value (and so dropping whatever was
// nested in it) puts a hostile value at every level of the format.
struct Slot {
  std::string path;   // JSON path as error messages write it
  std::string value;  // default text
};

const std::vector<std::pair<std::string, Slot>>& slots() {
  static const std::vector<std::pair<std::string, Slot>> kSlots = {
      {"root", {"<root>", R"({"name": @name@, "topology": @topology@, "batch_size": @batch_size@,
         "module": @module@, "tables": @tables@, "constraints": @constraints@,
         "sharder": @sharder@, "planner": @planner@})"}},
      {"name", {"name", R"("hostile")"}},
      {"topology",
       {"topology", R"({"world_size": @ws@, "local_world_size": @lws@, "compute_device": @dev@,
         "hbm_cap": @hbm_cap@, "ddr_cap": @ddr_cap@, "hbm_mem_bw": @hbm_bw@, "ddr_mem_bw": @ddr_bw@,
         "intra_host_bw": @intra_bw@, "inter_host_bw": @inter_bw@, "bwd_compute_multiplier": @bwd@})"}},
      {"ws", {"topology.world_size", "4"}},
      {"lws", {"topology.local_world_size", "2"}},
      {"dev", {"topology.compute_device", R"("cuda")"}},
      {"hbm_cap", {"topology.hbm_cap", R"("16 GiB")"}},
      {"ddr_cap", {"topology.ddr_cap", "137438953472"}},
      {"hbm_bw", {"topology.hbm_mem_bw", R"("897 GiB/s")"}},
      {"ddr_bw", {"topology.ddr_mem_bw", "54760833.024"}},
      {"intra_bw", {"topology.intra_host_bw", R"("600 GiB/s")"}},
      {"inter_bw", {"topology.inter_host_bw", "13421772.8"}},
      {"bwd", {"topology.bwd_compute_multiplier", "2.0"}},
      {"batch_size", {"batch_size", "512"}},
      {"module", {"module", R"({"kind": @module_kind@, "dense_param_bytes": @dense@})"}},
      {"module_kind", {"module.kind", R"("embedding_bag_collection")"}},
      {"dense", {"module.dense_param_bytes", R"("1 MiB")"}},
      {"tables", {"tables", "[@table@]"}},
      {"table",
       {"tables[0]", R"({"name": @t_name@, "num_embeddings": @t_rows@, "embedding_dim": @t_dim@,
         "feature_names": @t_features@, "data_type": @t_type@, "is_weighted": @t_weighted@})"}},
      {"t_name", {"tables[0].name", R"("t0")"}},
      {"t_rows", {"tables[0].num_embeddings", "1000"}},
      {"t_dim", {"tables[0].embedding_dim", "64"}},
      {"t_features", {"tables[0].feature_names", R"(["f0", @t_feature@])"}},
      {"t_feature", {"tables[0].feature_names[1]", R"("f1")"}},
      {"t_type", {"tables[0].data_type", R"("fp16")"}},
      {"t_weighted", {"tables[0].is_weighted", "false"}},
      {"constraints", {"constraints", R"({"t0": @c@})"}},
      {"c", {"constraints.t0", R"({"sharding_types": @c_st@, "compute_kernels": @c_ck@,
         "min_partition": @c_mp@, "pooling_factors": @c_pf@, "num_poolings": @c_np@, "batch_sizes": @c_bs@,
         "is_weighted": @c_w@, "cache_params": @c_cache@, "enforce_hbm": @c_hbm@,
         "stochastic_rounding": @c_sr@, "bounds_check_mode": @c_bc@, "feature_names": @c_fn@})"}},
      {"c_st", {"constraints.t0.sharding_types", R"(["table_wise", @c_st1@])"}},
      {"c_st1", {"constraints.t0.sharding_types[1]", R"("row_wise")"}},
      {"c_ck", {"constraints.t0.compute_kernels", R"(["fused"])"}},
      {"c_mp", {"constraints.t0.min_partition", "32"}},
      {"c_pf", {"constraints.t0.pooling_factors", "[4.0, @c_pf1@]"}},
      {"c_pf1", {"constraints.t0.pooling_factors[1]", "2"}},
      {"c_np", {"constraints.t0.num_poolings", "[1.0, 1.0]"}},
      {"c_bs", {"constraints.t0.batch_sizes", "[512, @c_bs1@]"}},
      {"c_bs1", {"constraints.t0.batch_sizes[1]", "256"}},
      {"c_w", {"constraints.t0.is_weighted", "false"}},
      {"c_cache", {"constraints.t0.cache_params", R"({"algorithm": @cp_alg@, "load_factor": @cp_lf@,
         "reserved_memory": @cp_rm@, "precision": @cp_prec@, "prefetch_pipeline": @cp_pp@})"}},
      {"cp_alg", {"constraints.t0.cache_params.algorithm", R"("lru")"}},
      {"cp_lf", {"constraints.t0.cache_params.load_factor", "0.2"}},
      {"cp_rm", {"constraints.t0.cache_params.reserved_memory", "1.5"}},
      {"cp_prec", {"constraints.t0.cache_params.precision", R"("fp16")"}},
      {"cp_pp", {"constraints.t0.cache_params.prefetch_pipeline", "false"}},
      {"c_hbm", {"constraints.t0.enforce_hbm", "false"}},
      {"c_sr", {"constraints.t0.stochastic_rounding", "true"}},
      {"c_bc", {"constraints.t0.bounds_check_mode", R"("warning")"}},
      {"c_fn", {"constraints.t0.feature_names", R"(["f0"])"}},
      {"sharder",
       {"sharder", R"({"fused_params": @fused@, "optimizer": @optimizer@, "qcomm": @qcomm@})"}},
      {"fused",
       {"sharder.fused_params", R"({"cache_load_factor": @f_clf@, "prefetch_pipeline": @f_pp@})"}},
      {"f_clf", {"sharder.fused_params.cache_load_factor", "0.3"}},
      {"f_pp", {"sharder.fused_params.prefetch_pipeline", "true"}},
      {"optimizer", {"sharder.optimizer", R"("adam")"}},
      {"qcomm", {"sharder.qcomm", R"({"forward": @q_fwd@, "backward": @q_bwd@})"}},
      {"q_fwd", {"sharder.qcomm.forward", R"("bf16")"}},
      {"q_bwd", {"sharder.qcomm.backward", R"("fp16")"}},
      {"planner", {"planner", R"({"proposers": @proposers@, "partitioner": @partitioner@,
         "storage_reservation": @reservation@, "is_inference": @inference@})"}},
      {"proposers", {"planner.proposers", R"(["greedy", @proposer@])"}},
      {"proposer",
       {"planner.proposers[1]",
        R"({"kind": @p_kind@, "use_depth": @p_depth@, "threshold": @p_thr@})"}},
      {"p_kind", {"planner.proposers[1].kind", R"("greedy")"}},
      {"p_depth", {"planner.proposers[1].use_depth", "false"}},
      {"p_thr", {"planner.proposers[1].threshold", "10"}},
      {"partitioner",
       {"planner.partitioner",
        R"({"kind": @pt_kind@, "sort_by": @pt_sort@, "balance_modules": @pt_bal@})"}},
      {"pt_kind", {"planner.partitioner.kind", R"("greedy_perf")"}},
      {"pt_sort", {"planner.partitioner.sort_by", R"("perf")"}},
      {"pt_bal", {"planner.partitioner.balance_modules", "true"}},
      {"reservation", {"planner.storage_reservation", R"({"kind": @r_kind@, "percentage": @r_pct@,
         "parameter_multiplier": @r_mult@, "dense_tensor_estimate": @r_dense@})"}},
      {"r_kind", {"planner.storage_reservation.kind", R"("heuristical")"}},
      {"r_pct", {"planner.storage_reservation.percentage", "0.1"}},
      {"r_mult", {"planner.storage_reservation.parameter_multiplier", "4"}},
      {"r_dense", {"planner.storage_reservation.dense_tensor_estimate", R"("2 MiB")"}},
      {"inference", {"planner.is_inference", "false"}},
  };
  return kSlots;
}

// The document with slot `replaced` (if any) set to `value`.
// The document with the slots named in `replaced` given their values.
std::string render_with(const std::map<std::string, std::string>& replaced) {
  static const std::map<std::string, std::string> kDefaults = [] {
    std::map<std::string, std::string> m;
    for (const auto& [name, slot] : slots()) m[name] = slot.value;
    return m;
  }();
  std::string text = "@root@";
  for (std::size_t pos = text.find('@'); pos != std::string::npos; pos = text.find('@', pos)) {
    const std::size_t end = text.find('@', pos + 1);
    const std::string name = text.substr(pos + 1, end - pos - 1);
    const auto r = replaced.find(name);
    const std::string& v = r != replaced.end() ? r->second : kDefaults.at(name);
    text.replace(pos, end - pos + 1, v);
    // Hostile values contain no '@', so the scan can resume at the insertion.
  }
  return text;
}

std::string render(const std::string& replaced = "", const std::string& value = "") {
  return replaced.empty() ? render_with({}) : render_with({{replaced, value}});
}

TEST(HostileInput, SlotDocumentLoadsAsWritten) {
  auto r = parse_scenario(render(), std::string(kOrigin));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->name, "hostile");
  EXPECT_EQ(r->tables[0].feature_names.size(), 2u);
  EXPECT_EQ(r->constraints[0]->pooling_factors->size(), 2u);
}

const std::vector<std::string>& hostile_values() {
  static const std::vector<std::string> kValues = {
      "null",
      "true",
      "false",
      "0",
      "-1",
      "1.5",
      "-0.0",
      "1e300",
      "-1e300",
      "4.9e-324",
      "99999999999999999999",
      "-9223372036854775809",
      "18446744073709551615",
      "9223372036854775807",
      R"("")",
      R"("x")",
      R"("\u0000")",
      R"("32 GiB")",
      R"("897 GiB/s")",
      R"("0.1 GiB")",
      R"("🙂")",
      "[]",
      "[null]",
      "[[]]",
      "[1, 2, 3]",
      "{}",
      R"({"x": 1})",
      R"({"kind": "greedy"})",
      "\"" + std::string(5000, 'y') + "\"",
      "[" + std::string(40, '[') + std::string(40, ']') + "]",
  };
  return kValues;
}

// The path an error message names ("tables[0].name" in "s.json: tables[0].name: ...").
std::string message_path(const std::string& msg) {
  const std::size_t start = kOrigin.size() + 2;
  const std::size_t end = msg.find(": ", start);
  return msg.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(HostileInput, WrongValuesInEverySlot) {
  int errors = 0;
  for (const auto& [name, slot] : slots()) {
    for (const std::string& value : hostile_values()) {
      SCOPED_TRACE("slot " + name + " = " + value.substr(0, 40));
      const std::string msg = outcome(render(name, value));
      if (msg.empty()) continue;
      ++errors;
      // The error is about this slot, something inside it, or the object
      // holding it (a list length rule); renaming the table instead orphans
      // its constraint.
      const std::string path = message_path(msg);
      const bool related = slot.path == "<root>" || slot.path.starts_with(path) ||
                           path.starts_with(slot.path) ||
                           (name == "t_name" && path == "constraints.t0");
      EXPECT_TRUE(related) << "slot path " << slot.path << ", message: " << msg;
    }
  }
  EXPECT_GT(errors, 500);
}

// The same values through check_scenario_file (shardlab validate), which
// reads on past each member that fails: nothing crashes (CI runs this under
// ASan and UBSan), it fails exactly when the loader does, and every problem
// is one printable line naming the file.
TEST(HostileInput, WrongValuesInEverySlotAreCheckedToo) {
  const fs::path file = fs::temp_directory_path() / "shardlab_hostile_check.json";
  const auto check_text = [&](const std::string& text) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    const ScenarioCheck check = check_scenario_file(file.string());
    const bool loads = parse_scenario(text, std::string(kOrigin)).is_ok();
    EXPECT_EQ(check.scenario.has_value(), loads);
    EXPECT_EQ(check.problems.empty(), loads);
    for (const Status& p : check.problems) {
      EXPECT_TRUE(p.message().starts_with(file.string() + ": ")) << p.message();
      EXPECT_TRUE(testing_support::is_printable_utf8_line(p.message())) << p.message();
    }
  };
  int checked = 0;
  for (const auto& [name, slot] : slots()) {
    for (const std::string& value : hostile_values()) {
      SCOPED_TRACE("slot " + name + " = " + value.substr(0, 40));
      check_text(render(name, value));
      ++checked;
    }
  }
  // Three slots at once, drawn with a fixed seed: members read on as absent
  // meet each other.
  std::vector<std::string> names;
  for (const auto& [name, slot] : slots()) names.push_back(name);
  std::mt19937 draw(7);
  for (int i = 0; i < 600; ++i) {
    std::map<std::string, std::string> replaced;
    for (int k = 0; k < 3; ++k) {
      replaced[names[draw() % names.size()]] = hostile_values()[draw() % hostile_values().size()];
    }
    std::string what;
    for (const auto& [n, v] : replaced) what += n + " = " + v.substr(0, 20) + "; ";
    SCOPED_TRACE(what);
    check_text(render_with(replaced));
    ++checked;
  }
  fs::remove(file);
  EXPECT_GT(checked, 1100);
}

TEST(HostileInput, EveryTruncationIsAnError) {
  const std::string full = render();
  for (std::size_t n = 0; n < full.size(); ++n) {
    SCOPED_TRACE(n);
    const std::string msg = expect_error(full.substr(0, n));
    EXPECT_NE(msg.find("malformed JSON at line "), std::string::npos) << msg;
  }
}

TEST(HostileInput, EverySingleByteCorruptionIsHandled) {
  const std::string full = render();
  const char kBytes[] = {'}', ']', '"', ',', ':', '\0', '\xff', '\x01', '9', 'e'};
  for (std::size_t i = 0; i < full.size(); ++i) {
    for (char b : kBytes) {
      std::string text = full;
      text[i] = b;
      (void)outcome(text);
    }
  }
}

TEST(HostileInput, MalformedJsonNamesLineAndColumn) {
  const std::string msg = expect_error("{\n  \"topology\": {\"world_size\": 2,}\n}");
  EXPECT_TRUE(msg.starts_with("s.json: malformed JSON at line 2, column ")) << msg;
  EXPECT_NE(msg.find("unexpected '}'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("json.exception"), std::string::npos) << msg;
}

TEST(HostileInput, HugeAndOverflowingNumbers) {
  const auto with_table = [](std::string_view rows) {
    return R"({"topology": {"world_size": 1}, "tables": [{"name": "t", "num_embeddings": )" +
           std::string(rows) + R"(, "embedding_dim": 4, "feature_names": ["f"]}]})";
  };
  EXPECT_ERROR_CONTAINS(with_table("1e400"), "malformed JSON at line 1, column ");
  EXPECT_ERROR_CONTAINS(with_table("1e400"), "number overflow parsing '1e400'");
  EXPECT_ERROR_CONTAINS(with_table("-1e400"), "number overflow");
  EXPECT_ERROR_CONTAINS(
      with_table("99999999999999999999"),
      "tables[0].num_embeddings: must be an integer in [1, 9007199254740992]: got 1e+20");
  EXPECT_ERROR_CONTAINS(with_table("18446744073709551615"),
                        "tables[0].num_embeddings: must be an integer in [1, 9007199254740992]: "
                        "got 18446744073709551615");
  EXPECT_ERROR_CONTAINS(with_table("9223372036854775808"),
                        "must be an integer in [1, 9007199254740992]: got 9223372036854775808");
  EXPECT_ERROR_CONTAINS(with_table("9.2233720368547758e18"),
                        "must be an integer in [1, 9007199254740992]");
  EXPECT_ERROR_CONTAINS(with_table("-9223372036854775809"),
                        "must be an integer in [1, 9007199254740992]");
  EXPECT_ERROR_CONTAINS(with_table(std::string(300, '9')),
                        "must be an integer in [1, 9007199254740992]: got 1e+300");
  EXPECT_ERROR_CONTAINS(with_table(std::string(400, '9')), "number overflow parsing '9999");
  EXPECT_ERROR_CONTAINS(with_table("1" + std::string(400, '0') + ".5"), "number overflow");

  // Row counts stay exact in float arithmetic up to 2^53; past that they are refused.
  EXPECT_ERROR_CONTAINS(with_table("9223372036854775807"),
                        "must be an integer in [1, 9007199254740992]: got 9223372036854775807");
  EXPECT_ERROR_CONTAINS(with_table("9007199254740993"),
                        "must be an integer in [1, 9007199254740992]: got 9007199254740993");
  // 2^53 rows of 4 fp32 columns is 2^57 bytes: inside the footprint limit.
  auto r = parse_scenario(with_table("9007199254740992"), "s.json");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->tables[0].num_embeddings, int64_t{1} << 53);
  r = parse_scenario(with_table("1.099511627776e12"), "s.json");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->tables[0].num_embeddings, int64_t{1} << 40);
  r = parse_scenario(with_table("1e9"), "s.json");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->tables[0].num_embeddings, 1000000000);

  const auto with_topology = [](std::string_view fields) {
    return R"({"topology": {"world_size": 1, )" + std::string(fields) +
           R"(}, "tables": [{"name": "t", "num_embeddings": 1, "embedding_dim": 4, "feature_names": ["f"]}]})";
  };
  EXPECT_ERROR_CONTAINS(with_topology(R"("hbm_cap": 1e19)"),
                        "topology.hbm_cap: must be a size: got 1e+19");
  EXPECT_ERROR_CONTAINS(with_topology(R"("hbm_cap": "9999999999 TiB")"),
                        "topology.hbm_cap: invalid size: too large");
  // Extreme rates and factors would make times overflow to infinity (or NaN
  // in sums of link rates): refused.
  EXPECT_ERROR_CONTAINS(with_topology(R"("hbm_mem_bw": 1e308)"),
                        "topology.hbm_mem_bw: bandwidth too large: got 1e+308");
  EXPECT_ERROR_CONTAINS(with_topology(R"("ddr_mem_bw": 4.9e-324)"),
                        "topology.ddr_mem_bw: bandwidth too small: got 5e-324");
  EXPECT_ERROR_CONTAINS(
      with_topology(R"("bwd_compute_multiplier": 1e308)"),
      "topology.bwd_compute_multiplier: must be a number in [0, 1000000]: got 1e+308");
  r = parse_scenario(
      with_topology(R"("hbm_mem_bw": 1e15, "ddr_mem_bw": 0.001, "bwd_compute_multiplier": 1e6)"),
      "s.json");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->topology.hbm_mem_bw, 1e15);
  EXPECT_ERROR_CONTAINS(with_topology(R"("hbm_mem_bw": "1e400 TB/s")"),
                        "topology.hbm_mem_bw: invalid bandwidth: too large");
  EXPECT_ERROR_CONTAINS(with_topology(R"("hbm_mem_bw": "1e-400 TB/s")"),
                        "topology.hbm_mem_bw: invalid bandwidth: too small");
}

TEST(HostileInput, NanAndInfinityLiteralsAreMalformed) {
  for (const char* literal :
       {"NaN", "nan", "Infinity", "-Infinity", "inf", "-inf", "+1", "01", "0x10", ".5", "1."}) {
    SCOPED_TRACE(literal);
    const std::string text =
        R"({"topology": {"world_size": 1, "hbm_mem_bw": )" + std::string(literal) +
        R"(}, "tables": [{"name": "t", "num_embeddings": 1, "embedding_dim": 4, "feature_names": ["f"]}]})";
    EXPECT_ERROR_CONTAINS(text, "s.json: malformed JSON at line 1, column ");
  }
}

TEST(HostileInput, EmptyDocumentsListsAndObjects) {
  EXPECT_ERROR_CONTAINS("", "s.json: malformed JSON at line 1, column 1: ");
  EXPECT_ERROR_CONTAINS("  \n\t ", "s.json: malformed JSON at line 2, column ");
  EXPECT_ERROR_CONTAINS("null", "s.json: <root>: must be a scenario object: got null");
  EXPECT_ERROR_CONTAINS("42", "s.json: <root>: must be a scenario object: got 42");
  EXPECT_ERROR_CONTAINS("\"{}\"", "s.json: <root>: must be a scenario object: got \"{}\"");
  EXPECT_ERROR_CONTAINS("{}", "s.json: topology: missing required key");
  EXPECT_ERROR_CONTAINS(render("tables", "[]"),
                        "s.json: tables: must be a non-empty list of tables: got []");
  EXPECT_ERROR_CONTAINS(render("t_features", "[]"),
                        "s.json: tables[0].feature_names: must be a non-empty list: got []");
  EXPECT_ERROR_CONTAINS(render("proposers", "[]"),
                        "s.json: planner.proposers: must be a non-empty list: got []");
  EXPECT_ERROR_CONTAINS(render("topology", "{}"),
                        "s.json: topology.world_size: missing required key");
  // Empty lists and objects that mean something.
  for (const auto& [slot, value] :
       std::vector<std::pair<std::string, std::string>>{{"constraints", "{}"},
                                                        {"c", "{}"},
                                                        {"c_st", "[]"},
                                                        {"c_ck", "[]"},
                                                        {"c_cache", "{}"},
                                                        {"c_fn", "[]"},
                                                        {"sharder", "{}"},
                                                        {"fused", "{}"},
                                                        {"qcomm", "{}"},
                                                        {"planner", "{}"},
                                                        {"module", "{}"}}) {
    SCOPED_TRACE(slot);
    EXPECT_EQ(outcome(render(slot, value)), "");
  }
  // Empty per-input lists must then all be empty.
  EXPECT_ERROR_CONTAINS(render("c_pf", "[]"),
                        "s.json: constraints.t0: per-input lists differ in length");
}

TEST(HostileInput, ByteOrderMarkIsAccepted) { EXPECT_EQ(outcome("\xEF\xBB\xBF" + render()), ""); }

TEST(HostileInput, TrailingContentAndCommentsAreMalformed) {
  EXPECT_ERROR_CONTAINS(render() + " x", "malformed JSON at line ");
  EXPECT_ERROR_CONTAINS(render() + render(), "malformed JSON at line ");
  EXPECT_ERROR_CONTAINS("// scenario\n" + render(), "malformed JSON at line 1, column 1");
}

TEST(HostileInput, DuplicateKeysAreErrors) {
  EXPECT_ERROR_CONTAINS(R"({"topology": {"world_size": 1}, "topology": {"world_size": 2}})",
                        "s.json: <root>: duplicate key: got \"topology\"");
  EXPECT_ERROR_CONTAINS(
      render(
          "table",
          R"({"name": "t0", "name": "t1", "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["f"]})"),
      "s.json: tables[0]: duplicate key: got \"name\"");
  EXPECT_ERROR_CONTAINS(render("constraints", R"({"t0": {}, "t0": {"min_partition": 4}})"),
                        "s.json: constraints: duplicate key: got \"t0\"");
  EXPECT_ERROR_CONTAINS(render("c_cache", R"({"load_factor": 0.1, "load_factor": 0.2})"),
                        "s.json: constraints.t0.cache_params: duplicate key: got \"load_factor\"");
}

TEST(HostileInput, DuplicateTableNames) {
  EXPECT_ERROR_CONTAINS(
      render(
          "tables",
          R"([@table@, {"name": "t1", "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["a"]},
                           {"name": "t0", "num_embeddings": 1, "embedding_dim": 1, "feature_names": ["b"]}])"),
      "s.json: tables[2].name: duplicate table name: got \"t0\", expected a name not already used "
      "by tables[0]");
}

TEST(HostileInput, DeepNestingIsRefusedNotRecursed) {
  const std::size_t kDeep = 100000;
  EXPECT_ERROR_CONTAINS(std::string(kDeep, '['), "nested deeper than 64 levels");
  EXPECT_ERROR_CONTAINS(std::string(kDeep, '[') + std::string(kDeep, ']'),
                        "nested deeper than 64 levels");
  // Objects nested in a field whose value has no keys to check ("name")...
  std::string objects = "{\"name\":";
  for (std::size_t i = 0; i < kDeep; ++i) objects += "{\"a\":";
  EXPECT_ERROR_CONTAINS(objects, "s.json: name.a.a.a");
  EXPECT_ERROR_CONTAINS(objects, "nested deeper than 64 levels");
  // ...and where keys are checked, the first unknown key stops the read.
  objects.clear();
  for (std::size_t i = 0; i < kDeep; ++i) objects += "{\"a\":";
  EXPECT_ERROR_CONTAINS(objects, "s.json: <root>: unknown key: got \"a\"");
  // Inside a real field, one level too many...
  EXPECT_ERROR_CONTAINS(render("name", std::string(64, '[') + std::string(64, ']')),
                        "s.json: name[0][0][0]");
  // ...and at the limit, a plain type error with a truncated value.
  const std::string msg = expect_error(render("name", std::string(63, '[') + std::string(63, ']')));
  EXPECT_TRUE(msg.starts_with("s.json: name: must be a non-empty string: got [[[[")) << msg;
}

TEST(HostileInput, GarbageBytes) {
  std::mt19937 rng(20240221);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 300; ++round) {
    std::string text(static_cast<std::size_t>(1 + round * 7), '\0');
    for (char& c : text) c = static_cast<char>(byte(rng));
    if (round % 3 == 0) text = "{\"name\": \"" + text;  // garbage inside a string
    (void)expect_error(text);
  }
  EXPECT_ERROR_CONTAINS(render("name", "\"\xff\xfe\""), "malformed JSON at line 1, column ");
  EXPECT_ERROR_CONTAINS(render("name", "\"a\nb\""), "malformed JSON at line ");
  EXPECT_ERROR_CONTAINS(std::string("\0\0\0\0", 4), "malformed JSON at line 1, column 1");
}

TEST(HostileInput, LongStringsAreCutInMessages) {
  const std::string huge(1 << 20, 'k');
  EXPECT_ERROR_CONTAINS(render("topology", R"({"world_size": 1, ")" + huge + R"(": 1})"),
                        "topology: unknown key: got \"kkkk");
  EXPECT_ERROR_CONTAINS(render("hbm_cap", "\"" + huge + "\""),
                        "topology.hbm_cap: invalid size: longer than 256 characters");
  EXPECT_ERROR_CONTAINS(render("constraints", R"({")" + huge + R"(": {}})"),
                        "constraint for a table that does not exist");
  EXPECT_ERROR_CONTAINS(
      render("t_dim", R"([")" + huge + R"("])"),
      "tables[0].embedding_dim: must be an integer in [1, 1073741824]: got [\"kkk");
}

// ---- Files. ----------------------------------------------------------------

class ScenarioFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shardlab_hostile_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& content) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(ScenarioFiles, MissingFileIsNotFoundNamingThePath) {
  const std::string path = (dir_ / "absent.json").string();
  auto r = load_scenario_file(path);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(r.status().message().starts_with(path + ": ")) << r.status().message();
}

TEST_F(ScenarioFiles, DirectoryIsAnIoError) {
  auto r = load_scenario_file(dir_.string());
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIo);
  EXPECT_NE(r.status().message().find(dir_.string()), std::string::npos);
  EXPECT_NE(r.status().message().find("is a directory"), std::string::npos) << r.status().message();
}

TEST_F(ScenarioFiles, EndlessDeviceIsRefusedNotRead) {
  if (!fs::exists("/dev/zero")) return;  // nothing to check on this system
  auto r = load_scenario_file("/dev/zero");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIo);
  EXPECT_EQ(r.status().message(), "/dev/zero: cannot read scenario: not a regular file");
}

TEST_F(ScenarioFiles, EmptyAndBinaryFilesAreInvalid) {
  auto r = load_scenario_file(write("empty.json", ""));
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("empty.json: malformed JSON at line 1, column 1"),
            std::string::npos)
      << r.status().message();

  std::string garbage(4096, '\0');
  std::mt19937 rng(7);
  for (char& c : garbage) c = static_cast<char>(rng() & 0xFF);
  r = load_scenario_file(write("garbage.bin", garbage));
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(testing_support::is_printable_utf8_line(r.status().message()))
      << r.status().message();
}

TEST_F(ScenarioFiles, NonUtf8PathIsPrintedSafely) {
  auto r = load_scenario_file((dir_ / "bad\xff\x01name.json").string());
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(testing_support::is_printable_utf8_line(r.status().message()))
      << r.status().message();
}

// ---- Scale. ----------------------------------------------------------------

std::string many_tables(std::size_t n, bool with_constraints, const std::string& last_name = "") {
  std::string text = R"({"topology": {"world_size": 64, "local_world_size": 8}, "tables": [)";
  text.reserve(n * 180);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) text += ',';
    const std::string name =
        (i + 1 == n && !last_name.empty()) ? last_name : "table_" + std::to_string(i);
    text += R"({"name": ")" + name + R"(", "num_embeddings": )" + std::to_string(1000 + i) +
            R"(, "embedding_dim": 64, "feature_names": ["f_)" + std::to_string(i) + R"("]})";
  }
  text += "]";
  if (with_constraints) {
    text += R"(, "constraints": {)";
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0) text += ',';
      text += R"("table_)" + std::to_string(i) +
              R"(": {"pooling_factors": [2.0], "sharding_types": ["row_wise"]})";
    }
    text += "}";
  }
  text += "}";
  return text;
}

// How fast these load is measured by benchmarks/loader_bench.cc; here only
// that they load whole.
TEST(HostileInputScale, HundredThousandTablesLoad) {
  const std::size_t kTables = 100000;
  const Result<planner::Scenario> r =
      parse_scenario(many_tables(kTables, /*with_constraints=*/false), "big.json");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->tables.size(), kTables);
  EXPECT_EQ(r->tables[kTables - 1].name, "table_99999");
  EXPECT_EQ(r->tables[kTables - 1].num_embeddings, 1000 + 99999);
  EXPECT_EQ(r->tables[kTables - 1].feature_names, std::vector<std::string>{"f_99999"});
}

// A constraint per table: every constraint reaches its table.
TEST(HostileInputScale, HundredThousandConstraintsLoad) {
  const std::size_t kTables = 100000;
  const Result<planner::Scenario> r =
      parse_scenario(many_tables(kTables, /*with_constraints=*/true), "big.json");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->constraints.size(), kTables);
  ASSERT_TRUE(r->constraints[12345].has_value());
  EXPECT_EQ(r->constraints[12345]->pooling_factors, (std::vector{2.0}));
  EXPECT_EQ(r->constraints[99999]->sharding_types, (std::vector{planner::ShardingType::kRowWise}));
}

TEST(HostileInputScale, DuplicateAmongHundredThousandTables) {
  EXPECT_ERROR_CONTAINS(many_tables(100000, false, "table_5"),
                        "s.json: tables[99999].name: duplicate table name: got \"table_5\", "
                        "expected a name not already used by tables[5]");
}

}  // namespace
}  // namespace shardlab::data
