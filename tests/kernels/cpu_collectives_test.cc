// The in-memory collectives against their definitions, on 1 to 8 threads,
// with uneven and empty splits; and the mapping from a CollectiveSpec's bytes
// to element counts.

#include "shardlab/kernels/cpu_collectives.h"

#include <gtest/gtest.h>

#include <numeric>
#include <thread>
#include <vector>

#include "shardlab/kernels/id_stream.h"

namespace shardlab::kernels {
namespace {

float value(int member, int64_t i) {
  return draw_value(1, static_cast<uint64_t>(member), static_cast<uint64_t>(i), 1.0f);
}

// Runs fn(member) on n threads at once.
template <typename Fn>
void on_members(int n, Fn fn) {
  std::vector<std::jthread> threads;
  for (int m = 0; m < n; ++m) threads.emplace_back(fn, m);
}

// i sends j an uneven count, zero for some pairs.
int64_t split(int i, int j) { return (i * 7 + j * 3) % 5 == 0 ? 0 : (i + 1) * (j + 2) % 11; }

class CollectivesTest : public ::testing::TestWithParam<int> {};

TEST_P(CollectivesTest, AllToAllDeliversEverySegment) {
  const int n = GetParam();
  CpuGroup group(n);
  std::vector<std::vector<float>> recv(n);
  std::vector<std::vector<int64_t>> recv_counts(n);
  on_members(n, [&](int m) {
    std::vector<int64_t> send_counts(n), rc(n);
    for (int j = 0; j < n; ++j) send_counts[j] = split(m, j);
    for (int i = 0; i < n; ++i) rc[i] = split(i, m);
    std::vector<float> send(std::accumulate(send_counts.begin(), send_counts.end(), int64_t{0}));
    for (size_t k = 0; k < send.size(); ++k) send[k] = value(m, static_cast<int64_t>(k));
    std::vector<float> out(std::accumulate(rc.begin(), rc.end(), int64_t{0}), -7.0f);
    // Twice: buffers are reusable and a second call sees the same result.
    for (int rep = 0; rep < 2; ++rep) group.all_to_all(m, send, send_counts, out, rc);
    recv[m] = out;
    recv_counts[m] = rc;
  });
  for (int m = 0; m < n; ++m) {
    std::vector<float> want;
    for (int i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (int j = 0; j < m; ++j) offset += split(i, j);
      for (int64_t k = 0; k < split(i, m); ++k) want.push_back(value(i, offset + k));
    }
    EXPECT_EQ(recv[m], want) << "member " << m << " of " << n;
  }
}

TEST_P(CollectivesTest, ReduceScatterSumsEachMembersChunk) {
  const int n = GetParam();
  CpuGroup group(n);
  std::vector<int64_t> counts(n);
  for (int i = 0; i < n; ++i) counts[i] = i % 3 == 1 ? 0 : 5 + 3 * i;
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
  std::vector<std::vector<float>> recv(n);
  on_members(n, [&](int m) {
    std::vector<float> send(total);
    for (int64_t k = 0; k < total; ++k) send[k] = value(m, k);
    std::vector<float> out(counts[m]);
    group.reduce_scatter(m, send, counts, out);
    recv[m] = out;
  });
  int64_t offset = 0;
  for (int m = 0; m < n; ++m) {
    for (int64_t k = 0; k < counts[m]; ++k) {
      float sum = value(0, offset + k);
      for (int i = 1; i < n; ++i) sum = sum + value(i, offset + k);
      ASSERT_EQ(recv[m][k], sum) << "member " << m << " element " << k;
    }
    offset += counts[m];
  }
}

TEST_P(CollectivesTest, AllGatherConcatenatesInMemberOrder) {
  const int n = GetParam();
  CpuGroup group(n);
  std::vector<int64_t> counts(n);
  for (int i = 0; i < n; ++i) counts[i] = (i * 5) % 4;  // includes empty contributions
  std::vector<std::vector<float>> recv(n);
  on_members(n, [&](int m) {
    std::vector<float> send(counts[m]);
    for (int64_t k = 0; k < counts[m]; ++k) send[k] = value(m, k);
    std::vector<float> out(std::accumulate(counts.begin(), counts.end(), int64_t{0}));
    group.all_gather(m, send, counts, out);
    recv[m] = out;
  });
  std::vector<float> want;
  for (int i = 0; i < n; ++i) {
    for (int64_t k = 0; k < counts[i]; ++k) want.push_back(value(i, k));
  }
  for (int m = 0; m < n; ++m) EXPECT_EQ(recv[m], want) << m;
}

TEST_P(CollectivesTest, AllReduceLeavesTheSumEverywhere) {
  const int n = GetParam();
  CpuGroup group(n);
  constexpr int64_t kCount = 1001;  // not a multiple of the member count
  std::vector<std::vector<float>> data(n);
  on_members(n, [&](int m) {
    std::vector<float> d(kCount);
    for (int64_t k = 0; k < kCount; ++k) d[k] = value(m, k);
    group.all_reduce(m, d);
    data[m] = d;
  });
  for (int64_t k = 0; k < kCount; ++k) {
    float sum = value(0, k);
    for (int i = 1; i < n; ++i) sum = sum + value(i, k);
    for (int m = 0; m < n; ++m) ASSERT_EQ(data[m][k], sum) << "member " << m << " element " << k;
  }
}

// With the shared sum reserved larger than the data (as the replay reserves
// it for its largest all-reduce), each call still sums and writes exactly its
// own elements: nothing past the data is touched.
TEST_P(CollectivesTest, AllReduceWithAReservedSumWritesOnlyItsData) {
  const int n = GetParam();
  CpuGroup group(n);
  group.reserve_all_reduce(4096);
  constexpr int64_t kCount = 7;
  std::vector<std::vector<float>> data(n);
  on_members(n, [&](int m) {
    std::vector<float> d(kCount + 3, -1.0f);  // 3 guard values after the data
    for (int64_t k = 0; k < kCount; ++k) d[k] = value(m, k);
    group.all_reduce(m, std::span<float>(d.data(), kCount));
    data[m] = d;
  });
  for (int m = 0; m < n; ++m) {
    for (int64_t k = 0; k < kCount; ++k) {
      float sum = value(0, k);
      for (int i = 1; i < n; ++i) sum = sum + value(i, k);
      ASSERT_EQ(data[m][k], sum) << "member " << m << " element " << k;
    }
    for (int64_t k = kCount; k < kCount + 3; ++k) EXPECT_EQ(data[m][k], -1.0f) << m;
  }
}

INSTANTIATE_TEST_SUITE_P(Members, CollectivesTest, ::testing::Range(1, 9));

TEST(CollectiveBuffersTest, AllToAllCountsFollowTheSpecsBytes) {
  sim::CollectiveSpec spec;
  spec.kind = sim::CollectiveKind::kAllToAll;
  spec.members = {0, 1, 2};
  spec.from_bytes = {8, 0, 2};
  spec.to_bytes = {0, 4, 10};
  spec.to_total = 14;
  const CollectiveBuffers b1 = collective_buffers(spec, 1);
  // 1 sends j: (0 + to[j]) bytes; receives from i: from[i] + to[1] = from[i] + 4.
  EXPECT_EQ(b1.send_counts, (std::vector<int64_t>{0, 0, 3}));
  EXPECT_EQ(b1.recv_counts, (std::vector<int64_t>{3, 0, 2}));
  EXPECT_EQ(b1.send_elements, 3);
  EXPECT_EQ(b1.recv_elements, 5);
  // Every member's receive counts are the others' send counts.
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(collective_buffers(spec, i).send_counts[j],
                collective_buffers(spec, j).recv_counts[i]);
    }
  }
}

TEST(CollectiveBuffersTest, RestrictionKeepsTheSelectedMembersSizes) {
  sim::CollectiveSpec spec;
  spec.kind = sim::CollectiveKind::kReduceScatter;
  spec.members = {0, 1, 2, 3};
  spec.chunks = {4, 8, 12, 16};
  const sim::CollectiveSpec r = restrict_collective(spec, {1, 3});
  EXPECT_EQ(r.members, (std::vector<int>{1, 3}));
  EXPECT_EQ(r.chunks, (std::vector<double>{8, 16}));
  const CollectiveBuffers b = collective_buffers(r, 1);
  EXPECT_EQ(b.send_elements, 6);
  EXPECT_EQ(b.recv_elements, 4);
  EXPECT_EQ(collective_floats(5), 2);
  EXPECT_EQ(collective_floats(0), 0);
  // A rank's place among the restricted members, or none.
  EXPECT_EQ(member_index(r, 3), 1);
  EXPECT_EQ(member_index(r, 1), 0);
  EXPECT_EQ(member_index(r, 2), -1);
}

}  // namespace
}  // namespace shardlab::kernels
