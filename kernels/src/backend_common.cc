#include "backend_common.h"

#include <cmath>
#include <numeric>
#include <set>
#include <sstream>
#include <string_view>

#include "shardlab/kernels/cpu_collectives.h"

namespace shardlab::kernels {
namespace {

// Bytes per second of `bytes` moved in `ms`; 0 when the clock saw no time.
double per_second(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) : 0.0; }

}  // namespace

int replay_phase_index(sim::Phase p) {
  for (int i = 0; i < kNumReplayPhases; ++i) {
    if (kReplayPhases[i] == p) return i;
  }
  return -1;
}

bool replays_collective(const sim::CollectiveSpec& spec, bool training) {
  if (spec.kind == sim::CollectiveKind::kEstimate) return false;
  for (const ReplayStep& step : kReplaySteps) {
    if (step.phase == spec.phase) return !step.lookups && runs_step(step, training);
  }
  return false;
}

std::vector<ReplayedCollective> replayed_collectives(
    const std::vector<sim::CollectiveSpec>& collectives, bool training,
    const std::vector<int>& ranks) {
  std::vector<ReplayedCollective> out;
  for (size_t c = 0; c < collectives.size(); ++c) {
    if (!replays_collective(collectives[c], training)) continue;
    ReplayedCollective rc{static_cast<int>(c), restrict_collective(collectives[c], ranks)};
    if (rc.spec.members.size() >= 2) out.push_back(std::move(rc));
  }
  return out;
}

namespace {

// "<what> <value>: <why>" as an invalid_argument Status (doubles shortest).
template <typename T>
Status refused(std::string_view what, T value, std::string_view why) {
  std::ostringstream out;
  out << what << ' ' << value << ": " << why;
  return Status::invalid_argument(out.str());
}

}  // namespace

Status check_replay_options(const ReplayWorkload& workload, const ReplayOptions& options) {
  if (options.iterations < 1)
    return refused("replay iterations", options.iterations, "must be at least 1");
  if (options.warmup < 0)
    return refused("replay warm-up iterations", options.warmup, "must not be negative");
  if (options.ids == IdDistribution::kZipf &&
      (!(options.zipf_alpha > 0) || !std::isfinite(options.zipf_alpha) ||
       options.zipf_alpha == 1.0)) {
    return refused("Zipf exponent", options.zipf_alpha, "must be finite, > 0 and != 1");
  }
  if (!std::isfinite(options.learning_rate)) {
    return refused("learning rate", options.learning_rate, "must be finite");
  }
  for (int r : options.ranks) {
    if (r < 0 || r >= workload.world_size) {
      return refused("replayed rank", r,
                     "the workload has ranks 0.." + std::to_string(workload.world_size - 1));
    }
  }
  return Status::ok();
}

Status check_bench_options(const KernelBenchOptions& o) {
  if (o.rows.empty() || o.dims.empty() || o.pooling_factors.empty()) {
    return Status::invalid_argument(
        "kernel benchmark: rows, dims and pooling factors need at least one value each");
  }
  for (int64_t r : o.rows) {
    if (r < 1) return refused("kernel benchmark: rows", r, "must be at least 1");
  }
  for (int64_t d : o.dims) {
    if (d < 1) return refused("kernel benchmark: dim", d, "must be at least 1");
  }
  for (double p : o.pooling_factors) {
    if (!(p >= 0) || !std::isfinite(p)) {
      return refused("kernel benchmark: pooling factor", p, "must be finite and >= 0");
    }
  }
  if (o.bags < 1) return refused("kernel benchmark: bags", o.bags, "must be at least 1");
  if (o.iterations < 1)
    return refused("kernel benchmark: iterations", o.iterations, "must be at least 1");
  if (o.warmup < 0)
    return refused("kernel benchmark: warm-up iterations", o.warmup, "must not be negative");
  return Status::ok();
}

std::vector<int> replayed_ranks(const ReplayWorkload& workload, const ReplayOptions& options) {
  if (options.ranks.empty()) {
    std::vector<int> all(static_cast<size_t>(workload.world_size));
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  const std::set<int> unique(options.ranks.begin(), options.ranks.end());
  return {unique.begin(), unique.end()};
}

std::string iteration_progress(int it, const ReplayOptions& options) {
  return it >= options.warmup
             ? "iteration " + std::to_string(it - options.warmup + 1) + " of " +
                   std::to_string(options.iterations)
             : "warm-up " + std::to_string(it + 1) + " of " + std::to_string(options.warmup);
}

void PhaseTotals::add(sim::Phase p, double ms) {
  const int i = replay_phase_index(p);
  sum_[i] += ms;
  used_[i] = true;
}

void PhaseTotals::end_iteration() {
  for (int i = 0; i < kNumReplayPhases; ++i) {
    if (used_[i]) ms_[i].push_back(sum_[i]);
    sum_[i] = 0.0;
    used_[i] = false;
  }
}

Measurement lookup_measurement(const ShardWork& work, int rank, bool forward) {
  Measurement m;
  m.rank = rank;
  m.phase = forward ? sim::Phase::kFwdCompute : sim::Phase::kBwdCompute;
  m.option = work.option;
  m.shard = work.shard;
  m.table = work.table;
  m.sharding_type = work.sharding_type;
  m.compute_kernel = work.compute_kernel;
  m.dim = work.dim;
  m.precision = work.precision;
  m.bags = work.bags;
  m.pooling_factor = work.pooling_factor;
  m.model_bytes = work.model_fwd_bytes;
  m.estimated_ms = forward ? work.estimated_fwd_ms : work.estimated_bwd_ms;
  return m;
}

KernelBenchRow bench_row(const KernelBenchOptions& options, int64_t rows, int64_t dim,
                         double pooling, const BenchSamples& samples) {
  KernelBenchRow row;
  row.rows = rows;
  row.dim = dim;
  row.pooling_factor = pooling;
  row.bags = options.bags;
  row.precision = options.precision;
  row.forward = summarize(samples.fwd_ms);
  row.backward = summarize(samples.bwd_ms);
  row.forward_bytes = samples.fwd_bytes / options.iterations;
  row.backward_bytes = samples.bwd_bytes / options.iterations;
  row.forward_bytes_per_s = per_second(row.forward_bytes, row.forward.median_ms);
  row.backward_bytes_per_s = per_second(row.backward_bytes, row.backward.median_ms);
  return row;
}

}  // namespace shardlab::kernels
