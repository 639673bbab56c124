// The GEMM roofline fitted to measured matrix products (calibration.h
// fit_gemm_efficiency): per arithmetic, a seeded split, then a
// two-parameter search in log space.
#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "calibration_common.h"
#include "shardlab/kernels/calibration.h"
#include "shardlab/sim/dense_model.h"

namespace shardlab::kernels {
namespace {

constexpr double kMinEfficiency = 0.001;
constexpr double kMaxEfficiency = 1.0;

// A record as the model sees it: the compute time at efficiency 1 and the
// memory time (both without the kernel time), and the measured median.
struct Point {
  double compute_at_1 = 0.0;
  double memory = 0.0;
  double measured = 0.0;
};

Point point_of(const planner::GpuSpec& gpu, double hbm_bw, const GemmRecord& r) {
  planner::GpuSpec g = gpu;
  g.gemm.kernel_ms = 0.0;
  const auto p = static_cast<size_t>(r.precision);
  g.gemm.max_efficiency[p] = 1.0;
  const double compute = r.gemm.flops() / sim::gemm_flop_rate(g, r.precision, r.gemm);
  // The memory bound alone: the roofline at an efficiency too high to bind.
  g.gemm.max_efficiency[p] = 1e30;
  return {.compute_at_1 = compute,
          .memory = sim::gemm_time_ms(g, hbm_bw, r.precision, r.gemm),
          .measured = r.timing.median_ms};
}

double model_ms(const Point& x, double eff, double kernel_ms) {
  return std::max(x.compute_at_1 / eff, x.memory) + kernel_ms;
}

double log_error(const std::vector<Point>& pts, double eff, double kernel_ms) {
  double sum = 0.0;
  for (const Point& x : pts) {
    const double r = std::log(model_ms(x, eff, kernel_ms) / x.measured);
    sum += r * r;
  }
  return sum;
}

// Golden-section minimum of f on [a, b].
template <typename F>
double golden(F f, double a, double b, int steps = 50) {
  const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int i = 0; i < steps; ++i) {
    const double c = b - phi * (b - a), d = a + phi * (b - a);
    if (f(c) <= f(d)) {
      b = d;
    } else {
      a = c;
    }
  }
  return (a + b) / 2.0;
}

struct Params {
  double eff = 1.0;
  double kernel_ms = 0.0;
};

// The kernel time that minimises the error at efficiency `eff`, in
// [0, the shortest measured time).
double best_kernel_ms(const std::vector<Point>& pts, double eff) {
  double shortest = pts.front().measured;
  for (const Point& x : pts) shortest = std::min(shortest, x.measured);
  return golden([&](double t) { return log_error(pts, eff, t); }, 0.0, 0.999 * shortest);
}

Params best_params(const std::vector<Point>& pts) {
  constexpr int kScan = 200;
  const double lo = std::log(kMinEfficiency), hi = std::log(kMaxEfficiency);
  const auto err_at = [&](double log_eff) {
    const double eff = std::exp(log_eff);
    return log_error(pts, eff, best_kernel_ms(pts, eff));
  };
  int best = 0;
  double best_err = err_at(lo);
  for (int i = 1; i <= kScan; ++i) {
    const double err = err_at(lo + (hi - lo) * i / kScan);
    if (err < best_err) {
      best_err = err;
      best = i;
    }
  }
  const double log_eff = golden(err_at, lo + (hi - lo) * std::max(0, best - 1) / kScan,
                                lo + (hi - lo) * std::min(kScan, best + 1) / kScan);
  const double eff = std::exp(log_eff);
  return {.eff = eff, .kernel_ms = best_kernel_ms(pts, eff)};
}

// A number in its shortest form ("0.007", "0.001").
std::string shortest_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::optional<double> mape(const std::vector<Point>& pts, double eff, double kernel_ms) {
  internal::ErrorSum e;
  for (const Point& x : pts) e.add(model_ms(x, eff, kernel_ms), x.measured);
  return e.mape();
}

}  // namespace

Result<std::vector<GemmFit>> fit_gemm_efficiency(const std::vector<GemmRecord>& records,
                                                 const planner::GpuSpec& gpu, double hbm_bw,
                                                 const CalibrationOptions& options,
                                                 std::vector<std::string>* notes) {
  if (Status st = internal::check_calibration_options(options); !st) return st;
  if (!(std::isfinite(hbm_bw) && hbm_bw > 0.0)) {
    return Status::invalid_argument("calibration: GEMM fit: hbm bandwidth must be > 0 bytes/ms");
  }
  std::array<std::vector<size_t>, planner::kNumPrecisions> by_precision;
  std::array<int, planner::kNumPrecisions> no_peak{};
  for (size_t i = 0; i < records.size(); ++i) {
    const GemmRecord& r = records[i];
    const auto p = static_cast<size_t>(r.precision);
    if (!(r.timing.median_ms > 0.0) || r.gemm.flops() <= 0.0) continue;
    if (!(gpu.peak_flops[p] > 0.0)) {
      ++no_peak[p];
      continue;
    }
    by_precision[p].push_back(i);
  }
  std::vector<GemmFit> out;
  for (int p = 0; p < planner::kNumPrecisions; ++p) {
    const auto precision = static_cast<planner::Precision>(p);
    const std::string name(planner::to_string(precision));
    if (const int n = no_peak[static_cast<size_t>(p)]; n > 0 && notes != nullptr) {
      notes->push_back(std::to_string(n) + " matrix product" + (n == 1 ? "" : "s") + " in " + name +
                       " left out: " + gpu.name + " has no " + name + " peak");
    }
    if (by_precision[static_cast<size_t>(p)].empty()) continue;
    HoldoutSplit split;
    internal::split_group(by_precision[static_cast<size_t>(p)], options.holdout_fraction,
                          options.seed, "gemm " + name, &split);
    std::sort(split.fit.begin(), split.fit.end());
    std::sort(split.held_out.begin(), split.held_out.end());
    const auto points = [&](const std::vector<size_t>& recs) {
      std::vector<Point> pts;
      for (size_t i : recs) pts.push_back(point_of(gpu, hbm_bw, records[i]));
      return pts;
    };
    const std::vector<Point> fit = points(split.fit), held = points(split.held_out);
    const Params best = best_params(fit);
    if (notes != nullptr) {
      double shortest = fit.front().measured;
      for (const Point& x : fit) shortest = std::min(shortest, x.measured);
      if (best.kernel_ms >= 0.99 * shortest) {
        notes->push_back("gemm " + name +
                         ": the fixed kernel time sits at its bound, the shortest " +
                         "product measured (" + shortest_text(shortest) +
                         " ms): the short products take longer than any fixed time the others "
                         "allow");
      }
      if (best.eff >= 0.99 * kMaxEfficiency || best.eff <= 1.01 * kMinEfficiency) {
        notes->push_back("gemm " + name + ": the efficiency sits at a bound of [" +
                         shortest_text(kMinEfficiency) + ", 1]");
      }
    }
    GemmFit f{.precision = precision,
              .preset = gpu.gemm.max_efficiency[static_cast<size_t>(p)],
              .preset_kernel_ms = gpu.gemm.kernel_ms,
              .fitted = best.eff,
              .fitted_kernel_ms = best.kernel_ms,
              .fit_count = static_cast<int>(fit.size()),
              .held_out = static_cast<int>(held.size())};
    if (f.preset > 0.0) {
      f.mape_before = mape(held, f.preset, f.preset_kernel_ms);
      f.fit_mape_before = mape(fit, f.preset, f.preset_kernel_ms);
    }
    f.mape_after = mape(held, f.fitted, f.fitted_kernel_ms);
    f.fit_mape_after = mape(fit, f.fitted, f.fitted_kernel_ms);
    out.push_back(f);
  }
  if (out.empty()) {
    return Status::invalid_argument(
        "no matrix product to fit: the traces hold no aten::mm/addmm/bmm with recorded shapes "
        "and kernels in an arithmetic " +
        gpu.name + " has a peak for");
  }
  return out;
}

}  // namespace shardlab::kernels
