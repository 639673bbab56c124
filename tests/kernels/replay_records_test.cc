// Replay records in transit (replay_records.h): a byte round trip keeps every
// field, malformed bytes are refused, and records in any order become a
// result in the one order both backends return.

#include "replay_records.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "backend_common.h"
#include "replay_test_helpers.h"

namespace shardlab::kernels {
namespace {

TimingSummary timing(double base, int samples) {
  return TimingSummary{
      .median_ms = base, .p90_ms = base * 2, .min_ms = base / 2, .samples = samples};
}

bool same(const ReplayRecord& a, const ReplayRecord& b) {
  return a.kind == b.kind && a.rank == b.rank && a.index == b.index && a.members == b.members &&
         a.forward == b.forward && a.inter_host == b.inter_host && a.bytes == b.bytes &&
         a.wrong_elements == b.wrong_elements && a.median_ms == b.median_ms &&
         a.p90_ms == b.p90_ms && a.min_ms == b.min_ms && a.samples == b.samples;
}

TEST(ReplayRecordsTest, BytesRoundTripEveryField) {
  const std::vector<ReplayRecord> records = {
      lookup_record(3, 7, true, 1.5e9, 12, timing(0.25, 20)),
      lookup_record(3, 7, false, 2.5e9, 0, timing(0.5, 20)),
      collective_record(1, 4, 8, true, 123456789.0, timing(1.75, 19)),
      phase_record(0, kNumReplayPhases - 1, timing(3.0, 20)),
  };
  const std::vector<std::byte> bytes = encode_records(records);
  ASSERT_EQ(bytes.size(), records.size() * 72);
  Result<std::vector<ReplayRecord>> back = decode_records(bytes);
  ASSERT_TRUE(back) << back.status().message();
  ASSERT_EQ(back->size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) EXPECT_TRUE(same((*back)[i], records[i])) << i;
  EXPECT_EQ((*back)[2].kind, RecordKind::kCollective);
  EXPECT_EQ((*back)[2].members, 8);
  EXPECT_EQ((*back)[2].inter_host, 1);
  EXPECT_EQ((*back)[0].forward, 1);
  EXPECT_EQ((*back)[1].forward, 0);
  Result<std::vector<ReplayRecord>> none = decode_records({});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(ReplayRecordsTest, MalformedBytesAreRefused) {
  std::vector<std::byte> bytes =
      encode_records(std::vector<ReplayRecord>{phase_record(0, 0, timing(1, 1))});
  bytes.pop_back();
  Result<std::vector<ReplayRecord>> cut = decode_records(bytes);
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.status().code(), StatusCode::kInternal);
  EXPECT_NE(cut.status().message().find("not a multiple of 72"), std::string::npos)
      << cut.status().message();
  ReplayRecord odd = phase_record(0, 0, timing(1, 1));
  odd.kind = static_cast<RecordKind>(9);
  Result<std::vector<ReplayRecord>> unknown =
      decode_records(encode_records(std::vector<ReplayRecord>{odd}));
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.status().message().find("unknown kind 9"), std::string::npos)
      << unknown.status().message();
}

TEST(ReplayRecordsTest, RecordsInAnyOrderAssembleInTheResultsOrder) {
  const ReplayWorkload w = testing::tiny_workload(1000);
  ASSERT_EQ(w.world_size, 2);
  ASSERT_FALSE(w.collectives.empty());
  std::vector<ReplayRecord> records;
  for (int rank = 1; rank >= 0; --rank) {
    const int shards = static_cast<int>(w.ranks[static_cast<size_t>(rank)].shards.size());
    for (int s = 0; s < shards; ++s) {
      records.push_back(lookup_record(rank, s, false, 2.0, 1, timing(0.2, 3)));
      records.push_back(lookup_record(rank, s, true, 1.0, 0, timing(0.1, 3)));
    }
    records.push_back(collective_record(rank, 0, 2, false, 64.0, timing(0.3, 3)));
    for (int p = 0; p < kNumReplayPhases; ++p)
      records.push_back(phase_record(rank, p, timing(0.4, 3)));
  }
  std::shuffle(records.begin(), records.end(), std::mt19937(7));
  ReplayResult result;
  ASSERT_TRUE(assemble_records(w, records, result));
  // Lookups: by rank, forward before backward, shards in plan order; then collectives by index,
  // members by rank.
  size_t i = 0;
  for (int rank = 0; rank < 2; ++rank) {
    const auto& shards = w.ranks[static_cast<size_t>(rank)].shards;
    for (bool forward : {true, false}) {
      for (size_t s = 0; s < shards.size(); ++s, ++i) {
        ASSERT_LT(i, result.measurements.size());
        const Measurement& m = result.measurements[i];
        EXPECT_EQ(m.rank, rank);
        EXPECT_EQ(m.phase, forward ? sim::Phase::kFwdCompute : sim::Phase::kBwdCompute);
        EXPECT_EQ(m.table, shards[s].table);
        EXPECT_EQ(m.bytes, forward ? 1.0 : 2.0);
        EXPECT_EQ(m.wrong_elements, forward ? 0 : 1);
        EXPECT_EQ(m.collective, -1);
      }
    }
  }
  for (int rank = 0; rank < 2; ++rank, ++i) {
    ASSERT_LT(i, result.measurements.size());
    const Measurement& m = result.measurements[i];
    EXPECT_EQ(m.rank, rank);
    EXPECT_EQ(m.collective, 0);
    EXPECT_EQ(m.phase, w.collectives[0].phase);
    EXPECT_EQ(m.collective_kind, w.collectives[0].kind);
    EXPECT_EQ(m.members, 2);
    EXPECT_EQ(m.bytes, 64.0);
    EXPECT_EQ(m.model_bytes, 64.0);
    EXPECT_EQ(m.timing.samples, 3);
  }
  EXPECT_EQ(i, result.measurements.size());
  ASSERT_EQ(result.phase_timings.size(), static_cast<size_t>(2 * kNumReplayPhases));
  for (size_t k = 0; k < result.phase_timings.size(); ++k) {
    EXPECT_EQ(result.phase_timings[k].rank, static_cast<int>(k) / kNumReplayPhases);
    EXPECT_EQ(result.phase_timings[k].phase, kReplayPhases[k % kNumReplayPhases]);
  }
}

TEST(ReplayRecordsTest, RecordsTheWorkloadLacksAreRefused) {
  const ReplayWorkload w = testing::tiny_workload(1000);
  ASSERT_EQ(w.world_size, 2);
  for (const ReplayRecord& bad :
       {lookup_record(2, 0, true, 0, 0, timing(1, 1)),
        lookup_record(0, 999, true, 0, 0, timing(1, 1)),
        collective_record(0, static_cast<int>(w.collectives.size()), 2, false, 0, timing(1, 1)),
        phase_record(1, kNumReplayPhases, timing(1, 1))}) {
    ReplayResult result;
    const Status st = assemble_records(w, std::vector<ReplayRecord>{bad}, result);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), StatusCode::kInternal);
    EXPECT_NE(st.message().find("which the workload does not have"), std::string::npos)
        << st.message();
  }
}

}  // namespace
}  // namespace shardlab::kernels
