// The NCCL collectives of the CUDA backend against their definitions
// (nccl_collectives.h), on 1 to 8 of the GPUs present, one process driving
// them all. Inputs are small integers, so every fp32 sum is exact and results
// compare with ==. Cases needing more GPUs than present are skipped.

#include "nccl_collectives.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "device_buffer.h"

namespace shardlab::kernels::cuda {
namespace {

// Per participant: buffers and a stream on its GPU.
struct Participants {
  std::unique_ptr<NcclGroup> group;
  std::vector<Stream> streams;
  std::vector<DeviceBuffer<float>> send, recv;

  explicit Participants(int n)
      : streams(static_cast<size_t>(n)),
        send(static_cast<size_t>(n)),
        recv(static_cast<size_t>(n)) {
    std::vector<int> devices(static_cast<size_t>(n));
    std::iota(devices.begin(), devices.end(), 0);
    auto g = NcclGroup::create_local(devices);
    EXPECT_TRUE(g) << g.status().message();
    if (g) group = std::move(*g);
    for (int i = 0; i < n; ++i) {
      DeviceGuard guard(i);
      EXPECT_TRUE(streams[static_cast<size_t>(i)].create().is_ok());
    }
  }

  // Uploads member i's input and sizes its output (at least one element each).
  void set(int i, const std::vector<float>& input, int64_t outputs) {
    DeviceGuard guard(i);
    auto& s = send[static_cast<size_t>(i)];
    auto& r = recv[static_cast<size_t>(i)];
    ASSERT_TRUE(s.reserve(std::max<int64_t>(static_cast<int64_t>(input.size()), 1)).is_ok());
    ASSERT_TRUE(r.reserve(std::max<int64_t>(outputs, 1)).is_ok());
    if (!input.empty()) {
      ASSERT_EQ(
          cudaMemcpy(s.data(), input.data(), input.size() * sizeof(float), cudaMemcpyHostToDevice),
          cudaSuccess);
    }
    ASSERT_EQ(cudaMemset(r.data(), 0xFF,
                         static_cast<size_t>(std::max<int64_t>(outputs, 1)) * sizeof(float)),
              cudaSuccess);
  }

  std::vector<LocalBuffers> buffers() const {
    std::vector<LocalBuffers> b;
    for (int l = 0; l < group->local_count(); ++l) {
      const auto i = static_cast<size_t>(group->rank_of(l));
      b.push_back(
          LocalBuffers{.send = send[i].data(), .recv = recv[i].data(), .stream = streams[i].get()});
    }
    return b;
  }

  std::vector<float> output(int i, int64_t count) {
    DeviceGuard guard(i);
    EXPECT_EQ(cudaStreamSynchronize(streams[static_cast<size_t>(i)].get()), cudaSuccess);
    std::vector<float> out(static_cast<size_t>(count));
    if (count > 0) {
      EXPECT_EQ(cudaMemcpy(out.data(), recv[static_cast<size_t>(i)].data(),
                           out.size() * sizeof(float), cudaMemcpyDeviceToHost),
                cudaSuccess);
    }
    return out;
  }
};

class NcclCollectivesTest : public ::testing::TestWithParam<int> {};

TEST_P(NcclCollectivesTest, AllToAllDeliversUnevenSegments) {
  const int n = GetParam();
  SHARDLAB_REQUIRE_GPUS(n);
  Participants p(n);
  ASSERT_TRUE(p.group);
  // Uneven, some empty: i sends j (i*3 + j*5) % 7 floats.
  std::vector<std::vector<int64_t>> counts(static_cast<size_t>(n),
                                           std::vector<int64_t>(static_cast<size_t>(n), 0));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) counts[i][j] = i == j ? 0 : (i * 3 + j * 5) % 7;
  }
  auto value = [](int from, int to, int k) {
    return static_cast<float>(from * 1000 + to * 100 + k);
  };
  for (int i = 0; i < n; ++i) {
    std::vector<float> input;
    int64_t outputs = 0;
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < counts[i][j]; ++k) input.push_back(value(i, j, k));
      outputs += counts[j][i];
    }
    p.set(i, input, outputs);
  }
  const Status st = nccl_all_to_all(*p.group, counts, p.buffers());
  ASSERT_TRUE(st) << st.message();
  for (int i = 0; i < n; ++i) {
    std::vector<float> expected;
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < counts[j][i]; ++k) expected.push_back(value(j, i, k));
    }
    EXPECT_EQ(p.output(i, static_cast<int64_t>(expected.size())), expected) << "member " << i;
  }
}

TEST_P(NcclCollectivesTest, ReduceScatterSumsEachMembersSegment) {
  const int n = GetParam();
  SHARDLAB_REQUIRE_GPUS(n);
  for (bool even : {true, false}) {
    Participants p(n);
    ASSERT_TRUE(p.group);
    std::vector<int64_t> counts(static_cast<size_t>(n));
    for (int m = 0; m < n; ++m)
      counts[m] = even ? 6 : (m * 7) % 5;  // uneven: member 0 gets nothing
    const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
    for (int i = 0; i < n; ++i) {
      std::vector<float> input(static_cast<size_t>(total));
      for (int64_t e = 0; e < total; ++e) input[e] = static_cast<float>((i + 1) * (e + 1));
      p.set(i, input, counts[i]);
    }
    const Status st = nccl_reduce_scatter(*p.group, counts, p.buffers());
    ASSERT_TRUE(st) << st.message();
    int64_t offset = 0;
    for (int m = 0; m < n; ++m) {
      std::vector<float> expected;
      for (int64_t e = offset; e < offset + counts[m]; ++e)
        expected.push_back(static_cast<float>((e + 1) * n * (n + 1) / 2));
      EXPECT_EQ(p.output(m, counts[m]), expected) << (even ? "even" : "uneven") << ", member " << m;
      offset += counts[m];
    }
  }
}

TEST_P(NcclCollectivesTest, AllGatherConcatenatesInMemberOrder) {
  const int n = GetParam();
  SHARDLAB_REQUIRE_GPUS(n);
  for (bool even : {true, false}) {
    Participants p(n);
    ASSERT_TRUE(p.group);
    std::vector<int64_t> counts(static_cast<size_t>(n));
    for (int m = 0; m < n; ++m) counts[m] = even ? 4 : (m * 5 + 1) % 4;
    const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t{0});
    std::vector<float> expected;
    for (int m = 0; m < n; ++m) {
      std::vector<float> input;
      for (int k = 0; k < counts[m]; ++k) input.push_back(static_cast<float>(m * 100 + k));
      expected.insert(expected.end(), input.begin(), input.end());
      p.set(m, input, total);
    }
    const Status st = nccl_all_gather(*p.group, counts, p.buffers());
    ASSERT_TRUE(st) << st.message();
    for (int m = 0; m < n; ++m)
      EXPECT_EQ(p.output(m, total), expected) << (even ? "even" : "uneven") << ", member " << m;
  }
}

TEST_P(NcclCollectivesTest, AllReduceLeavesTheSumEverywhere) {
  const int n = GetParam();
  SHARDLAB_REQUIRE_GPUS(n);
  Participants p(n);
  ASSERT_TRUE(p.group);
  constexpr int64_t kCount = 4099;  // not a multiple of any vector width
  for (int i = 0; i < n; ++i) {
    std::vector<float> input(kCount);
    for (int64_t e = 0; e < kCount; ++e) input[e] = static_cast<float>(i + e % 97);
    p.set(i, input, kCount);
  }
  const Status st = nccl_all_reduce(*p.group, kCount, p.buffers());
  ASSERT_TRUE(st) << st.message();
  std::vector<float> expected(kCount);
  for (int64_t e = 0; e < kCount; ++e)
    expected[e] = static_cast<float>(n * (n - 1) / 2 + n * (e % 97));
  for (int i = 0; i < n; ++i) EXPECT_EQ(p.output(i, kCount), expected) << "member " << i;
}

INSTANTIATE_TEST_SUITE_P(Members, NcclCollectivesTest, ::testing::Range(1, 9));

TEST(NcclGroupTest, SubgroupRunsAmongItsMembersOnly) {
  SHARDLAB_REQUIRE_GPUS(3);
  Participants p(3);
  ASSERT_TRUE(p.group);
  auto sub = p.group->subgroup({0, 2});
  ASSERT_TRUE(sub) << sub.status().message();
  ASSERT_TRUE(*sub);
  EXPECT_EQ((*sub)->size(), 2);
  EXPECT_EQ((*sub)->device_of(1), 2);
  p.set(0, {1.0f, 2.0f}, 2);
  p.set(2, {10.0f, 20.0f}, 2);
  const std::vector<LocalBuffers> buffers = {
      LocalBuffers{
          .send = p.send[0].data(), .recv = p.recv[0].data(), .stream = p.streams[0].get()},
      LocalBuffers{
          .send = p.send[2].data(), .recv = p.recv[2].data(), .stream = p.streams[2].get()}};
  const Status st = nccl_all_reduce(**sub, 2, buffers);
  ASSERT_TRUE(st) << st.message();
  EXPECT_EQ(p.output(0, 2), (std::vector<float>{11.0f, 22.0f}));
  EXPECT_EQ(p.output(2, 2), (std::vector<float>{11.0f, 22.0f}));
}

TEST(NcclGroupTest, MismatchedBufferCountIsAnError) {
  SHARDLAB_REQUIRE_GPU();
  Participants p(1);
  ASSERT_TRUE(p.group);
  const Status st = nccl_all_reduce(*p.group, 4, {});
  EXPECT_FALSE(st);
  EXPECT_NE(st.message().find("buffer sets"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace shardlab::kernels::cuda
