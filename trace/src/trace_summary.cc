#include "shardlab/trace/trace_summary.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <utility>

#include "intervals.h"
#include "shardlab/kernels/measurement.h"
#include "trace_events.h"

namespace shardlab::trace {
namespace {

namespace fs = std::filesystem;
using detail::GpuEvent;
using detail::RawTrace;

constexpr double kUsPerMs = 1000.0;

// Whether an annotation of `marks` (sorted by start) covers time `t`: the
// latest one to start at or before `t` ends after it.
bool within(const std::vector<detail::StageMark>& marks, double t) {
  const auto after =
      std::upper_bound(marks.begin(), marks.end(), t,
                       [](double x, const detail::StageMark& m) { return x < m.ts_us; });
  return after != marks.begin() && t < std::prev(after)->end_us;
}

// The phase of a GPU event launched at `t` (docs/traces.md "Phases"), or
// nullopt for "other".
std::optional<sim::Phase> phase_of(const RawTrace& raw, const GpuEvent& g, double t) {
  using detail::Stage;
  const auto in = [&](Stage s) { return within(raw.stages[static_cast<int>(s)], t); };
  const bool nccl = (g.families & detail::kNccl) != 0;
  const bool tbe = (g.families & detail::kTbe) != 0;
  if (in(Stage::kInputDist)) return sim::Phase::kInputDist;
  if (in(Stage::kOptimizer)) {
    return nccl  ? sim::Phase::kDpAllreduce
           : tbe ? sim::Phase::kBwdCompute
                 : sim::Phase::kDenseOptimizer;
  }
  if (in(Stage::kBackward)) {
    if (nccl) return in(Stage::kAllReduce) ? sim::Phase::kDdpAllreduce : sim::Phase::kBwdOutputDist;
    return tbe ? sim::Phase::kBwdCompute : sim::Phase::kDenseBwd;
  }
  if (in(Stage::kForward)) {
    return nccl ? sim::Phase::kOutputDist : tbe ? sim::Phase::kFwdCompute : sim::Phase::kDenseFwd;
  }
  if (nccl && in(Stage::kAllReduce)) return sim::Phase::kDdpAllreduce;
  return std::nullopt;
}

// A stretch of the file's GPU timeline in which something runs, and whether
// the idle stretch before it was the GPU waiting for the host (every event
// that starts at `start` was launched at or after that idle stretch began).
struct BusyStretch {
  double start = 0.0, end = 0.0;
  bool after_host_wait = false;
};

// The file's busy stretches in start order; `launched[k]`: when the call
// that launched gpu[k] began, NaN without one (never "after" anything).
std::vector<BusyStretch> busy_stretches(const std::vector<GpuEvent>& gpu,
                                        const std::vector<double>& launched) {
  std::vector<uint32_t> order(gpu.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return gpu[a].ts_us < gpu[b].ts_us; });
  std::vector<BusyStretch> out;
  double idle_from = -1e300;  // when the idle stretch before the current event began
  bool waited = true;         // so far, every event starting here was launched after idle_from
  for (const uint32_t k : order) {
    const GpuEvent& g = gpu[k];
    const double end = g.ts_us + g.dur_us;
    if (!out.empty() && g.ts_us <= out.back().end) {
      if (g.ts_us == out.back().start) {
        waited = waited && launched[k] >= idle_from;
        out.back().after_host_wait = waited;
      }
      out.back().end = std::max(out.back().end, end);
      continue;
    }
    idle_from = out.empty() ? -1e300 : out.back().end;
    waited = launched[k] >= idle_from;
    out.push_back({g.ts_us, end, waited});
  }
  return out;
}

// The step's GPU idle time and the part of it spent waiting for the host
// (StepSummary), from the file's busy stretches in start order.
void idle_time(const std::vector<BusyStretch>& busy, const detail::StepMark& m, StepSummary& s) {
  const double from = m.ts_us, to = m.ts_us + m.dur_us;
  // The first stretch that ends after the window starts.
  auto it = std::upper_bound(busy.begin(), busy.end(), from,
                             [](double t, const BusyStretch& b) { return t < b.end; });
  double idle = 0.0, host = 0.0;
  double cursor = from;
  for (; cursor < to; ++it) {
    const bool last = it == busy.end();
    const double gap_end = last ? to : std::min(it->start, to);
    if (gap_end > cursor) {
      idle += gap_end - cursor;
      if (last || it->after_host_wait) host += gap_end - cursor;
    }
    if (last) break;
    cursor = std::max(cursor, it->end);
  }
  s.gpu_idle_ms = idle / kUsPerMs;
  s.host_wait_ms = host / kUsPerMs;
}

// One GPU event of a step, for its spans.
struct SpanEvent {
  double start_us = 0.0, end_us = 0.0;
  std::optional<sim::Phase> phase;
  sim::Stream stream = sim::Stream::kCompute;
};

// The lanes' spans of one step's events (MeasuredSpan's rules): the compute
// lane's, then the comm lane's, from the step's start.
std::vector<MeasuredSpan> lane_spans(std::vector<SpanEvent> events, double step_start_us) {
  std::sort(events.begin(), events.end(), [](const SpanEvent& a, const SpanEvent& b) {
    if (a.stream != b.stream) return a.stream < b.stream;
    if (a.start_us != b.start_us) return a.start_us < b.start_us;
    if (a.end_us != b.end_us) return a.end_us > b.end_us;  // the longer first
    return a.phase < b.phase;
  });
  std::vector<MeasuredSpan> out;
  std::vector<double> end_us;  // each span's end in µs (the exact comparisons)
  std::vector<double> start_us;
  for (const SpanEvent& e : events) {
    const bool same_lane = !out.empty() && out.back().stream == e.stream;
    if (same_lane && e.start_us <= end_us.back()) {
      MeasuredSpan& last = out.back();
      if (e.end_us <= end_us.back() || e.phase == last.phase) {
        ++last.events;
        end_us.back() = std::max(end_us.back(), e.end_us);
        continue;
      }
      // Another phase running past this span: it shows from the span's end.
      const double from = end_us.back();
      out.push_back({e.phase, e.stream, 0.0, 0.0, 1});
      start_us.push_back(from);
      end_us.push_back(e.end_us);
      continue;
    }
    out.push_back({e.phase, e.stream, 0.0, 0.0, 1});
    start_us.push_back(e.start_us);
    end_us.push_back(e.end_us);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].start_ms = (start_us[i] - step_start_us) / kUsPerMs;
    out[i].end_ms = (end_us[i] - step_start_us) / kUsPerMs;
  }
  return out;
}

std::vector<StepSummary> summarize_steps(RawTrace& raw, bool keep_spans) {
  for (auto& marks : raw.stages) {
    std::sort(
        marks.begin(), marks.end(),
        [](const detail::StageMark& a, const detail::StageMark& b) { return a.ts_us < b.ts_us; });
  }
  // One mark per step number (a step annotated twice counts once: the first).
  std::vector<detail::StepMark> marks;
  std::sort(raw.steps.begin(), raw.steps.end(),
            [](const detail::StepMark& a, const detail::StepMark& b) { return a.ts_us < b.ts_us; });
  // Steps whose names carry no number are numbered in time order.
  int64_t next = 0;
  for (detail::StepMark& m : raw.steps) {
    if (m.step < 0) m.step = next++;
  }
  for (const detail::StepMark& m : raw.steps) {
    const bool seen = std::any_of(marks.begin(), marks.end(),
                                  [&](const detail::StepMark& k) { return k.step == m.step; });
    if (!seen) marks.push_back(m);
  }
  std::sort(raw.launches.begin(), raw.launches.end(),
            [](const detail::Launch& a, const detail::Launch& b) {
              return a.correlation < b.correlation ||
                     (a.correlation == b.correlation && a.ts_us < b.ts_us);
            });
  std::vector<std::vector<std::pair<double, double>>> busy(marks.size());
  std::vector<std::vector<SpanEvent>> span_events(keep_spans ? marks.size() : 0);
  std::vector<StepSummary> steps(marks.size());
  for (std::size_t i = 0; i < marks.size(); ++i) {
    steps[i].step = marks[i].step;
    steps[i].step_ms = marks[i].dur_us / kUsPerMs;
    steps[i].start_ms = marks[i].ts_us / kUsPerMs;
  }
  // When each GPU event's launching call began (NaN: none), for the idle
  // stretches below; one lookup per event.
  std::vector<double> launched(raw.gpu.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t k = 0; k < raw.gpu.size(); ++k) {
    const GpuEvent& g = raw.gpu[k];
    const auto launch =
        std::lower_bound(raw.launches.begin(), raw.launches.end(), g.correlation,
                         [](const detail::Launch& l, int64_t c) { return l.correlation < c; });
    if (launch == raw.launches.end() || launch->correlation != g.correlation) continue;
    launched[k] = launch->ts_us;
    // The step whose window [ts, ts + dur) holds the launch: marks are in
    // start order and do not overlap.
    const auto after =
        std::upper_bound(marks.begin(), marks.end(), launch->ts_us,
                         [](double t, const detail::StepMark& m) { return t < m.ts_us; });
    if (after == marks.begin()) continue;
    const auto i = static_cast<std::size_t>(after - marks.begin()) - 1;
    if (!(launch->ts_us < marks[i].ts_us + marks[i].dur_us)) continue;
    StepSummary& s = steps[i];
    ++s.gpu_events;
    busy[i].emplace_back(g.ts_us, g.ts_us + g.dur_us);
    const std::optional<sim::Phase> phase = phase_of(raw, g, launch->ts_us);
    if (phase) {
      s.phase_ms[static_cast<size_t>(*phase)] += g.dur_us / kUsPerMs;
    } else {
      s.other_ms += g.dur_us / kUsPerMs;
    }
    if (keep_spans) {
      const bool comm = (g.families & detail::kNccl) != 0;
      span_events[i].push_back(
          {g.ts_us, g.ts_us + g.dur_us, phase, comm ? sim::Stream::kComm : sim::Stream::kCompute});
    }
    if (g.nccl_name >= 0) {
      s.collectives.push_back({raw.nccl_names[static_cast<size_t>(g.nccl_name)], g.ts_us / kUsPerMs,
                               (g.ts_us + g.dur_us) / kUsPerMs});
    }
    if (g.kind != detail::GpuKind::kKernel) continue;
    ++s.kernels;
    const double ms = g.dur_us / kUsPerMs;
    if (g.families & detail::kNccl) s.nccl_ms += ms;
    if (g.families & detail::kTbe) s.tbe_ms += ms;
    if (g.families & detail::kGemm) s.gemm_ms += ms;
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    steps[i].gpu_busy_ms = detail::union_length(std::move(busy[i])) / kUsPerMs;
    if (keep_spans) steps[i].spans = lane_spans(std::move(span_events[i]), marks[i].ts_us);
    std::stable_sort(steps[i].collectives.begin(), steps[i].collectives.end(),
                     [](const CollectiveKernel& a, const CollectiveKernel& b) {
                       return a.start_ms < b.start_ms;
                     });
  }
  const std::vector<BusyStretch> stretches = busy_stretches(raw.gpu, launched);
  std::vector<int64_t> to_host;  // correlations of device-to-host copies
  for (const GpuEvent& g : raw.gpu) {
    if (g.to_host) to_host.push_back(g.correlation);
  }
  std::sort(to_host.begin(), to_host.end());
  std::sort(raw.blocking.begin(), raw.blocking.end(),
            [](const detail::BlockingCall& a, const detail::BlockingCall& b) {
              return a.ts_us < b.ts_us;
            });
  for (std::size_t i = 0; i < marks.size(); ++i) {
    idle_time(stretches, marks[i], steps[i]);
    const double from = marks[i].ts_us, to = marks[i].ts_us + marks[i].dur_us;
    const auto first =
        std::lower_bound(raw.blocking.begin(), raw.blocking.end(), from,
                         [](const detail::BlockingCall& c, double t) { return c.ts_us < t; });
    for (auto c = first; c != raw.blocking.end() && c->ts_us < to; ++c) {
      if (marks[i].tid >= 0 && c->tid >= 0 && c->tid != marks[i].tid) continue;
      if (c->copy && !std::binary_search(to_host.begin(), to_host.end(), c->correlation)) continue;
      ++steps[i].syncs;
      steps[i].sync_ms += c->dur_us / kUsPerMs;
    }
  }
  std::sort(steps.begin(), steps.end(),
            [](const StepSummary& a, const StepSummary& b) { return a.step < b.step; });
  return steps;
}

}  // namespace

Result<RankTrace> summarize_trace_file(const std::string& path, const TraceOptions& options) {
  Result<RawTrace> raw = detail::read_trace_events(path, options.step_prefix);
  if (!raw) return raw.status();
  if (raw->steps.empty()) {
    return Status::invalid_argument(
        path + ": no annotation named " + options.step_prefix +
        "..., so no steps to summarize: record the trace with torch.profiler.profile(schedule=...) "
        "and call prof.step() once per iteration, or name your own step annotation (--step-name)");
  }
  RankTrace r;
  r.file = path;
  r.rank = raw->rank;
  r.world_size = raw->world_size;
  r.device = raw->device;
  r.steps = summarize_steps(*raw, options.spans);
  return r;
}

HostWait host_wait(const RankTrace& rank) {
  std::vector<double> shares;
  for (const StepSummary& s : rank.steps) {
    shares.push_back(s.step_ms > 0.0 ? std::min(1.0, s.host_wait_ms / s.step_ms) : 0.0);
  }
  HostWait h;
  if (!shares.empty()) h.share = kernels::summarize(std::move(shares)).median_ms;
  h.verdict = sim::host_verdict(h.share);
  return h;
}

Result<TraceSummary> summarize_traces(const std::vector<std::string>& paths,
                                      const TraceOptions& options) {
  Result<std::vector<std::string>> listed = detail::trace_files(paths);
  if (!listed) return listed.status();
  const std::vector<std::string>& files = *listed;
  TraceSummary out;
  for (const std::string& f : files) {
    Result<RankTrace> r = summarize_trace_file(f, options);
    if (!r) return r.status();
    out.ranks.push_back(std::move(r).value());
  }
  std::stable_sort(out.ranks.begin(), out.ranks.end(), [](const RankTrace& a, const RankTrace& b) {
    return a.rank < b.rank || (a.rank == b.rank && a.file < b.file);
  });
  for (std::size_t i = 1; i < out.ranks.size(); ++i) {
    const RankTrace& a = out.ranks[i - 1];
    const RankTrace& b = out.ranks[i];
    if (a.rank >= 0 && a.rank == b.rank) {
      return Status::invalid_argument(a.file + " and " + b.file + " are both rank " +
                                      std::to_string(a.rank) + " (distributedInfo.rank)");
    }
  }
  align_ranks(out);
  return out;
}

namespace {

// The phases the rules can name, in simulation order, then "other".
constexpr sim::Phase kTracePhases[] = {sim::Phase::kInputDist,   sim::Phase::kFwdCompute,
                                       sim::Phase::kOutputDist,  sim::Phase::kDenseFwd,
                                       sim::Phase::kDenseBwd,    sim::Phase::kBwdOutputDist,
                                       sim::Phase::kBwdCompute,  sim::Phase::kDdpAllreduce,
                                       sim::Phase::kDpAllreduce, sim::Phase::kDenseOptimizer};

nlohmann::ordered_json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

nlohmann::ordered_json phases_json(const StepSummary& s) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (sim::Phase p : kTracePhases)
    out[std::string(sim::to_string(p))] = s.phase_ms[static_cast<size_t>(p)];
  out["other"] = s.other_ms;
  return out;
}

}  // namespace

std::string summary_to_json(const TraceSummary& summary, int indent) {
  using Json = nlohmann::ordered_json;
  Json ranks = Json::array();
  for (const RankTrace& r : summary.ranks) {
    Json steps = Json::array();
    for (const StepSummary& s : r.steps) {
      steps.push_back(Json{{"step", s.step},
                           {"step_ms", s.step_ms},
                           {"start_ms", s.start_ms},
                           {"kernels", s.kernels},
                           {"gpu_events", s.gpu_events},
                           {"gpu_busy_ms", s.gpu_busy_ms},
                           {"nccl_ms", s.nccl_ms},
                           {"tbe_ms", s.tbe_ms},
                           {"gemm_ms", s.gemm_ms},
                           {"gpu_idle_ms", s.gpu_idle_ms},
                           {"host_wait_ms", s.host_wait_ms},
                           {"syncs", s.syncs},
                           {"sync_ms", s.sync_ms},
                           {"nccl_wait_ms", optional_json(s.nccl_wait_ms)},
                           {"nccl_transfer_ms", optional_json(s.nccl_transfer_ms)},
                           {"last_to_arrive", s.last_to_arrive},
                           {"phases_ms", phases_json(s)}});
    }
    const HostWait h = host_wait(r);
    ranks.push_back(Json{{"rank", r.rank},
                         {"world_size", r.world_size},
                         {"file", r.file},
                         {"host_wait_share", h.share},
                         {"host_verdict", h.verdict},
                         {"clock_offset_ms", optional_json(r.clock_offset_ms)},
                         {"steps", std::move(steps)}});
  }
  const Alignment& a = summary.alignment;
  Json held = Json::array();
  for (const HeldBack& b : a.held_back) {
    held.push_back(Json{{"step", b.step},
                        {"rank", b.rank},
                        {"last_of", b.last_of},
                        {"collectives", b.collectives},
                        {"others_waited_ms", b.others_waited_ms}});
  }
  Json alignment{{"aligned", a.aligned}, {"why", a.why}, {"held_back", std::move(held)}};
  return Json{{"ranks", std::move(ranks)}, {"alignment", std::move(alignment)}}.dump(
      indent, ' ', false, Json::error_handler_t::replace);
}

std::vector<std::pair<std::string, double>> headline(const TraceSummary& summary) {
  using Field = double StepSummary::*;
  static constexpr std::pair<const char*, Field> kMedians[] = {
      {"iteration_ms", &StepSummary::step_ms},    {"gpu_busy_ms", &StepSummary::gpu_busy_ms},
      {"gpu_idle_ms", &StepSummary::gpu_idle_ms}, {"host_wait_ms", &StepSummary::host_wait_ms},
      {"nccl_ms", &StepSummary::nccl_ms},         {"tbe_ms", &StepSummary::tbe_ms},
      {"gemm_ms", &StepSummary::gemm_ms}};
  std::vector<std::pair<std::string, double>> out;
  int64_t steps = 0;
  int world_size = -1;
  for (const RankTrace& r : summary.ranks) {
    steps += static_cast<int64_t>(r.steps.size());
    world_size = std::max(world_size, r.world_size);
  }
  if (steps == 0) return out;
  const auto median = [&](auto value_of) {
    std::vector<double> samples;
    samples.reserve(static_cast<size_t>(steps));
    for (const RankTrace& r : summary.ranks) {
      for (const StepSummary& s : r.steps) samples.push_back(value_of(s));
    }
    return kernels::summarize(std::move(samples)).median_ms;
  };
  for (const auto& [name, field] : kMedians)
    out.emplace_back(name, median([field](const StepSummary& s) { return s.*field; }));
  out.emplace_back("kernels",
                   median([](const StepSummary& s) { return static_cast<double>(s.kernels); }));
  out.emplace_back("ranks", static_cast<double>(summary.ranks.size()));
  out.emplace_back("steps", static_cast<double>(steps));
  out.emplace_back("world_size", static_cast<double>(world_size));
  return out;
}

std::string summary_text(const TraceSummary& summary) {
  std::ostringstream out;
  char line[256];
  for (const RankTrace& r : summary.ranks) {
    const std::string who =
        r.rank < 0 ? std::string("rank unknown")
                   : "rank " + std::to_string(r.rank) + " of " + std::to_string(r.world_size);
    out << who << " (" << r.file << "): " << r.steps.size()
        << (r.steps.size() == 1 ? " step\n" : " steps\n");
    std::snprintf(line, sizeof line, "  %10s %11s %8s %12s %10s %10s %10s\n", "step", "step_ms",
                  "kernels", "gpu_busy_ms", "nccl_ms", "tbe_ms", "gemm_ms");
    out << line;
    for (const StepSummary& s : r.steps) {
      std::snprintf(line, sizeof line, "  %10lld %11.3f %8lld %12.3f %10.3f %10.3f %10.3f\n",
                    static_cast<long long>(s.step), s.step_ms, static_cast<long long>(s.kernels),
                    s.gpu_busy_ms, s.nccl_ms, s.tbe_ms, s.gemm_ms);
      out << line;
    }
    out << "  GPU ms by phase:\n";
    for (const StepSummary& s : r.steps) {
      out << "  " << std::string(10 - std::min<size_t>(10, std::to_string(s.step).size()), ' ')
          << s.step;
      for (sim::Phase p : kTracePhases) {
        const double ms = s.phase_ms[static_cast<size_t>(p)];
        if (ms <= 0.0) continue;
        std::snprintf(line, sizeof line, " %s %.3f", std::string(sim::to_string(p)).c_str(), ms);
        out << line;
      }
      std::snprintf(line, sizeof line, " other %.3f\n", s.other_ms);
      out << line;
    }
    std::snprintf(line, sizeof line, "  host side:\n  %10s %11s %12s %8s %10s\n", "step",
                  "gpu_idle_ms", "host_wait_ms", "syncs", "sync_ms");
    out << line;
    for (const StepSummary& s : r.steps) {
      std::snprintf(line, sizeof line, "  %10lld %11.3f %12.3f %8lld %10.3f\n",
                    static_cast<long long>(s.step), s.gpu_idle_ms, s.host_wait_ms,
                    static_cast<long long>(s.syncs), s.sync_ms);
      out << line;
    }
    const HostWait h = host_wait(r);
    std::snprintf(line, sizeof line,
                  "  the GPU waited for the host %.0f%% of the step (median): %s\n",
                  100.0 * h.share, h.verdict.c_str());
    out << line;
    if (r.clock_offset_ms) {
      std::snprintf(line, sizeof line,
                    "  across ranks (clock %+.3f ms from rank 0's):\n  %10s %13s %17s %15s\n",
                    *r.clock_offset_ms, "step", "nccl_wait_ms", "nccl_transfer_ms",
                    "last_to_arrive");
      out << line;
      for (const StepSummary& s : r.steps) {
        if (!s.nccl_wait_ms) continue;
        std::snprintf(line, sizeof line, "  %10lld %13.3f %17.3f %15d\n",
                      static_cast<long long>(s.step), *s.nccl_wait_ms, *s.nccl_transfer_ms,
                      s.last_to_arrive);
        out << line;
      }
    }
  }
  const Alignment& a = summary.alignment;
  for (const HeldBack& b : a.held_back) {
    std::snprintf(line, sizeof line,
                  "step %lld: rank %d held the others back (last to arrive at %d of %d "
                  "collectives; the others waited %.3f ms for it)\n",
                  static_cast<long long>(b.step), b.rank, b.last_of, b.collectives,
                  b.others_waited_ms);
    out << line;
  }
  if (!a.why.empty() && summary.ranks.size() > 1) out << "across ranks: " << a.why << "\n";
  std::string text = out.str();
  if (!text.empty()) text.pop_back();  // the caller ends the output's last line
  return text;
}

namespace detail {

bool is_trace_file(const fs::path& p) {
  const std::string name = p.filename().string();
  const auto ends = [&](const std::string& suffix) {
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".json") || ends(".json.gz");
}

Result<std::vector<std::string>> trace_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      files.push_back(p);
      continue;
    }
    std::vector<std::string> found;
    for (const fs::directory_entry& e : fs::directory_iterator(p, ec)) {
      if (e.is_regular_file(ec) && is_trace_file(e.path())) found.push_back(e.path().string());
    }
    if (ec) return Status::invalid_argument(p + ": cannot list the folder: " + ec.message());
    if (found.empty()) {
      return Status::invalid_argument(p + ": no trace files (*.json, *.json.gz) in this folder");
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  if (files.empty()) return Status::invalid_argument("no trace files given");
  return files;
}

}  // namespace detail

}  // namespace shardlab::trace
