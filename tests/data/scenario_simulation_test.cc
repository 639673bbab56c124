// The simulator's sections of a scenario (docs/scenario-format.md "For the
// simulator"): topology.fabric and workload. Defaults, accepted forms, and each
// validation rule with its message.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "loader_test_helpers.h"
#include "shardlab/data/host_profiles.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::data {
namespace {

using planner::Scenario;

using testing::error_of;
using testing::kOrigin;
using testing::load_ok;

// A 6-rank scenario on hosts of 4 GPUs (two hosts, the second holding two).
// `fabric` is spliced into topology (a leading comma when non-empty), `extra`
// as further top-level members.
std::string scenario_text(std::string_view fabric, std::string_view extra = "",
                          std::string_view sizes = R"("world_size": 6, "local_world_size": 4)") {
  std::string s = "{\"topology\": {";
  s += sizes;
  s += fabric;
  s +=
      R"(}, "tables": [{"name": "t0", "num_embeddings": 100, "embedding_dim": 8, "feature_names": ["f0"]}])";
  s += extra;
  s += "}";
  return s;
}

TEST(ScenarioFabric, AbsentMeansDefaults) {
  const Scenario s = load_ok(scenario_text(""));
  const planner::FabricSpec defaults;
  EXPECT_EQ(s.fabric.nics_per_host, 0);
  EXPECT_FALSE(s.fabric.nic_bw.has_value());
  EXPECT_EQ(s.fabric.oversubscription, defaults.oversubscription);
  EXPECT_EQ(s.fabric.intra_host_latency_ms, defaults.intra_host_latency_ms);
  EXPECT_EQ(s.fabric.inter_host_latency_ms, defaults.inter_host_latency_ms);
  EXPECT_TRUE(s.fabric.hosts.empty());
  EXPECT_TRUE(s.workload.dense_fwd_ms.empty());
  EXPECT_TRUE(s.workload.dense_bwd_ms.empty());
  // An empty object is the defaults too.
  const Scenario e = load_ok(scenario_text(R"(, "fabric": {})", R"(, "workload": {})"));
  EXPECT_EQ(e.fabric.nics_per_host, 0);
  EXPECT_TRUE(e.fabric.hosts.empty());
  EXPECT_TRUE(e.workload.dense_fwd_ms.empty());
}

TEST(ScenarioFabric, EveryField) {
  const Scenario s = load_ok(scenario_text(R"(, "fabric": {
      "nics_per_host": 2, "nic_bw": "50 GB/s", "oversubscription": 1.5,
      "intra_host_latency_ms": 0.001, "inter_host_latency_ms": 0,
      "hosts": [{"intra_host_bw": "300 GB/s", "nic_bw": 25000000, "nics": 4}, {}]})"));
  EXPECT_EQ(s.fabric.nics_per_host, 2);
  EXPECT_EQ(s.fabric.nic_bw, 50000000.0);
  EXPECT_EQ(s.fabric.oversubscription, 1.5);
  EXPECT_EQ(s.fabric.intra_host_latency_ms, 0.001);
  EXPECT_EQ(s.fabric.inter_host_latency_ms, 0.0);
  ASSERT_EQ(s.fabric.hosts.size(), 2u);
  EXPECT_EQ(s.fabric.hosts[0].intra_host_bw, 300000000.0);
  EXPECT_EQ(s.fabric.hosts[0].nic_bw, 25000000.0);
  EXPECT_EQ(s.fabric.hosts[0].nics, 4);
  EXPECT_FALSE(s.fabric.hosts[1].intra_host_bw.has_value());
  EXPECT_FALSE(s.fabric.hosts[1].nic_bw.has_value());
  EXPECT_FALSE(s.fabric.hosts[1].nics.has_value());
  // The planner's topology is untouched by the fabric.
  EXPECT_EQ(s.topology.world_size, 6);
  EXPECT_EQ(s.topology.inter_host_bw, planner::kDefaultInterHostBw);
}

TEST(ScenarioFabric, HostCountFollowsTheTopology) {
  // local_world_size absent: one host.
  EXPECT_EQ(
      load_ok(scenario_text(R"(, "fabric": {"hosts": [{"nics": 1}]})", "", R"("world_size": 6)"))
          .fabric.hosts.size(),
      1u);
  // 8 ranks on hosts of 4: exactly two.
  EXPECT_EQ(load_ok(scenario_text(R"(, "fabric": {"hosts": [{}, {}]})", "",
                                  R"("world_size": 8, "local_world_size": 4)"))
                .fabric.hosts.size(),
            2u);
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"hosts": [{}]})"),
               "s.json: topology.fabric.hosts: must have one entry per host (2), not 1: got [{}], "
               "expected a "
               "list of 2 host objects, ceil(world_size / local_world_size)");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "fabric": {"hosts": [{}, {}, {}]})"),
                        "topology.fabric.hosts: must have one entry per host (2), not 3");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "fabric": {"hosts": []})"),
                        "topology.fabric.hosts: must have one entry per host (2), not 0");
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"hosts": {"0": {}}})"),
               "s.json: topology.fabric.hosts: must be a list of host objects: got {\"0\":{}}, "
               "expected a list "
               "of 2 host objects, ceil(world_size / local_world_size)");
}

TEST(ScenarioFabric, Validation) {
  EXPECT_ERROR(
      scenario_text(R"(, "fabric": {"nics": 2})"),
      "s.json: topology.fabric: unknown key: got \"nics\", expected one of nics_per_host, nic_bw, "
      "oversubscription, intra_host_latency_ms, inter_host_latency_ms, hosts, nvlink_domain_size, "
      "sharp, rail_optimized, rail_group_size, pxn");
  EXPECT_ERROR(scenario_text(R"(, "fabric": [])"),
               "s.json: topology.fabric: must be a fabric object: got []");
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"nics_per_host": 0})"),
               "s.json: topology.fabric.nics_per_host: must be an integer in [1, 65536]: got 0");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "fabric": {"nics_per_host": 1.5})"),
                        "topology.fabric.nics_per_host: must be an integer in [1, 65536]: got 1.5");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "fabric": {"nics_per_host": null})"),
      "topology.fabric.nics_per_host: must be an integer in [1, 65536]: got null");
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"nic_bw": 0})"),
               "s.json: topology.fabric.nic_bw: bandwidth must be > 0: got 0, expected bytes/ms in "
               "[0.001, 1e+15] "
               "(1 B/s to 1 EB/s) or a string such as \"897 GiB/s\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "fabric": {"nic_bw": "50 GB"})"),
                        "topology.fabric.nic_bw: invalid bandwidth: ");
  EXPECT_ERROR(
      scenario_text(R"(, "fabric": {"oversubscription": 0.5})"),
      "s.json: topology.fabric.oversubscription: must be a number in [1, 1000000]: got 0.5");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "fabric": {"oversubscription": "2"})"),
      "topology.fabric.oversubscription: must be a number in [1, 1000000]: got \"2\"");
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"intra_host_latency_ms": -0.001})"),
               "s.json: topology.fabric.intra_host_latency_ms: must be a number in [0, "
               "1000000000]: got -0.001");
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"inter_host_latency_ms": true})"),
               "s.json: topology.fabric.inter_host_latency_ms: must be a number in [0, "
               "1000000000]: got true");
  // JSON has no infinity, but an overflowing literal is refused by the parser with a position.
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "fabric": {"inter_host_latency_ms": 1e400})"), "line 1");
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"hosts": [{}, {"nics": 0}]})"),
               "s.json: topology.fabric.hosts[1].nics: must be an integer in [1, 65536]: got 0");
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"hosts": [{"intra_host_bw": -1}, {}]})"),
               "s.json: topology.fabric.hosts[0].intra_host_bw: bandwidth must be > 0: got -1, "
               "expected bytes/ms "
               "in [0.001, 1e+15] (1 B/s to 1 EB/s) or a string such as \"897 GiB/s\"");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "fabric": {"hosts": [{}, {"nic_bw": "fast"}]})"),
                        "topology.fabric.hosts[1].nic_bw: invalid bandwidth");
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"hosts": [{}, {"gpus": 2}]})"),
               "s.json: topology.fabric.hosts[1]: unknown key: got \"gpus\", expected one of "
               "intra_host_bw, nic_bw, "
               "nics");
  EXPECT_ERROR(scenario_text(R"(, "fabric": {"hosts": [1, {}]})"),
               "s.json: topology.fabric.hosts[0]: must be a host object: got 1");
}

// System presets (docs/presets.md "Systems"): topology.system with nodes.
std::string system_text(std::string_view topology) {
  return std::string(R"({"topology": )") + std::string(topology) +
         R"(, "tables": [{"name": "t0", "num_embeddings": 100, "embedding_dim": 8, "feature_names": ["f0"]}]})";
}

TEST(ScenarioSystem, FillsTheTopologyAndTheFabric) {
  const Scenario s = load_ok(system_text(R"({"system": "dgx-h100", "nodes": 16})"));
  EXPECT_EQ(s.topology.world_size, 128);
  EXPECT_EQ(s.topology.local_world_size, 8);
  ASSERT_TRUE(s.gpu.has_value());
  EXPECT_EQ(s.gpu->name, "h100-sxm");
  EXPECT_EQ(s.fabric.system, "dgx-h100");
  EXPECT_EQ(s.fabric.nics_per_host, 8);
  ASSERT_TRUE(s.fabric.nic_bw.has_value());
  EXPECT_DOUBLE_EQ(*s.fabric.nic_bw, 50e9 / 1e3);
  EXPECT_EQ(s.fabric.nvlink_domain_size, 0);  // one host
  EXPECT_FALSE(s.fabric.sharp);
  // nodes defaults to 1.
  EXPECT_EQ(load_ok(system_text(R"({"system": "dgx-b200"})")).topology.world_size, 8);
}

TEST(ScenarioSystem, ExplicitFieldsWin) {
  const Scenario s = load_ok(system_text(
      R"({"system": "dgx-h100", "nodes": 2, "world_size": 16, "local_world_size": 4,
          "gpu": "h200-sxm", "fabric": {"nic_bw": "25 GB/s", "sharp": true, "nics_per_host": 2}})"));
  EXPECT_EQ(s.topology.world_size, 16);
  EXPECT_EQ(s.topology.local_world_size, 4);
  EXPECT_EQ(s.gpu->name, "h200-sxm");
  EXPECT_DOUBLE_EQ(*s.fabric.nic_bw, 25e9 / 1e3);
  EXPECT_EQ(s.fabric.nics_per_host, 2);
  EXPECT_TRUE(s.fabric.sharp);
  // world_size alone (no nodes) sets the size.
  EXPECT_EQ(load_ok(system_text(R"({"system": "dgx-h100", "world_size": 12})")).topology.world_size,
            12);
}

TEST(ScenarioSystem, Validation) {
  EXPECT_ERROR_CONTAINS(system_text(R"({"system": "dgx-h9000"})"),
                        "topology.system: unknown system preset: got \"dgx-h9000\", expected one "
                        "of dgx-a100, dgx-h100");
  EXPECT_ERROR_CONTAINS(system_text(R"({"world_size": 8, "nodes": 2})"),
                        "topology.nodes: counts the nodes of a system preset: got 2");
  EXPECT_ERROR_CONTAINS(system_text(R"({"system": "dgx-h100", "nodes": 2, "world_size": 8})"),
                        "topology.world_size: differs from nodes x the dgx-h100's 8 GPUs (16)");
  EXPECT_ERROR_CONTAINS(system_text(R"({"system": "dgx-h100", "nodes": 0})"),
                        "topology.nodes: must be an integer in [1, 8192]: got 0");
}

TEST(ScenarioFabric, NvlinkDomains) {
  const Scenario s = load_ok(scenario_text(R"(, "fabric": {"nvlink_domain_size": 8})", "",
                                           R"("world_size": 16, "local_world_size": 4)"));
  EXPECT_EQ(s.fabric.nvlink_domain_size, 8);
  // A domain of one host is the default.
  EXPECT_EQ(load_ok(scenario_text(R"(, "fabric": {"nvlink_domain_size": 4})", "",
                                  R"("world_size": 16, "local_world_size": 4)"))
                .fabric.nvlink_domain_size,
            0);
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "fabric": {"nvlink_domain_size": 6})", "",
                                      R"("world_size": 16, "local_world_size": 4)"),
                        "topology.fabric.nvlink_domain_size: an NVLink domain of 6 GPUs must be "
                        "whole hosts of local_world_size (4) that divide world_size (16)");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "fabric": {"nvlink_domain_size": 8})", "",
                                      R"("world_size": 12, "local_world_size": 4)"),
                        "divide world_size (12)");
  EXPECT_ERROR_CONTAINS(
      scenario_text(R"(, "fabric": {"nvlink_domain_size": 8, "hosts": [{}, {}, {}, {}]})", "",
                    R"("world_size": 16, "local_world_size": 4)"),
      "topology.fabric.hosts: per-host overrides cannot be used inside an NVLink domain");
  EXPECT_ERROR_CONTAINS(scenario_text(R"(, "fabric": {"sharp": 1})"),
                        "topology.fabric.sharp: must be");
}

// A pod (topology.pod_size) is the simulator's NVLink domain unless the
// fabric names one, or the graph cannot hold it.
TEST(ScenarioFabric, APodIsAnNvlinkDomain) {
  const std::string sizes = R"("world_size": 16, "local_world_size": 4, "pod_size": 2)";
  EXPECT_EQ(load_ok(scenario_text("", "", sizes)).fabric.nvlink_domain_size, 8);
  EXPECT_EQ(load_ok(scenario_text(R"(, "fabric": {"nvlink_domain_size": 16})", "", sizes))
                .fabric.nvlink_domain_size,
            16);
  // A pod of 12 ranks does not divide 16: the domains stay hosts (the
  // planner's groups still are pods).
  EXPECT_EQ(load_ok(scenario_text("", "", R"("world_size": 16, "local_world_size": 4,
                                             "pod_size": 3)"))
                .fabric.nvlink_domain_size,
            0);
  EXPECT_EQ(load_ok(scenario_text(R"(, "fabric": {"hosts": [{}, {}, {}, {}]})", "", sizes))
                .fabric.nvlink_domain_size,
            0);
  EXPECT_ERROR_CONTAINS(scenario_text("", "", R"("world_size": 16, "local_world_size": 4,
                                                "pod_size": 17)"),
                        "topology.pod_size: pod_size=17 cannot be greater than world_size=16");
}

TEST(ScenarioWorkload, NumbersAndPerRankLists) {
  Scenario s =
      load_ok(scenario_text("", R"(, "workload": {"dense_fwd_ms": 0.5, "dense_bwd_ms": 0})"));
  EXPECT_EQ(s.workload.dense_fwd_ms, std::vector<double>{0.5});
  EXPECT_EQ(s.workload.dense_bwd_ms, std::vector<double>{0.0});
  s = load_ok(scenario_text("", R"(, "workload": {"dense_bwd_ms": [1, 1.5, 2, 2.5, 3, 3.5]})"));
  EXPECT_TRUE(s.workload.dense_fwd_ms.empty());
  EXPECT_EQ(s.workload.dense_bwd_ms, (std::vector<double>{1, 1.5, 2, 2.5, 3, 3.5}));
  // A one-rank scenario: a one-entry list is as good as a number.
  s = load_ok(scenario_text("", R"(, "workload": {"dense_fwd_ms": [0.25]})", R"("world_size": 1)"));
  EXPECT_EQ(s.workload.dense_fwd_ms, std::vector<double>{0.25});
}

TEST(ScenarioWorkload, Validation) {
  EXPECT_ERROR(
      scenario_text("", R"(, "workload": {"dense_ms": 1})"),
      "s.json: workload: unknown key: got \"dense_ms\", expected one of dense_fwd_ms, "
      "dense_bwd_ms, dense, "
      "iteration_overhead_ms, ddp_bucket_cap, ddp_first_bucket_cap, framework, cuda_graphs, "
      "host_profile");
  EXPECT_ERROR(scenario_text("", R"(, "workload": 1)"),
               "s.json: workload: must be a workload object: got 1");
  EXPECT_ERROR(scenario_text("", R"(, "workload": {"dense_fwd_ms": -1})"),
               "s.json: workload.dense_fwd_ms: must be a number in [0, 1000000000]: got -1");
  EXPECT_ERROR(scenario_text("", R"(, "workload": {"dense_fwd_ms": "1 ms"})"),
               "s.json: workload.dense_fwd_ms: must be a time in ms: got \"1 ms\", expected a "
               "number of ms >= 0, "
               "or a list of 6 (one per rank)");
  EXPECT_ERROR(scenario_text("", R"(, "workload": {"dense_bwd_ms": [1, 2]})"),
               "s.json: workload.dense_bwd_ms: must have one entry per rank (world_size 6), not 2: "
               "got [1,2], "
               "expected a number of ms >= 0, or a list of 6 (one per rank)");
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"(, "workload": {"dense_bwd_ms": []})"),
      "workload.dense_bwd_ms: must have one entry per rank (world_size 6), not 0");
  EXPECT_ERROR(scenario_text("", R"(, "workload": {"dense_bwd_ms": [1, 2, 3, 4, -5, 6]})"),
               "s.json: workload.dense_bwd_ms[4]: must be a number in [0, 1000000000]: got -5");
  EXPECT_ERROR(scenario_text("", R"(, "workload": {"dense_bwd_ms": [1, 2, 3, 4, null, 6]})"),
               "s.json: workload.dense_bwd_ms[4]: must be a number in [0, 1000000000]: got null");
  EXPECT_ERROR(scenario_text("", R"(, "workload": {"dense_fwd_ms": null})"),
               "s.json: workload.dense_fwd_ms: must be a time in ms: got null, expected a number "
               "of ms >= 0, or a "
               "list of 6 (one per rank)");
}

// The bundled scenarios and the unknown-key message still list the old keys
// first, so existing files and messages are unchanged.
TEST(ScenarioWorkload, UnknownTopLevelKeyListsWorkload) {
  EXPECT_ERROR_CONTAINS(
      scenario_text("", R"(, "work_load": {})"),
      "<root>: unknown key: got \"work_load\", expected one of name, topology, batch_size, module, "
      "tables, constraints, sharder, planner, workload");
}

// host_profiles.h: a malformed profiles document and an unknown profile are
// kInvalidArgument naming the origin and the path.
TEST(HostProfiles, RefusalsAreInvalidArgument) {
  const Result<HostProfileCatalog> bad = parse_host_profiles("{\"profiles\": 3}", "mine.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("mine.json"), std::string::npos) << bad.status().message();
  ASSERT_TRUE(builtin_host_profiles().is_ok()) << builtin_host_profiles().status().message();
  const auto unknown = parse_scenario(
      R"({"topology": {"world_size": 2}, "tables": [{"name": "t", "num_embeddings": 10,
          "embedding_dim": 8, "feature_names": ["f"]}],
          "workload": {"host_profile": "no-such-profile"}})",
      "s.json");
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("workload.host_profile"), std::string::npos)
      << unknown.status().message();
}

}  // namespace
}  // namespace shardlab::data
