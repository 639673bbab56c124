#include "shardlab/data/sim_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json_writer.h"
#include "shardlab/data/plan_json.h"

namespace shardlab::data {
namespace {

using internal::JsonWriter;
using sim::CriticalStep;
using sim::PhaseRecord;
using sim::RankResult;
using sim::SimResult;
using sim::Stream;

// Byte counts are doubles in the simulator (average pooling factors make
// fractional payloads), but are usually whole: write those as integers so the
// file reads like the format's example. Beyond 2^53 a double is not an exact
// count anyway.
void write_bytes(JsonWriter& w, std::string_view key, double bytes) {
  constexpr double kTwo53 = 9007199254740992.0;
  w.key(key);
  if (std::isfinite(bytes) && std::trunc(bytes) == bytes && std::fabs(bytes) <= kTwo53) {
    w.value(static_cast<int64_t>(bytes));
  } else {
    w.value(bytes);
  }
}

void write_phase(JsonWriter& w, const PhaseRecord& p) {
  w.begin_object();
  w.member("phase", sim::to_string(p.phase));
  w.member("stream", sim::to_string(p.stream));
  w.member("iteration", p.iteration);
  w.member("start_ms", p.start_ms);
  w.member("end_ms", p.end_ms);
  write_bytes(w, "bytes", p.bytes);
  w.member("tables", p.tables);
  w.end_object();
}

void write_rank(JsonWriter& w, const RankResult& r, bool host) {
  w.begin_object();
  w.member("rank", r.rank);
  w.key("busy_ms");
  w.begin_object();
  w.member("compute", r.busy_compute_ms);
  w.member("comm", r.busy_comm_ms);
  if (host) w.member("host", r.busy_host_ms);
  w.end_object();
  if (host) w.member("gpu_waits_host_ms", r.gpu_waits_host_ms);
  w.key("phases");
  w.begin_array();
  for (const PhaseRecord& p : r.phases) write_phase(w, p);
  w.end_array();
  w.end_object();
}

int local_rank(const SimResult& result, int rank) {
  return result.local_world_size > 0 ? rank % result.local_world_size : rank;
}

// Chrome orders threads by tid within a process: per GPU its host thread,
// then compute, then comm.
int thread_id(const SimResult& result, int rank, Stream stream) {
  const int lane = stream == Stream::kHost ? 0 : stream == Stream::kCompute ? 1 : 2;
  return local_rank(result, rank) * sim::kNumStreams + lane;
}

// A metadata event: {"name": what, "ph": "M", "pid", "tid", "args": {arg: value}}.
template <typename T>
void write_metadata(JsonWriter& w, std::string_view what, int pid, int tid, std::string_view arg,
                    const T& value) {
  w.begin_object();
  w.member("name", what);
  w.member("ph", "M");
  w.member("pid", pid);
  w.member("tid", tid);
  w.key("args");
  w.begin_object();
  w.member(arg, value);
  w.end_object();
  w.end_object();
}

void write_trace_metadata(JsonWriter& w, const SimResult& result) {
  std::vector<int> hosts;
  for (const RankResult& r : result.ranks) hosts.push_back(r.host);
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  for (int h : hosts) {
    write_metadata(w, "process_name", h, 0, "name", "host" + std::to_string(h));
    write_metadata(w, "process_sort_index", h, 0, "sort_index", h);
  }
  for (const RankResult& r : result.ranks) {
    for (Stream s : sim::kAllStreams) {
      if (s == Stream::kHost && !result.host.modelled) continue;
      const int tid = thread_id(result, r.rank, s);
      const std::string lane = s == Stream::kHost ? "cpu" + std::to_string(r.rank) + " host"
                                                  : "gpu" + std::to_string(r.rank) + " " +
                                                        std::string(sim::to_string(s));
      write_metadata(w, "thread_name", r.host, tid, "name", lane);
      write_metadata(w, "thread_sort_index", r.host, tid, "sort_index", tid);
    }
  }
}

void write_trace_phase(JsonWriter& w, const SimResult& result, const RankResult& r,
                       const PhaseRecord& p, bool critical) {
  w.begin_object();
  w.member("name", sim::to_string(p.phase));
  w.member("cat", sim::to_string(p.stream));
  w.member("ph", "X");
  // The format's times are microseconds; the simulator's are milliseconds.
  w.member("ts", p.start_ms * 1000.0);
  w.member("dur", (p.end_ms - p.start_ms) * 1000.0);
  w.member("pid", r.host);
  w.member("tid", thread_id(result, r.rank, p.stream));
  w.key("args");
  w.begin_object();
  w.member("iteration", p.iteration);
  write_bytes(w, "bytes", p.bytes);
  w.member("tables", p.tables);
  w.member("rank", r.rank);
  if (critical) w.member("critical", true);
  w.end_object();
  w.end_object();
}

}  // namespace

std::string simulation_to_json(const SimResult& result, bool compact) {
  JsonWriter w(compact ? kCompactJson : kDefaultJsonIndent);
  w.begin_object();
  w.member("scenario", result.scenario);
  w.member("iterations", result.iterations);
  w.member("iteration_ms", result.iteration_ms);
  w.member("total_ms", result.total_ms);
  if (result.host.modelled) {
    const sim::HostSummary& h = result.host;
    w.key("host");
    w.begin_object();
    w.member("framework", h.framework);
    w.member("mode", h.mode);
    w.member("profile", h.profile);
    w.member("rank", h.rank);
    w.member("host_busy_ms", h.host_busy_ms);
    w.member("host_critical_ms", h.host_critical_ms);
    w.member("share", h.share);
    w.member("verdict", h.verdict);
    w.member("advice", h.advice);
    w.end_object();
  }
  w.key("ranks");
  w.begin_array();
  for (const RankResult& r : result.ranks) write_rank(w, r, result.host.modelled);
  w.end_array();
  w.key("critical_path");
  w.begin_array();
  for (const CriticalStep& s : result.critical_path) {
    w.begin_object();
    w.member("rank", s.rank);
    w.member("phase", sim::to_string(s.phase));
    w.member("stream", sim::to_string(s.stream));
    w.member("iteration", s.iteration);
    w.member("start_ms", s.start_ms);
    w.member("end_ms", s.end_ms);
    w.end_object();
  }
  w.end_array();
  w.key("links");
  w.begin_array();
  for (const sim::LinkResult& l : result.links) {
    w.begin_object();
    w.member("name", l.name);
    write_bytes(w, "bytes", l.bytes);
    w.member("utilization", l.utilization);
    w.end_object();
  }
  w.end_array();
  w.member("events", static_cast<int64_t>(result.events));
  w.member("flows", static_cast<int64_t>(result.flows));
  w.end_object();
  return std::move(w).take();
}

std::string sweep_to_json(const std::string& scenario, sim::CollectiveKind kind, int ranks,
                          const std::vector<sim::SweepPoint>& points, int indent) {
  constexpr double kGbpsPerBytesPerMs = 1e-6;  // bytes/ms -> 10^9 bytes/s
  JsonWriter w(indent);
  w.begin_object();
  w.member("scenario", scenario);
  w.member("collective", sim::to_string(kind));
  w.member("ranks", ranks);
  w.key("points");
  w.begin_array();
  for (const sim::SweepPoint& p : points) {
    w.begin_object();
    write_bytes(w, "bytes", p.bytes);
    w.member("time_us", p.time_ms * 1000.0);
    w.member("algbw_gbps", p.algbw * kGbpsPerBytesPerMs);
    w.member("busbw_gbps", p.busbw * kGbpsPerBytesPerMs);
    w.member("algorithm", sweep_algorithm_name(kind, p.algorithm));
    w.member("protocol", planner::to_string(p.protocol));
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).take();
}

std::string_view sweep_algorithm_name(sim::CollectiveKind kind, planner::CollAlgorithm algorithm) {
  return kind == sim::CollectiveKind::kAllToAll ? "pairwise" : planner::to_string(algorithm);
}

std::string chrome_trace_json(const SimResult& result) {
  const std::vector<std::vector<bool>> critical = sim::critical_phase_marks(result);
  JsonWriter w(kCompactJson);
  w.begin_object();
  w.key("traceEvents");
  w.begin_array();
  write_trace_metadata(w, result);
  for (size_t i = 0; i < result.ranks.size(); ++i) {
    const RankResult& r = result.ranks[i];
    for (size_t k = 0; k < r.phases.size(); ++k) {
      write_trace_phase(w, result, r, r.phases[k], critical[i][k]);
    }
  }
  w.end_array();
  w.member("displayTimeUnit", "ms");
  w.end_object();
  return std::move(w).take();
}

}  // namespace shardlab::data
