// The NCCL-like layer: sweeps that reach the preset's asymptotic bus
// bandwidth at large sizes and are latency-bound below the knee, the
// algorithm and protocol NCCL's rule picks, and calibrated communication
// reaching the flows.
#include "shardlab/sim/collective_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "shardlab/data/scenario_loader.h"

namespace shardlab::sim {
namespace {

using planner::CollAlgorithm;
using planner::CollProtocol;

constexpr double kGBps = 1e9 / 1e3;  // GB/s in bytes/ms
constexpr double kUs = 1e-3;         // µs in ms

planner::Scenario cluster(const std::string& gpu, int ranks, int local) {
  const std::string text = R"({"name": "c", "topology": {"world_size": )" + std::to_string(ranks) +
                           R"(, "local_world_size": )" + std::to_string(local) + R"(, "gpu": ")" +
                           gpu +
                           R"("}, "tables": [{"name": "t", "num_embeddings": 10, "embedding_dim": 8,
                                              "feature_names": ["f"]}]})";
  auto s = data::parse_scenario(text, "test.json");
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  return *s;
}

std::vector<SweepPoint> sweep(const planner::Scenario& s, CollectiveKind kind,
                              std::vector<double> sizes) {
  auto r = collective_sweep(s, kind, sizes);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r.is_ok() ? *r : std::vector<SweepPoint>{};
}

void expect_rel(double actual, double expected, double rel) {
  EXPECT_NEAR(actual, expected, rel * std::abs(expected)) << "expected " << expected;
}

TEST(CollectiveModel, ReduceScatterReachesTheRingAsymptoteAndIsLatencyBoundWhenSmall) {
  // H100 SXM, 8 GPUs on one host: NVLink 450 GB/s per direction, ring 0.822.
  const planner::Scenario s = cluster("h100-sxm", 8, 8);
  const std::vector<SweepPoint> p =
      sweep(s, CollectiveKind::kReduceScatter, {8, 1024, 65536, 8.0 * (1 << 30)});
  ASSERT_EQ(p.size(), 4u);
  // Small: NCCL's ring LL, 6.6 µs + 7 steps x 0.6 µs; the bytes add < 0.01 µs.
  EXPECT_EQ(p[0].protocol, CollProtocol::kLl);
  expect_rel(p[0].time_ms, (6.6 + 7 * 0.6) * kUs, 1e-3);
  EXPECT_LT(p[1].time_ms, 1.05 * p[0].time_ms);  // flat below the knee
  EXPECT_LT(p[0].busbw, 0.001 * 0.822 * 450 * kGBps);
  // Large: Simple, 8.4 µs + 7 x (3.4 µs + S/8 at 0.822 x 450 GB/s).
  EXPECT_EQ(p[3].protocol, CollProtocol::kSimple);
  const double size = 8.0 * (1 << 30);
  expect_rel(p[3].time_ms, 8.4 * kUs + 7 * (3.4 * kUs + size / 8 / (0.822 * 450 * kGBps)), 1e-9);
  expect_rel(p[3].busbw, 0.822 * 450 * kGBps, 0.002);
  // Bus bandwidth grows with size.
  for (size_t i = 1; i < p.size(); ++i) EXPECT_GT(p[i].busbw, p[i - 1].busbw);
}

TEST(CollectiveModel, AllToAllAndAllGatherAsymptotes) {
  const planner::Scenario a100 = cluster("a100-sxm4-80gb", 8, 8);
  const double size = 4.0 * (1 << 30);
  // Simple: 8.4 µs, then 7 pairwise steps of 3.4 µs and S/8 at 0.85 x 300 GB/s
  // (nccl-tests: 254.69 GB/s at 1 GB).
  const SweepPoint a2a = sweep(a100, CollectiveKind::kAllToAll, {size}).at(0);
  EXPECT_EQ(a2a.protocol, CollProtocol::kSimple);
  expect_rel(a2a.time_ms, 8.4 * kUs + 7 * (3.4 * kUs + size / 8 / (0.85 * 300 * kGBps)), 1e-9);
  expect_rel(a2a.busbw, 0.85 * 300 * kGBps, 0.005);
  const SweepPoint ag = sweep(a100, CollectiveKind::kAllGather, {size}).at(0);
  expect_rel(ag.busbw, 0.85 * 300 * kGBps, 0.005);
  // An 8-byte all-to-all: 1-byte messages, LL, 7 steps of 0.6 µs after 6.6 µs.
  const SweepPoint tiny = sweep(a100, CollectiveKind::kAllToAll, {8}).at(0);
  EXPECT_EQ(tiny.protocol, CollProtocol::kLl);
  expect_rel(tiny.time_ms, (6.6 + 7 * 0.6) * kUs, 1e-3);
}

TEST(CollectiveModel, AllReducePicksNvlsOnHopperAndRingOnAmpere) {
  const double size = 16.0 * (1 << 30);
  // H100: NVLS at large sizes, each direction carries 9/8 of the buffer at
  // 0.6875 x 450 GB/s: algbw 275 GB/s, busbw 481 GB/s (nccl-tests #212).
  const SweepPoint h = sweep(cluster("h100-sxm", 8, 8), CollectiveKind::kAllReduce, {size}).at(0);
  EXPECT_EQ(h.algorithm, CollAlgorithm::kNvls);
  expect_rel(h.algbw, 0.6875 * 450 * kGBps * 8 / 9, 1e-3);
  // A100: no NVLS; ring at 0.77 x 300 GB/s (nccl-tests: 231 GB/s at 1 GB).
  const SweepPoint a =
      sweep(cluster("a100-sxm4-80gb", 8, 8), CollectiveKind::kAllReduce, {size}).at(0);
  EXPECT_EQ(a.algorithm, CollAlgorithm::kRing);
  expect_rel(a.busbw, 0.77 * 300 * kGBps, 0.002);
  // Small all-reduces are ring/LL on both: 6.6 + 14 x 0.6 µs.
  const SweepPoint small = sweep(cluster("h100-sxm", 8, 8), CollectiveKind::kAllReduce, {8}).at(0);
  EXPECT_EQ(small.algorithm, CollAlgorithm::kRing);
  EXPECT_EQ(small.protocol, CollProtocol::kLl);
  expect_rel(small.time_ms, (6.6 + 14 * 0.6) * kUs, 1e-3);
}

TEST(CollectiveModel, WithoutAPresetTheFlowsArePlain) {
  auto s = data::parse_scenario(R"({"topology": {"world_size": 4},
      "tables": [{"name": "t", "num_embeddings": 10, "embedding_dim": 8, "feature_names": ["f"]}]})",
                                "plain.json");
  ASSERT_TRUE(s.is_ok());
  const CollectiveModel model(*s, nullptr);
  EXPECT_FALSE(model.active());
  // Ring reduce-scatter at line rate (TorchRec's 600 GiB/s) with two 2.5 µs
  // link latencies per step.
  const double size = 1 << 30;
  const SweepPoint p = sweep(*s, CollectiveKind::kReduceScatter, {size}).at(0);
  expect_rel(p.time_ms, 3 * (size / 4 / planner::kDefaultIntraHostBw + 0.005), 1e-12);
}

TEST(CollectiveModel, CalibratedCommunicationReachesTheFlows) {
  auto s = data::parse_scenario(R"({"topology": {"world_size": 4},
      "tables": [{"name": "t", "num_embeddings": 10, "embedding_dim": 8, "feature_names": ["f"]}]})",
                                "plain.json");
  ASSERT_TRUE(s.is_ok());
  planner::CostCalibration c;
  c.intra_host.bandwidth_bytes_per_ms = 1e7;
  c.intra_host.latency_ms = 0.02;
  // Each rank sends 3/4 of the buffer: latency + bytes sent / bandwidth.
  const double size = 1 << 24;
  auto p = collective_sweep(*s, CollectiveKind::kAllGather, {size}, &c);
  ASSERT_TRUE(p.is_ok());
  expect_rel(p->at(0).time_ms, 0.02 + 0.75 * size / 1e7, 1e-12);
}

}  // namespace
}  // namespace shardlab::sim
