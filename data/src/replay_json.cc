#include "shardlab/data/replay_json.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <map>
#include <string>

#include "json_writer.h"

namespace shardlab::data {
namespace {

using internal::JsonWriter;

void write_timing(JsonWriter& w, const kernels::TimingSummary& t) {
  w.begin_object();
  w.member("median_ms", t.median_ms);
  w.member("p90_ms", t.p90_ms);
  w.member("min_ms", t.min_ms);
  w.member("samples", t.samples);
  w.end_object();
}

void write_measurement(JsonWriter& w, const kernels::Measurement& m) {
  const bool lookup = m.collective < 0;
  w.begin_object();
  w.member("rank", m.rank);
  w.member("phase", sim::to_string(m.phase));
  if (lookup) {
    w.member("option", m.option);
    w.member("shard", m.shard);
    w.member("table", m.table);
    w.member("sharding_type", planner::to_string(m.sharding_type));
    w.member("compute_kernel", planner::to_string(m.compute_kernel));
    w.member("dim", m.dim);
    w.member("precision", kernels::to_string(m.precision));
    w.member("bags", m.bags);
    w.member("pooling_factor", m.pooling_factor);
  } else {
    w.member("collective", m.collective);
    w.member("collective_kind", sim::to_string(m.collective_kind));
    w.member("members", m.members);
    w.member("inter_host", m.inter_host);
  }
  w.member("bytes", m.bytes);
  w.member("model_bytes", m.model_bytes);
  w.member("estimated_ms", m.estimated_ms);
  w.member("median_ms", m.timing.median_ms);
  w.member("p90_ms", m.timing.p90_ms);
  w.member("min_ms", m.timing.min_ms);
  w.member("samples", m.timing.samples);
  // Achieved bandwidth over the median (bytes.h's count for lookups, bytes sent for collectives).
  w.member("bytes_per_s", m.timing.median_ms > 0 ? m.bytes / (m.timing.median_ms * 1e-3) : 0.0);
  w.member("wrong_elements", m.wrong_elements);
  w.end_object();
}

// The double whose shortest form is the float's shortest form (0.01f -> 0.01,
// not 0.009999999776482582).
double float_as_written(float f) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, f).ptr;
  return std::strtod(std::string(buf, end).c_str(), nullptr);
}

void optional_member(JsonWriter& w, const char* key, const std::optional<double>& v) {
  if (v) {
    w.member(key, *v);
  } else {
    w.null_member(key);
  }
}

}  // namespace

ReplaySummary summarize_replay(const kernels::ReplayResult& result,
                               const std::vector<kernels::PhaseComparison>& phases) {
  ReplaySummary s;
  // Slowest rank per phase: phases are separated by barriers, so an
  // iteration lasts the sum of each phase's slowest rank.
  std::map<sim::Phase, double> measured, estimated, simulated;
  for (const kernels::PhaseComparison& p : phases) {
    if (p.measured.samples > 0)
      measured[p.phase] = std::max(measured[p.phase], p.measured.median_ms);
    if (p.estimate_ms) estimated[p.phase] = std::max(estimated[p.phase], *p.estimate_ms);
    if (p.simulated_ms) simulated[p.phase] = std::max(simulated[p.phase], *p.simulated_ms);
  }
  for (const auto& [phase, ms] : measured) s.median_iteration_ms += ms;
  for (const auto& [phase, ms] : estimated) s.estimated_iteration_ms += ms;
  for (const auto& [phase, ms] : simulated) s.simulated_iteration_ms += ms;
  for (const kernels::Measurement& m : result.measurements)
    ++(m.collective < 0 ? s.lookups : s.collectives);
  return s;
}

std::string replay_to_json(const ReplaySettings& settings, const kernels::ReplayResult& result,
                           const std::vector<kernels::PhaseComparison>& phases, int indent) {
  JsonWriter w(indent);
  w.begin_object();
  w.member("scenario", settings.scenario);
  w.member("plan", settings.plan_path);
  w.member("backend", result.backend);
  w.member("device", result.device_name);
  w.member("world_size", result.world_size);
  w.member("devices_used", result.devices_used);
  w.key("ranks");
  w.begin_array();
  for (int r : settings.ranks) w.value(r);
  w.end_array();
  w.member("warmup", result.warmup);
  w.member("iterations", result.iterations);

  const kernels::ReplayOptions& o = settings.options;
  w.key("settings");
  w.begin_object();
  w.member("optimizer", kernels::to_string(settings.optimizer));
  w.member("learning_rate", float_as_written(o.learning_rate));
  w.member("max_rows", settings.max_rows);
  w.member("ids", o.ids == kernels::IdDistribution::kZipf ? "zipf" : "uniform");
  w.member("zipf_alpha", o.zipf_alpha);
  w.member("pooling", o.pooling == kernels::PoolingDistribution::kPoisson ? "poisson" : "fixed");
  w.member("seed", static_cast<int64_t>(o.seed));
  w.end_object();

  const ReplaySummary s = summarize_replay(result, phases);
  w.key("summary");
  w.begin_object();
  w.member("median_iteration_ms", s.median_iteration_ms);
  w.member("estimated_iteration_ms", s.estimated_iteration_ms);
  w.member("simulated_iteration_ms", s.simulated_iteration_ms);
  w.member("lookups", s.lookups);
  w.member("collectives", s.collectives);
  w.end_object();

  w.key("phases");
  w.begin_array();
  for (const kernels::PhaseComparison& p : phases) {
    w.begin_object();
    w.member("rank", p.rank);
    w.member("phase", sim::to_string(p.phase));
    w.key("measured");
    if (p.measured.samples > 0) {
      write_timing(w, p.measured);
    } else {
      w.null();
    }
    optional_member(w, "estimate_ms", p.estimate_ms);
    optional_member(w, "simulated_ms", p.simulated_ms);
    w.end_object();
  }
  w.end_array();

  w.key("measurements");
  w.begin_array();
  for (const kernels::Measurement& m : result.measurements) write_measurement(w, m);
  w.end_array();
  w.end_object();
  return std::move(w).take();
}

std::string kernel_bench_to_json(const kernels::KernelBenchResult& result, int indent) {
  JsonWriter w(indent);
  w.begin_object();
  w.member("backend", result.backend);
  w.member("device", result.device_name);
  w.member("copy_bytes_per_s", result.copy_bytes_per_s);
  w.key("rows");
  w.begin_array();
  const double copy = result.copy_bytes_per_s;
  for (const kernels::KernelBenchRow& r : result.rows) {
    w.begin_object();
    w.member("rows", r.rows);
    w.member("dim", r.dim);
    w.member("pooling_factor", r.pooling_factor);
    w.member("bags", r.bags);
    w.member("precision", kernels::to_string(r.precision));
    w.key("forward");
    write_timing(w, r.forward);
    w.key("backward");
    write_timing(w, r.backward);
    w.member("forward_bytes", r.forward_bytes);
    w.member("backward_bytes", r.backward_bytes);
    w.member("forward_bytes_per_s", r.forward_bytes_per_s);
    w.member("backward_bytes_per_s", r.backward_bytes_per_s);
    w.member("forward_copy_fraction", copy > 0 ? r.forward_bytes_per_s / copy : 0.0);
    w.member("backward_copy_fraction", copy > 0 ? r.backward_bytes_per_s / copy : 0.0);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return std::move(w).take();
}

}  // namespace shardlab::data
