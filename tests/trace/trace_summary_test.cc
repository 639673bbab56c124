// shardlab::trace's summaries: hand-made traces with hand-computed answers,
// the errors of trace_summary.h, and every real trace of the shared trace
// folder (../shared/traces, or $SHARDLAB_SHARED_DIR/traces) against an
// independent reading: the whole document parsed (nlohmann's DOM, not the
// library's stream) and each field computed from its definition in
// docs/traces.md with plain loops.
#include "shardlab/trace/trace_summary.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../shared_dir.h"
#include "trace_files.h"

namespace shardlab::trace {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

using TraceTest = testing::TraceFilesTest;

// Two steps on rank 1 of 2. Step 7 is [1000, 2000) µs, step 8 [2000, 3500).
// Launches: correlation 1 at 1100 (step 7), 2 at 1900 (step 7), 3 at 2100
// (step 8), 4 at 3600 (no step). GPU events:
//   c1 kernel ncclDevKernel_AllToAll at [1200, 1500)
//   c2 kernel sm90_xmma_gemm at [1400, 1700) (overlaps c1: busy 1200..1700)
//   c2 is also a memcpy's correlation? no: c3 a gpu_memcpy at [2600, 2700)
//   c3 kernel split_embedding_codegen_forward at [2100, 2400)
//   c4 kernel at [3700, 3800): launched after every step
// Step 7: 2 kernels, busy 500 µs, nccl 0.3 ms, gemm 0.3 ms.
// Step 8: 1 kernel + 1 memcpy, busy 300 + 100 µs, tbe 0.3 ms.
constexpr const char* kTwoSteps = R"({
  "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2},
  "deviceProperties": [{"id": 0, "name": "X"}],
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#8", "ts": 2000, "dur": 1500},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "ts": 1000, "dur": 1000},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#7", "ts": 1, "dur": 99999},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1100, "dur": 5,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1900, "dur": 5,
     "args": {"correlation": 2, "External id": 9}},
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "ts": 2100.0, "dur": 5,
     "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 3600, "dur": 5,
     "args": {"correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllToAll", "ts": 1200, "dur": 300,
     "args": {"correlation": 1, "grid": [1, 2, 3], "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_f32", "ts": 1400, "dur": 300,
     "args": {"correlation": 2}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 2600, "dur": 100,
     "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "split_embedding_codegen_forward", "ts": 2100,
     "dur": 300, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "late", "ts": 3700, "dur": 100,
     "args": {"correlation": 4}},
    {"ph": "s", "cat": "ac2g", "name": "flow", "ts": 1100, "id": 1}
  ],
  "traceName": "x"
})";

TEST_F(TraceTest, HandComputedTwoSteps) {
  for (const std::string& path : {write("r1.json", kTwoSteps), write_gz("r1.json.gz", kTwoSteps)}) {
    SCOPED_TRACE(path);
    Result<RankTrace> r = summarize_trace_file(path);
    ASSERT_TRUE(r.is_ok()) << r.status().message();
    EXPECT_EQ(r->rank, 1);
    EXPECT_EQ(r->world_size, 2);
    ASSERT_EQ(r->steps.size(), 2u);
    const StepSummary& a = r->steps[0];
    EXPECT_EQ(a.step, 7);
    EXPECT_DOUBLE_EQ(a.step_ms, 1.0);
    EXPECT_EQ(a.kernels, 2);
    EXPECT_EQ(a.gpu_events, 2);
    EXPECT_DOUBLE_EQ(a.gpu_busy_ms, 0.5);
    EXPECT_DOUBLE_EQ(a.nccl_ms, 0.3);
    EXPECT_DOUBLE_EQ(a.gemm_ms, 0.3);
    EXPECT_DOUBLE_EQ(a.tbe_ms, 0.0);
    const StepSummary& b = r->steps[1];
    EXPECT_EQ(b.step, 8);
    EXPECT_DOUBLE_EQ(b.step_ms, 1.5);
    EXPECT_EQ(b.kernels, 1);
    EXPECT_EQ(b.gpu_events, 2);
    EXPECT_DOUBLE_EQ(b.gpu_busy_ms, 0.4);
    EXPECT_DOUBLE_EQ(b.tbe_ms, 0.3);
    EXPECT_DOUBLE_EQ(b.nccl_ms, 0.0);
  }
}

// Phases (docs/traces.md "Phases"): step 7's NCCL kernel is launched in the
// forward (output_dist, 0.3 ms), its GEMM in the backward (dense_bwd,
// 0.3 ms); step 8's two events in sparse_data_dist (input_dist, 0.4 ms, even
// though one is an embedding kernel); a kernel launched outside every stage
// is "other".
// kTwoSteps with TorchRec's stage annotations, an "other" kernel launched
// at 2500 (elementwise [2600, 2650)), and `more` events.
std::string with_stages(const std::string& more = "") {
  std::string text = kTwoSteps;
  const std::string events = R"("traceEvents": [)";
  text.insert(text.find(events) + events.size(), R"(
    {"ph": "X", "cat": "user_annotation", "name": "## forward ##", "ts": 1050, "dur": 500},
    {"ph": "X", "cat": "user_annotation", "name": "## backward ##", "ts": 1800, "dur": 150},
    {"ph": "X", "cat": "cpu_op", "name": "## sparse_data_dist ##", "ts": 2050, "dur": 100},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 2500, "dur": 5,
     "args": {"correlation": 5}},
    {"ph": "X", "cat": "kernel", "name": "elementwise", "ts": 2600, "dur": 50,
     "args": {"correlation": 5}},)" + more);
  return text;
}

TEST_F(TraceTest, PhasesFollowTheStageAnnotations) {
  Result<RankTrace> r = summarize_trace_file(write("phases.json", with_stages()));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->steps.size(), 2u);
  const auto ms = [&](int step, sim::Phase p) {
    return r->steps[static_cast<size_t>(step)].phase_ms[static_cast<size_t>(p)];
  };
  EXPECT_DOUBLE_EQ(ms(0, sim::Phase::kOutputDist), 0.3);
  EXPECT_DOUBLE_EQ(ms(0, sim::Phase::kDenseBwd), 0.3);
  EXPECT_DOUBLE_EQ(r->steps[0].other_ms, 0.0);
  EXPECT_DOUBLE_EQ(ms(1, sim::Phase::kInputDist), 0.4);
  EXPECT_DOUBLE_EQ(ms(1, sim::Phase::kFwdCompute), 0.0);
  EXPECT_DOUBLE_EQ(r->steps[1].other_ms, 0.05);
  const Json j = Json::parse(summary_to_json(TraceSummary{.ranks = {*r}}));
  EXPECT_DOUBLE_EQ(j["ranks"][0]["steps"][1]["phases_ms"]["input_dist"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(j["ranks"][0]["steps"][1]["phases_ms"]["other"].get<double>(), 0.05);
}

// Spans (MeasuredSpan's rules), on the trace above with two more kernels
// launched in the forward: relu [1600, 1800) and relu2 [1800, 1850), both
// dense_fwd. Step 7's compute lane: the GEMM [1400, 1700) (dense_bwd), relu
// starting inside it with another phase shows from 1700, relu2 touching it
// extends it: [1700, 1850) of two events. Its comm lane: the all-to-all
// [1200, 1500). Step 8's compute lane: the lookup [2100, 2400), then the copy
// [2600, 2700) with the "other" elementwise kernel [2600, 2650) inside it.
// Without TraceOptions::spans nothing is kept.
TEST_F(TraceTest, SpansLayOutEachLaneWithoutOverlap) {
  const std::string text = with_stages(R"(
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1060, "dur": 5,
     "args": {"correlation": 6}},
    {"ph": "X", "cat": "kernel", "name": "relu", "ts": 1600, "dur": 200,
     "args": {"correlation": 6}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1070, "dur": 5,
     "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "relu2", "ts": 1800, "dur": 50,
     "args": {"correlation": 7}},)");
  const std::string path = write("spans.json", text);
  Result<RankTrace> bare = summarize_trace_file(path);
  ASSERT_TRUE(bare.is_ok()) << bare.status().message();
  for (const StepSummary& s : bare->steps) EXPECT_TRUE(s.spans.empty());
  Result<RankTrace> r = summarize_trace_file(path, TraceOptions{.spans = true});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->steps.size(), 2u);
  using sim::Phase;
  using sim::Stream;
  struct Want {
    std::optional<Phase> phase;
    Stream stream;
    double start, end;
    int events;
  };
  const auto expect_spans = [](const StepSummary& s, const std::vector<Want>& want) {
    ASSERT_EQ(s.spans.size(), want.size()) << "step " << s.step;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const MeasuredSpan& got = s.spans[i];
      SCOPED_TRACE("step " + std::to_string(s.step) + " span " + std::to_string(i));
      EXPECT_EQ(got.phase, want[i].phase);
      EXPECT_EQ(got.stream, want[i].stream);
      EXPECT_DOUBLE_EQ(got.start_ms, want[i].start);
      EXPECT_DOUBLE_EQ(got.end_ms, want[i].end);
      EXPECT_EQ(got.events, want[i].events);
    }
  };
  // From each step's start (1 and 2 ms).
  expect_spans(r->steps[0], {{Phase::kDenseBwd, Stream::kCompute, 0.4, 0.7, 1},
                             {Phase::kDenseFwd, Stream::kCompute, 0.7, 0.85, 2},
                             {Phase::kOutputDist, Stream::kComm, 0.2, 0.5, 1}});
  expect_spans(r->steps[1], {{Phase::kInputDist, Stream::kCompute, 0.1, 0.4, 1},
                             {Phase::kInputDist, Stream::kCompute, 0.6, 0.7, 2}});
  // Everything else is as without spans.
  EXPECT_DOUBLE_EQ(r->steps[0].gpu_busy_ms, bare->steps[0].gpu_busy_ms);
  EXPECT_EQ(r->steps[1].gpu_events, bare->steps[1].gpu_events);
}

// The host side (docs/traces.md "Host side"), one step [0, 1000) µs on
// thread 5. GPU timeline and launches (call start):
//   c1 [100, 300) launched at 10, c2 [300, 400) at 50: one busy stretch;
//   c3 [600, 700) launched at 500, after the GPU went idle at 400;
//   c4 [800, 900) launched at 550, before the GPU went idle at 700;
//   c5, a device-to-host copy [920, 930), its call at 910 for 30 µs;
//   c6, a host-to-device copy [2000, 2010), its call at 950.
// Idle: [0, 100) [400, 600) [700, 800) [900, 920) [930, 1000) = 490 µs.
// Waiting for the host: all but [700, 800) (c4 was launched before it) =
// 390 µs. Blocking: the stream synchronize on thread 5 (90 µs) and the
// device-to-host copy (30 µs); not the other thread's device synchronize
// nor the host-to-device copy.
constexpr const char* kHostSide = R"json({
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "ts": 0, "dur": 1000, "tid": 5},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 10, "dur": 5, "tid": 5,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 50, "dur": 5, "tid": 5,
     "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 500, "dur": 5, "tid": 5,
     "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 550, "dur": 5, "tid": 5,
     "args": {"correlation": 4}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "ts": 700, "dur": 90,
     "tid": 5, "args": {"correlation": 7}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "ts": 720, "dur": 60,
     "tid": 9, "args": {"correlation": 8}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "ts": 910, "dur": 30, "tid": 5,
     "args": {"correlation": 5}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "ts": 950, "dur": 5, "tid": 5,
     "args": {"correlation": 6}},
    {"ph": "X", "cat": "kernel", "name": "a", "ts": 100, "dur": 200, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "b", "ts": 300, "dur": 100, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "c", "ts": 600, "dur": 100, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "d", "ts": 800, "dur": 100, "args": {"correlation": 4}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "ts": 920,
     "dur": 10, "args": {"correlation": 5}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "ts": 2000,
     "dur": 10, "args": {"correlation": 6}}
  ]
})json";

TEST_F(TraceTest, HostSideHandComputed) {
  Result<RankTrace> r = summarize_trace_file(write("host.json", kHostSide));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->steps.size(), 1u);
  const StepSummary& s = r->steps[0];
  EXPECT_DOUBLE_EQ(s.gpu_idle_ms, 0.49);
  EXPECT_DOUBLE_EQ(s.host_wait_ms, 0.39);
  EXPECT_EQ(s.syncs, 2);
  EXPECT_DOUBLE_EQ(s.sync_ms, 0.12);
  // 39% of the step: partly host-bound (sim::host_verdict's rule).
  EXPECT_DOUBLE_EQ(host_wait(*r).share, 0.39);
  EXPECT_EQ(host_wait(*r).verdict, "partly host-bound");
  TraceSummary summary;
  summary.ranks.push_back(*r);
  EXPECT_NE(summary_text(summary).find("the GPU waited for the host 39% of the step (median): "
                                       "partly host-bound"),
            std::string::npos)
      << summary_text(summary);

  // A kernel that also starts at 600 but was launched at 60, before the GPU
  // went idle at 400: the GPU was not waiting for the host then.
  std::string text = kHostSide;
  const std::string events = R"("traceEvents": [)";
  text.insert(text.find(events) + events.size(), R"(
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 60, "dur": 5, "tid": 5,
     "args": {"correlation": 11}},
    {"ph": "X", "cat": "kernel", "name": "e", "ts": 600, "dur": 50, "args": {"correlation": 11}},)");
  Result<RankTrace> both = summarize_trace_file(write("host2.json", text));
  ASSERT_TRUE(both.is_ok()) << both.status().message();
  EXPECT_DOUBLE_EQ(both->steps.at(0).gpu_idle_ms, 0.49);
  EXPECT_DOUBLE_EQ(both->steps.at(0).host_wait_ms, 0.19);
}

// Across ranks (docs/traces.md "Across ranks"): two ranks of a world of 2,
// rank 1's clock 1,000 µs ahead. Step 1's NCCL kernels, on rank 0's clock:
//   A (AllReduce): rank 0 [100, 300), rank 1 [200, 300) -> rank 1 last;
//                  rank 0 waits 100 µs, both transfer 100 µs;
//   B (SendRecv):  rank 0 [500, 600), rank 1 [350, 600) -> rank 0 last;
//                  rank 1 waits 150 µs, both transfer 100 µs.
// Offsets: the median end difference, 1,000 µs. Rank 0 held the others back
// (0.15 ms of waiting against rank 1's 0.1).
std::string rank_file(int rank, double shift) {
  const auto at = [&](double t) { return std::to_string(t + shift); };
  const double a0 = rank == 0 ? 100 : 200, b0 = rank == 0 ? 500 : 350;
  return R"({"distributedInfo": {"rank": )" + std::to_string(rank) + R"(, "world_size": 2},
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": )" +
         at(0) +
         R"(, "dur": 1000},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": )" +
         at(10) +
         R"(, "dur": 5, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": )" +
         at(20) +
         R"(, "dur": 5, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce", "ts": )" +
         at(a0) + R"(, "dur": )" + std::to_string(300 - a0) + R"(, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "ts": )" +
         at(b0) + R"(, "dur": )" + std::to_string(600 - b0) + R"(, "args": {"correlation": 2}}
  ]})";
}

TEST_F(TraceTest, AcrossRanksHandComputed) {
  write("rank-0.json", rank_file(0, 0));
  write("rank-1.json", rank_file(1, 1000));
  Result<TraceSummary> s = summarize_traces({dir_.string()});
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  ASSERT_TRUE(s->alignment.aligned) << s->alignment.why;
  EXPECT_EQ(s->alignment.why, "");
  ASSERT_EQ(s->ranks.size(), 2u);
  EXPECT_DOUBLE_EQ(s->ranks[0].clock_offset_ms.value(), 0.0);
  EXPECT_DOUBLE_EQ(s->ranks[1].clock_offset_ms.value(), 1.0);
  const StepSummary& r0 = s->ranks[0].steps.at(0);
  const StepSummary& r1 = s->ranks[1].steps.at(0);
  EXPECT_NEAR(r0.nccl_wait_ms.value(), 0.1, 1e-9);
  EXPECT_NEAR(r0.nccl_transfer_ms.value(), 0.2, 1e-9);
  EXPECT_NEAR(r1.nccl_wait_ms.value(), 0.15, 1e-9);
  EXPECT_NEAR(r1.nccl_transfer_ms.value(), 0.2, 1e-9);
  EXPECT_EQ(r0.last_to_arrive, 1);
  EXPECT_EQ(r1.last_to_arrive, 1);
  ASSERT_EQ(s->alignment.held_back.size(), 1u);
  const HeldBack& h = s->alignment.held_back[0];
  EXPECT_EQ(h.step, 1);
  EXPECT_EQ(h.rank, 0);
  EXPECT_EQ(h.last_of, 1);
  EXPECT_EQ(h.collectives, 2);
  EXPECT_NEAR(h.others_waited_ms, 0.15, 1e-9);
  EXPECT_NE(summary_text(*s).find("step 1: rank 0 held the others back (last to arrive at 1 of 2 "
                                  "collectives; the others waited 0.150 ms for it)"),
            std::string::npos)
      << summary_text(*s);
  const Json j = Json::parse(summary_to_json(*s));
  EXPECT_EQ(j["alignment"]["aligned"], true);
  EXPECT_DOUBLE_EQ(j["ranks"][1]["clock_offset_ms"].get<double>(), 1.0);
  EXPECT_NEAR(j["ranks"][1]["steps"][0]["nccl_wait_ms"].get<double>(), 0.15, 1e-9);
}

// What cannot be aligned is said, and the fields stay unknown: one rank of
// two; two ranks whose collectives differ.
TEST_F(TraceTest, AcrossRanksSaysWhatItCannotAlign) {
  const std::string r0 = write("rank-0.json", rank_file(0, 0));
  Result<TraceSummary> one = summarize_traces({r0});
  ASSERT_TRUE(one.is_ok()) << one.status().message();
  EXPECT_FALSE(one->alignment.aligned);
  EXPECT_EQ(one->alignment.why, "one rank: no other rank to align with");
  EXPECT_FALSE(one->ranks[0].clock_offset_ms.has_value());
  EXPECT_FALSE(one->ranks[0].steps.at(0).nccl_wait_ms.has_value());
  EXPECT_TRUE(Json::parse(summary_to_json(*one))["ranks"][0]["steps"][0]["nccl_wait_ms"].is_null());

  std::string other = rank_file(1, 1000);
  other.replace(other.find("ncclDevKernel_SendRecv"), 22, "ncclDevKernel_AllGather");
  const std::string r1 = write("rank-1.json", other);
  Result<TraceSummary> differ = summarize_traces({r0, r1});
  ASSERT_TRUE(differ.is_ok()) << differ.status().message();
  EXPECT_FALSE(differ->alignment.aligned);
  EXPECT_EQ(differ->alignment.why,
            "no step has the same NCCL kernels, in the same order, on every rank");
  EXPECT_NE(summary_text(*differ).find("across ranks: no step has the same NCCL kernels"),
            std::string::npos);

  std::string third = rank_file(1, 0);
  third.replace(third.find("\"world_size\": 2"), 15, "\"world_size\": 3");
  Result<TraceSummary> partial = summarize_traces({r0, write("rank-1b.json", third)});
  ASSERT_TRUE(partial.is_ok()) << partial.status().message();
  EXPECT_FALSE(partial->alignment.aligned);
  EXPECT_NE(partial->alignment.why.find("waiting for peers is known only with every rank"),
            std::string::npos)
      << partial->alignment.why;
}

TEST_F(TraceTest, JsonHasTheDocumentedFields) {
  Result<TraceSummary> s = summarize_traces({write("r1.json", kTwoSteps)});
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  const Json j = Json::parse(summary_to_json(*s));
  ASSERT_EQ(j["ranks"].size(), 1u);
  const Json& r = j["ranks"][0];
  EXPECT_EQ(r["rank"], 1);
  EXPECT_EQ(r["world_size"], 2);
  EXPECT_EQ(r["file"], (dir_ / "r1.json").string());
  ASSERT_EQ(r["steps"].size(), 2u);
  for (const char* key : {"step", "step_ms", "kernels", "gpu_busy_ms", "nccl_ms", "tbe_ms",
                          "gemm_ms", "gpu_idle_ms", "host_wait_ms", "syncs", "sync_ms"}) {
    EXPECT_TRUE(r["steps"][0].contains(key)) << key;
  }
  EXPECT_TRUE(r.contains("host_wait_share"));
  EXPECT_TRUE(r.contains("host_verdict"));
  EXPECT_EQ(r["steps"][1]["step"], 8);
  EXPECT_DOUBLE_EQ(r["steps"][1]["gpu_busy_ms"].get<double>(), 0.4);
  const std::string text = summary_text(*s);
  EXPECT_NE(text.find("rank 1 of 2"), std::string::npos) << text;
  EXPECT_NE(text.find("2 steps"), std::string::npos) << text;
}

TEST_F(TraceTest, ErrorsNameTheFileAndWhatIsWrong) {
  // Truncated, plain and compressed: the byte offset of the end.
  const std::string text = kTwoSteps;
  const std::string cut = text.substr(0, 700);
  for (const std::string& path : {write("cut.json", cut), write_gz("cut.json.gz", cut)}) {
    Result<RankTrace> r = summarize_trace_file(path);
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(path + ": not a complete trace: "), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find("at byte 700 "), std::string::npos) << r.status().message();
  }
  // A gzip file cut in the middle of its compressed stream.
  std::ifstream gz(write_gz("whole.json.gz", text), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(gz)), {});
  const std::string half = write("half.json.gz", bytes.substr(0, bytes.size() / 2));
  Result<RankTrace> r = summarize_trace_file(half);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find(half + ": not a complete trace: "), std::string::npos)
      << r.status().message();

  r = summarize_trace_file((dir_ / "missing.json").string());
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("missing.json: cannot read: "), std::string::npos)
      << r.status().message();

  r = summarize_trace_file(write("other.json", R"({"events": []})"));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("no traceEvents array"), std::string::npos);

  r = summarize_trace_file(write("nosteps.json", R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"correlation": 1}}]})"));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("no annotation named ProfilerStep#..."), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("prof.step()"), std::string::npos);
  EXPECT_NE(r.status().message().find("--step-name"), std::string::npos);

  // Two files of one rank; an empty folder.
  const std::string a = write("a.json", kTwoSteps);
  const std::string b = write("b.json", kTwoSteps);
  Result<TraceSummary> s = summarize_traces({a, b});
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.status().message().find("are both rank 1"), std::string::npos);
  fs::create_directories(dir_ / "empty");
  s = summarize_traces({(dir_ / "empty").string()});
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.status().message().find("no trace files"), std::string::npos);
}

// A trace without ProfilerStep#N, stepped by its own annotation: the steps
// are the annotations named by the prefix, numbered in time order when their
// names carry no number.
TEST_F(TraceTest, StepsFromTheLoopsOwnAnnotation) {
  const std::string path = write("own.json", R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "train_step", "ts": 2000, "dur": 1000},
    {"ph": "X", "cat": "user_annotation", "name": "train_step", "ts": 500, "dur": 1000},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 600, "dur": 5,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 700, "dur": 200, "args": {"correlation": 1}}]})");
  ASSERT_FALSE(summarize_trace_file(path).is_ok());  // no ProfilerStep#N
  Result<RankTrace> r = summarize_trace_file(path, TraceOptions{.step_prefix = "train_step"});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->steps.size(), 2u);
  EXPECT_EQ(r->steps[0].step, 0);  // the earlier one
  EXPECT_DOUBLE_EQ(r->steps[0].start_ms, 0.5);
  EXPECT_DOUBLE_EQ(r->steps[0].gpu_busy_ms, 0.2);
  EXPECT_EQ(r->steps[1].step, 1);
  EXPECT_EQ(r->steps[1].kernels, 0);
}

// --- The real traces, read independently --------------------------------

fs::path traces_root() { return testing_support::shared_traces_dir(); }

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

struct Expected {
  double step_ms = 0, busy_ms = 0, nccl = 0, tbe = 0, gemm = 0, gpu_ms = 0;
  int64_t kernels = 0;
  double idle_ms = 0, host_wait_ms = 0, sync_ms = 0;
  int64_t syncs = 0;
};

// A whole document's steps and launches, read plainly.
struct DocSteps {
  std::map<int64_t, std::pair<double, double>> windows;  // step -> [start, end) µs
  std::map<int64_t, int64_t> step_tid;                   // -1: no number
  std::map<int64_t, double> launch_ts;                   // correlation -> call start, µs
};

DocSteps read_doc_steps(const Json& doc) {
  DocSteps d;
  for (const Json& e : doc["traceEvents"]) {
    const std::string name = e.value("name", "");
    const std::string cat = e.value("cat", "");
    if (name.rfind("ProfilerStep#", 0) == 0 && cat.rfind("gpu_", 0) != 0 && e.contains("ts")) {
      const int64_t n = std::stoll(name.substr(13));
      if (!d.windows.count(n)) {
        d.windows[n] = {e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()};
        d.step_tid[n] = e.contains("tid") && e["tid"].is_number() ? e["tid"].get<int64_t>() : -1;
      }
    }
    if ((cat == "cuda_runtime" || cat == "cuda_driver") && e.contains("args") &&
        e["args"].contains("correlation")) {
      d.launch_ts.emplace(e["args"]["correlation"].get<int64_t>(), e["ts"].get<double>());
    }
  }
  return d;
}

// The host side of every step of `doc` (docs/traces.md "Host side"), from
// the whole document: the file's GPU events sorted by start, their idle gaps
// found by a sweep, each gap's following events looked up among all events.
void read_host_side(const Json& doc, const DocSteps& steps, std::map<int64_t, Expected>& out) {
  const auto& [windows, step_tid, launch_ts] = steps;
  std::set<int64_t> to_host;
  struct Ev {
    double ts, end;
    int64_t corr;
  };
  std::vector<Ev> gpu;
  for (const Json& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    const bool has_corr = e.contains("args") && e["args"].contains("correlation");
    if ((cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") && has_corr) {
      const double ts = e["ts"].get<double>();
      gpu.push_back({ts, ts + e["dur"].get<double>(), e["args"]["correlation"].get<int64_t>()});
      if (cat == "gpu_memcpy" && contains(e.value("name", ""), "DtoH"))
        to_host.insert(gpu.back().corr);
    }
  }
  std::sort(gpu.begin(), gpu.end(), [](const Ev& a, const Ev& b) { return a.ts < b.ts; });
  // Idle gaps (from, to) of the whole timeline, to = +inf after the last event.
  std::vector<std::pair<double, double>> gaps{{-1e300, gpu.empty() ? 1e300 : gpu[0].ts}};
  double reach = gpu.empty() ? -1e300 : gpu[0].end;
  for (const Ev& g : gpu) {
    if (g.ts > reach) gaps.emplace_back(reach, g.ts);
    reach = std::max(reach, g.end);
  }
  gaps.emplace_back(reach, 1e300);
  for (const auto& [n, w] : windows) {
    Expected& x = out[n];
    for (const auto& [from, to] : gaps) {
      const double lo = std::max(from, w.first), hi = std::min(to, w.second);
      if (hi <= lo) continue;
      x.idle_ms += (hi - lo) / 1000.0;
      bool host = true;
      for (const Ev& g : gpu) {
        if (g.ts != to) continue;
        const auto l = launch_ts.find(g.corr);
        host = host && l != launch_ts.end() && l->second >= from;
      }
      if (host) x.host_wait_ms += (hi - lo) / 1000.0;
    }
  }
  for (const Json& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat != "cuda_runtime" && cat != "cuda_driver") continue;
    const std::string name = e.value("name", "");
    const bool sync = name.size() > 11 && name.substr(name.size() - 11) == "Synchronize";
    const bool copy = name.rfind("cudaMemcpy", 0) == 0 || name.rfind("cuMemcpy", 0) == 0;
    if (!sync && !copy) continue;
    if (copy && !sync &&
        !(e.contains("args") && e["args"].contains("correlation") &&
          to_host.count(e["args"]["correlation"].get<int64_t>())))
      continue;
    const double ts = e["ts"].get<double>();
    for (const auto& [n, w] : windows) {
      if (ts < w.first || ts >= w.second) continue;
      if (e.contains("tid") && e["tid"].is_number() && step_tid.at(n) >= 0 &&
          e["tid"].get<int64_t>() != step_tid.at(n))
        continue;
      ++out[n].syncs;
      out[n].sync_ms += e.value("dur", 0.0) / 1000.0;
    }
  }
}

// docs/traces.md's definitions, written again from the whole document.
std::map<int64_t, Expected> read_independently(const Json& doc) {
  const DocSteps steps = read_doc_steps(doc);
  const auto& [windows, step_tid, launch_ts] = steps;
  std::map<int64_t, Expected> out;
  std::map<int64_t, std::vector<std::pair<double, double>>> intervals;
  for (const auto& [n, w] : windows) out[n].step_ms = (w.second - w.first) / 1000.0;
  for (const Json& e : doc["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset") continue;
    if (!e.contains("args") || !e["args"].contains("correlation")) continue;
    const auto l = launch_ts.find(e["args"]["correlation"].get<int64_t>());
    if (l == launch_ts.end()) continue;
    for (const auto& [n, w] : windows) {
      if (l->second < w.first || l->second >= w.second) continue;
      const double ts = e["ts"].get<double>();
      const double dur = e["dur"].get<double>();
      intervals[n].emplace_back(ts, ts + dur);
      out[n].gpu_ms += dur / 1000.0;
      if (cat != "kernel") break;
      Expected& x = out[n];
      ++x.kernels;
      const std::string name = e.value("name", "");
      if (name.rfind("nccl", 0) == 0) x.nccl += dur / 1000.0;
      if (contains(name, "split_embedding") || contains(name, "embedding_codegen") ||
          contains(name, "batched_embedding"))
        x.tbe += dur / 1000.0;
      if (contains(name, "gemm") || contains(name, "xmma") || contains(name, "cutlass"))
        x.gemm += dur / 1000.0;
      break;
    }
  }
  for (auto& [n, iv] : intervals) {
    // Busy time: sweep over the sorted intervals' covered length.
    std::sort(iv.begin(), iv.end());
    double covered = 0.0, reach = -1e300;
    for (const auto& [s, e] : iv) {
      if (e <= reach) continue;
      covered += e - std::max(s, reach);
      reach = e;
    }
    out[n].busy_ms = covered / 1000.0;
  }
  read_host_side(doc, steps, out);
  return out;
}

// Within 1% or 0.01 ms, as the issue asks of any reader.
void expect_close(double got, double want, const std::string& what) {
  EXPECT_LE(std::abs(got - want), std::max(0.01, 0.01 * std::abs(want))) << what;
}

TEST(RealTraces, EveryFieldMatchesAnIndependentReading) {
  const fs::path root = traces_root();
  if (!fs::is_directory(root)) GTEST_SKIP() << "no shared traces at " << root;
  int files = 0;
  for (const fs::directory_entry& folder : fs::directory_iterator(root)) {
    if (!folder.is_directory()) continue;
    Result<TraceSummary> summary = summarize_traces({folder.path().string()});
    ASSERT_TRUE(summary.is_ok()) << summary.status().message();
    for (const RankTrace& rank : summary->ranks) {
      ++files;
      const Json doc = Json::parse(testing::read_trace_text(rank.file));
      EXPECT_EQ(rank.rank, doc["distributedInfo"]["rank"].get<int>()) << rank.file;
      EXPECT_EQ(rank.world_size, doc["distributedInfo"]["world_size"].get<int>()) << rank.file;
      const std::map<int64_t, Expected> want = read_independently(doc);
      ASSERT_EQ(rank.steps.size(), want.size()) << rank.file;
      for (const StepSummary& s : rank.steps) {
        const std::string at = rank.file + " step " + std::to_string(s.step);
        ASSERT_TRUE(want.count(s.step)) << at;
        const Expected& w = want.at(s.step);
        EXPECT_EQ(s.kernels, w.kernels) << at;
        EXPECT_GT(s.kernels, 0) << at;
        expect_close(s.step_ms, w.step_ms, at + " step_ms");
        expect_close(s.gpu_busy_ms, w.busy_ms, at + " gpu_busy_ms");
        expect_close(s.nccl_ms, w.nccl, at + " nccl_ms");
        expect_close(s.tbe_ms, w.tbe, at + " tbe_ms");
        expect_close(s.gemm_ms, w.gemm, at + " gemm_ms");
        // The phases split the step's GPU time: they add up to all of it.
        double phases = s.other_ms;
        for (double p : s.phase_ms) phases += p;
        expect_close(phases, w.gpu_ms, at + " phases");
        expect_close(s.gpu_idle_ms, w.idle_ms, at + " gpu_idle_ms");
        expect_close(s.host_wait_ms, w.host_wait_ms, at + " host_wait_ms");
        expect_close(s.sync_ms, w.sync_ms, at + " sync_ms");
        EXPECT_EQ(s.syncs, w.syncs) << at;
      }
    }
  }
  EXPECT_GE(files, 16) << "the shared traces hold 16 rank files";
}

// Spans of every real trace: per step and lane in order and not
// overlapping, every GPU event in one, and their union the step's GPU-busy
// time.
TEST(RealTraces, SpansCoverEveryGpuEventOnce) {
  const fs::path root = traces_root();
  if (!fs::is_directory(root)) GTEST_SKIP() << "no shared traces at " << root;
  int steps = 0;
  for (const fs::directory_entry& folder : fs::directory_iterator(root)) {
    if (!folder.is_directory()) continue;
    Result<TraceSummary> summary =
        summarize_traces({folder.path().string()}, TraceOptions{.spans = true});
    ASSERT_TRUE(summary.is_ok()) << summary.status().message();
    for (const RankTrace& rank : summary->ranks) {
      for (const StepSummary& s : rank.steps) {
        const std::string at = rank.file + " step " + std::to_string(s.step);
        ++steps;
        int64_t events = 0;
        std::vector<std::pair<double, double>> all;
        for (std::size_t i = 0; i < s.spans.size(); ++i) {
          const MeasuredSpan& m = s.spans[i];
          EXPECT_LT(m.start_ms, m.end_ms + 1e-12) << at;
          EXPECT_GE(m.events, 1) << at;
          events += m.events;
          all.emplace_back(m.start_ms, m.end_ms);
          if (i > 0 && s.spans[i - 1].stream == m.stream)
            EXPECT_LE(s.spans[i - 1].end_ms, m.start_ms + 1e-12) << at << " span " << i;
          if (i > 0) EXPECT_LE(s.spans[i - 1].stream, m.stream) << at;
        }
        EXPECT_EQ(events, s.gpu_events) << at;
        std::sort(all.begin(), all.end());
        double covered = 0.0, reach = -1e300;
        for (const auto& [a, b] : all) {
          if (b <= reach) continue;
          covered += b - std::max(a, reach);
          reach = b;
        }
        EXPECT_NEAR(covered, s.gpu_busy_ms, 1e-6) << at;
      }
    }
  }
  EXPECT_GT(steps, 16);
}

// Across ranks on every shared folder that holds all of its job's ranks,
// recomputed from the whole documents: per rank and step the NCCL kernels
// launched in the step, sorted by start; offsets the nearest-rank median of
// end differences to rank 0; waits to the latest aligned start.
TEST(RealTraces, AcrossRanksMatchesAnIndependentReading) {
  const fs::path root = traces_root();
  if (!fs::is_directory(root)) GTEST_SKIP() << "no shared traces at " << root;
  int aligned_folders = 0;
  for (const fs::directory_entry& folder : fs::directory_iterator(root)) {
    if (!folder.is_directory()) continue;
    Result<TraceSummary> summary = summarize_traces({folder.path().string()});
    ASSERT_TRUE(summary.is_ok()) << summary.status().message();
    const auto& ranks = summary->ranks;
    const bool whole_job =
        ranks.size() >= 2 && ranks.front().world_size == static_cast<int>(ranks.size());
    EXPECT_EQ(summary->alignment.aligned, whole_job) << folder.path() << summary->alignment.why;
    if (!whole_job) continue;
    ++aligned_folders;
    // rank -> step -> [(start, end)] in µs, the trace's clock.
    std::vector<std::map<int64_t, std::vector<std::pair<double, double>>>> kernels(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const Json doc = Json::parse(testing::read_trace_text(ranks[r].file));
      const DocSteps steps = read_doc_steps(doc);
      const auto& windows = steps.windows;
      const auto& launch = steps.launch_ts;
      for (const Json& e : doc["traceEvents"]) {
        if (e.value("cat", "") != "kernel" || e.value("name", "").rfind("nccl", 0) != 0) continue;
        const auto l = launch.find(e["args"]["correlation"].get<int64_t>());
        if (l == launch.end()) continue;
        for (const auto& [n, w] : windows) {
          if (l->second >= w.first && l->second < w.second)
            kernels[r][n].emplace_back(e["ts"].get<double>(),
                                       e["ts"].get<double>() + e["dur"].get<double>());
        }
      }
      for (auto& [n, v] : kernels[r]) std::sort(v.begin(), v.end());
    }
    std::vector<double> offset(ranks.size(), 0.0);
    for (std::size_t r = 1; r < ranks.size(); ++r) {
      std::vector<double> d;
      for (const auto& [n, v] : kernels[0]) {
        for (std::size_t k = 0; k < v.size(); ++k)
          d.push_back(kernels[r][n][k].second - v[k].second);
      }
      std::sort(d.begin(), d.end());
      offset[r] = d[(d.size() + 1) / 2 - 1];
      expect_close(ranks[r].clock_offset_ms.value(), offset[r] / 1000.0, "offset");
    }
    for (const auto& [n, v] : kernels[0]) {
      std::vector<double> wait(ranks.size(), 0.0), transfer(ranks.size(), 0.0);
      for (std::size_t k = 0; k < v.size(); ++k) {
        double latest = -1e300;
        for (std::size_t r = 0; r < ranks.size(); ++r)
          latest = std::max(latest, kernels[r][n][k].first - offset[r]);
        for (std::size_t r = 0; r < ranks.size(); ++r) {
          const auto [b, e] = kernels[r][n][k];
          const double w = std::min(std::max(latest - (b - offset[r]), 0.0), e - b);
          wait[r] += w;
          transfer[r] += e - b - w;
        }
      }
      for (std::size_t r = 0; r < ranks.size(); ++r) {
        const std::string at = ranks[r].file + " step " + std::to_string(n);
        const StepSummary* s = nullptr;
        for (const StepSummary& x : ranks[r].steps) {
          if (x.step == n) s = &x;
        }
        ASSERT_NE(s, nullptr) << at;
        expect_close(s->nccl_wait_ms.value(), wait[r] / 1000.0, at + " nccl_wait_ms");
        expect_close(s->nccl_transfer_ms.value(), transfer[r] / 1000.0, at + " nccl_transfer_ms");
      }
    }
  }
  EXPECT_EQ(aligned_folders, 2) << "the two V100 jobs hold every rank";
}

// What the shared folder's README says of two jobs, through the summaries:
// the 16-rank A100 TorchRec job's steps of about 210 ms keep the GPU busy for
// about 75 ms; the small 8-rank V100 DLRM's 14.5 ms step for 6.6 ms.
TEST(RealTraces, TheKnownJobsReadAsTheirReadmeSays) {
  const fs::path root = traces_root();
  if (!fs::is_directory(root)) GTEST_SKIP() << "no shared traces at " << root;
  Result<TraceSummary> a100 = summarize_traces({(root / "a100_16rank_torchrec").string()});
  ASSERT_TRUE(a100.is_ok()) << a100.status().message();
  ASSERT_EQ(a100->ranks.size(), 1u);
  ASSERT_EQ(a100->ranks[0].steps.size(), 5u);
  EXPECT_EQ(a100->ranks[0].steps[0].step, 550);
  EXPECT_NEAR(a100->ranks[0].steps[0].step_ms, 209.748, 1e-9);
  EXPECT_NEAR(a100->ranks[0].steps[0].gpu_busy_ms, 75.4, 0.1);
  Result<TraceSummary> v100 =
      summarize_traces({(root / "v100_8rank_torchrec_dlrm_small").string()});
  ASSERT_TRUE(v100.is_ok()) << v100.status().message();
  ASSERT_EQ(v100->ranks.size(), 8u);  // execution_traces.tar.gz is skipped
  EXPECT_EQ(v100->ranks[0].rank, 0);
  EXPECT_NEAR(v100->ranks[0].steps.at(0).step_ms, 14.455, 1e-9);
  EXPECT_NEAR(v100->ranks[0].steps.at(0).gpu_busy_ms, 6.59, 0.01);
  // "the step is dominated by launches": the GPU waits for the host.
  EXPECT_EQ(host_wait(v100->ranks[0]).verdict, "host-bound");
  EXPECT_NEAR(v100->ranks[0].steps.at(0).host_wait_ms, 7.79, 0.01);
  // The most host-bound rank (78%) is the one the others waited for.
  ASSERT_EQ(v100->alignment.held_back.size(), 1u);
  EXPECT_EQ(v100->alignment.held_back[0].rank, 7);
}

}  // namespace
}  // namespace shardlab::trace
