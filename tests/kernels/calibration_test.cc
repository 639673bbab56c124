// Calibration: NNLS against known and brute-force answers, the fit against
// measurements generated from chosen constants with 1% noise (every parameter
// back within 2%), the holdout split, and the fallbacks when data is short.

#include "shardlab/kernels/calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "shardlab/planner/estimators.h"

namespace shardlab::kernels {
namespace {

using planner::ComputeKernel;
using planner::CostCalibration;
using planner::DimClass;

// ---- NNLS ------------------------------------------------------------------

std::vector<double> solve(const std::vector<std::vector<double>>& rows,
                          const std::vector<double>& b) {
  std::vector<double> a;
  for (const auto& r : rows) a.insert(a.end(), r.begin(), r.end());
  auto x = nnls(a, static_cast<int>(rows.size()), static_cast<int>(rows.front().size()), b);
  EXPECT_TRUE(x.is_ok()) << x.status().message();
  return x.is_ok() ? *x : std::vector<double>{};
}

TEST(Nnls, InteriorSolutionIsTheLeastSquaresSolution) {
  // Consistent system: x = (1, 2) with zero residual.
  const auto x = solve({{1, 0}, {0, 1}, {1, 1}}, {1, 2, 3});
  ASSERT_EQ(x.size(), 2u);
  EXPECT_NEAR(x[0], 1.0, 1e-12);
  EXPECT_NEAR(x[1], 2.0, 1e-12);
}

TEST(Nnls, ActiveConstraints) {
  // Unconstrained optimum (2, -1); with x >= 0 the optimum is (1, 0): any
  // x2 > 0 costs (x2 + 1)^2 > 1 in the second row alone.
  const auto x = solve({{1, 1}, {0, 1}}, {1, -1});
  ASSERT_EQ(x.size(), 2u);
  EXPECT_NEAR(x[0], 1.0, 1e-12);
  EXPECT_EQ(x[1], 0.0);

  const auto y = solve({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {1, -1, 2});
  ASSERT_EQ(y.size(), 3u);
  EXPECT_NEAR(y[0], 1.0, 1e-12);
  EXPECT_EQ(y[1], 0.0);
  EXPECT_NEAR(y[2], 2.0, 1e-12);

  // Everything negative: x = 0.
  const auto z = solve({{1, 0}, {0, 1}}, {-1, -3});
  EXPECT_EQ(z, (std::vector<double>{0.0, 0.0}));
}

// The optimum by enumeration: least squares on every subset of columns, the
// best feasible one wins (normal equations in long double; n is tiny).
std::vector<double> brute_force(const std::vector<std::vector<double>>& a,
                                const std::vector<double>& b) {
  const size_t m = a.size(), n = a.front().size();
  double best = std::numeric_limits<double>::infinity();
  std::vector<double> best_x(n, 0.0);
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<size_t> cols;
    for (size_t j = 0; j < n; ++j) {
      if (mask & (1u << j)) cols.push_back(j);
    }
    const size_t k = cols.size();
    std::vector<std::vector<long double>> g(k, std::vector<long double>(k + 1, 0.0L));
    for (size_t p = 0; p < k; ++p) {
      for (size_t q = 0; q < k; ++q) {
        for (size_t i = 0; i < m; ++i)
          g[p][q] += static_cast<long double>(a[i][cols[p]]) * a[i][cols[q]];
      }
      for (size_t i = 0; i < m; ++i) g[p][k] += static_cast<long double>(a[i][cols[p]]) * b[i];
    }
    bool ok = true;
    for (size_t p = 0; p < k && ok; ++p) {  // Gauss-Jordan with partial pivoting
      size_t piv = p;
      for (size_t r = p + 1; r < k; ++r) {
        if (std::fabs(g[r][p]) > std::fabs(g[piv][p])) piv = r;
      }
      std::swap(g[p], g[piv]);
      if (std::fabs(g[p][p]) < 1e-18L) ok = false;
      for (size_t r = 0; r < k && ok; ++r) {
        if (r == p) continue;
        const long double f = g[r][p] / g[p][p];
        for (size_t c = p; c <= k; ++c) g[r][c] -= f * g[p][c];
      }
    }
    if (!ok) continue;
    std::vector<double> x(n, 0.0);
    for (size_t p = 0; p < k; ++p) x[cols[p]] = static_cast<double>(g[p][k] / g[p][p]);
    if (std::any_of(x.begin(), x.end(), [](double v) { return v < 0.0; })) continue;
    double r2 = 0.0;
    for (size_t i = 0; i < m; ++i) {
      double r = -b[i];
      for (size_t j = 0; j < n; ++j) r += a[i][j] * x[j];
      r2 += r * r;
    }
    if (r2 < best) {
      best = r2;
      best_x = x;
    }
  }
  return best_x;
}

TEST(Nnls, MatchesEnumerationOnRandomProblems) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  int with_active = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 2 + trial % 4, m = n + 2 + trial % 5;
    std::vector<std::vector<double>> a(m, std::vector<double>(n));
    std::vector<double> b(m);
    for (auto& row : a) {
      for (double& v : row) v = normal(rng);
    }
    for (double& v : b) v = normal(rng);
    const auto x = solve(a, b);
    const auto want = brute_force(a, b);
    ASSERT_EQ(x.size(), n);
    for (size_t j = 0; j < n; ++j) {
      EXPECT_GE(x[j], 0.0);
      EXPECT_NEAR(x[j], want[j], 1e-9) << "trial " << trial << " column " << j;
    }
    if (std::count(want.begin(), want.end(), 0.0) > 0) ++with_active;
  }
  EXPECT_GT(with_active, 50);  // the problems do exercise the constraints
}

TEST(Nnls, RefusesBadInput) {
  EXPECT_EQ(nnls({1, 2, 3}, 2, 2, {1, 2}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(nnls({1, 2, 3, 4}, 2, 2, {1}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(nnls({1, std::nan(""), 3, 4}, 2, 2, {1, 2}).status().code(),
            StatusCode::kInvalidArgument);
}

// ---- Synthetic measurements --------------------------------------------------

// Constants far from TorchRec's defaults (HBM 897 GiB/s, block penalties,
// multiplier 2, NVLink 600 GiB/s, no latency).
CostCalibration truth() {
  CostCalibration c;
  c.bandwidth(ComputeKernel::kFused, DimClass::kNarrow) = 2.1e8;
  c.bandwidth(ComputeKernel::kFused, DimClass::kHalf) = 3.4e8;
  c.bandwidth(ComputeKernel::kFused, DimClass::kFull) = 5.2e8;
  c.overhead(ComputeKernel::kFused) = 0.012;
  c.bandwidth(ComputeKernel::kDense, DimClass::kNarrow) = 0.9e8;
  c.bandwidth(ComputeKernel::kDense, DimClass::kFull) = 1.6e8;
  c.overhead(ComputeKernel::kDense) = 0.025;
  c.bwd_multiplier_of(ComputeKernel::kFused) = 2.7;
  c.bwd_multiplier_of(ComputeKernel::kDense) = 1.6;
  c.intra_host = {.bandwidth_bytes_per_ms = 1.3e8, .latency_ms = 0.03};
  c.inter_host = {.bandwidth_bytes_per_ms = 1.05e7, .latency_ms = 0.085};
  return c;
}

class Generator {
 public:
  explicit Generator(uint64_t seed, double noise = 0.01) : rng_(seed), noise_(0.0, noise) {}

  // Bytes log-uniform in [lo, hi].
  double bytes(double lo, double hi) {
    std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
    return std::exp(u(rng_));
  }
  double noisy(double t) { return t * (1.0 + noise_(rng_)); }

 private:
  std::mt19937_64 rng_;
  std::normal_distribution<double> noise_;
};

Measurement lookup(ComputeKernel k, int64_t dim, planner::ShardingType st, sim::Phase phase,
                   double bytes, double ms) {
  Measurement m;
  m.phase = phase;
  m.compute_kernel = k;
  m.sharding_type = st;
  m.dim = dim;
  m.model_bytes = bytes;
  m.bytes = bytes;
  m.timing.median_ms = ms;
  m.timing.samples = 20;
  return m;
}

Measurement collective(bool inter, double bytes, double ms) {
  Measurement m;
  m.phase = sim::Phase::kOutputDist;
  m.collective = 0;
  m.collective_kind = sim::CollectiveKind::kAllToAll;
  m.members = inter ? 16 : 8;
  m.inter_host = inter;
  m.bytes = bytes;
  m.model_bytes = bytes;
  m.timing.median_ms = ms;
  return m;
}

// 40 forward and 40 backward lookups per (kernel, dim class) the truth has
// (20 per dim, two dims per class),
// and 40 collectives per scope, from the truth's formulas times 1 + N(0, noise).
std::vector<Measurement> synthetic(const CostCalibration& c, uint64_t seed, double noise = 0.01) {
  Generator gen(seed, noise);
  std::vector<Measurement> out;
  const struct {
    int64_t dim;
    DimClass cls;
  } dims[] = {{32, DimClass::kNarrow}, {16, DimClass::kNarrow}, {64, DimClass::kHalf},
              {96, DimClass::kHalf},   {128, DimClass::kFull},  {256, DimClass::kFull}};
  const planner::ShardingType types[] = {
      planner::ShardingType::kTableWise, planner::ShardingType::kRowWise,
      planner::ShardingType::kColumnWise, planner::ShardingType::kTableRowWise};
  for (ComputeKernel k : {ComputeKernel::kFused, ComputeKernel::kDense}) {
    for (const auto& d : dims) {
      const auto& bw = c.bandwidth(k, d.cls);
      if (!bw) continue;
      for (int i = 0; i < 20; ++i) {
        const double bytes = gen.bytes(1e5, 2e9);
        const double fwd = c.overhead(k).value_or(0.0) + bytes / *bw;
        const auto st = types[i % 4];
        out.push_back(lookup(k, d.dim, st, sim::Phase::kFwdCompute, bytes, gen.noisy(fwd)));
        const double bwd = fwd * *c.bwd_multiplier_of(k);
        out.push_back(lookup(k, d.dim, st, sim::Phase::kBwdCompute, bytes, gen.noisy(bwd)));
      }
    }
  }
  for (bool inter : {false, true}) {
    const planner::CommCalibration& s = c.comm(inter);
    for (int i = 0; i < 40; ++i) {
      const double bytes = gen.bytes(1e4, 1e9);
      out.push_back(
          collective(inter, bytes, gen.noisy(*s.latency_ms + bytes / *s.bandwidth_bytes_per_ms)));
    }
  }
  return out;
}

void expect_within(const std::optional<double>& got, const std::optional<double>& want, double rel,
                   const std::string& what) {
  ASSERT_TRUE(want.has_value()) << what;
  ASSERT_TRUE(got.has_value()) << what << " not fitted";
  EXPECT_NEAR(*got, *want, rel * *want) << what;
}

TEST(CalibrationFit, RecoversChosenConstantsWithin2Percent) {
  const CostCalibration want = truth();
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto fit = fit_calibration(synthetic(want, seed), CalibrationOptions{.seed = seed});
    ASSERT_TRUE(fit.is_ok()) << fit.status().message();
    const CostCalibration& got = fit->calibration;
    for (ComputeKernel k : {ComputeKernel::kFused, ComputeKernel::kDense}) {
      const std::string kn(planner::to_string(k));
      expect_within(got.overhead(k), want.overhead(k), 0.02, kn + " overhead");
      for (DimClass c : {DimClass::kNarrow, DimClass::kHalf, DimClass::kFull}) {
        const std::string what = kn + "/" + std::string(planner::to_string(c)) + " bandwidth";
        if (want.bandwidth(k, c)) {
          expect_within(got.bandwidth(k, c), want.bandwidth(k, c), 0.02, what);
        } else {
          EXPECT_FALSE(got.bandwidth(k, c).has_value())
              << what << ": no records, so TorchRec's is kept";
        }
      }
    }
    expect_within(got.bwd_multiplier_of(ComputeKernel::kFused),
                  want.bwd_multiplier_of(ComputeKernel::kFused), 0.02, "fused backward multiplier");
    expect_within(got.bwd_multiplier_of(ComputeKernel::kDense),
                  want.bwd_multiplier_of(ComputeKernel::kDense), 0.02, "dense backward multiplier");
    EXPECT_FALSE(got.bwd_multiplier.has_value()) << "the fit sets per-kernel multipliers only";
    expect_within(got.intra_host.bandwidth_bytes_per_ms, want.intra_host.bandwidth_bytes_per_ms,
                  0.02, "intra bw");
    expect_within(got.intra_host.latency_ms, want.intra_host.latency_ms, 0.02, "intra latency");
    expect_within(got.inter_host.bandwidth_bytes_per_ms, want.inter_host.bandwidth_bytes_per_ms,
                  0.02, "inter bw");
    expect_within(got.inter_host.latency_ms, want.inter_host.latency_ms, 0.02, "inter latency");
    // Parameters no record speaks to stay unset.
    EXPECT_FALSE(got.overhead(ComputeKernel::kFusedUvm).has_value());

    // The truth is far from TorchRec's defaults: the fit's held-out error is
    // about the noise (mean |N(0, 1%)| = 0.8%), TorchRec's is large.
    ASSERT_TRUE(fit->mape_before && fit->mape_after && fit->fit_mape_before && fit->fit_mape_after);
    EXPECT_GT(*fit->fit_mape_before, 50.0);
    EXPECT_LT(*fit->mape_after, 1.5);
    EXPECT_GT(*fit->mape_before, 50.0);
    EXPECT_LT(*fit->fit_mape_after, 1.5);
    EXPECT_EQ(fit->skipped, 0);
    EXPECT_EQ(fit->fit_count + fit->held_out_count, static_cast<int>(synthetic(want, seed).size()));
    for (const CalibrationGroup& g : fit->groups) {
      EXPECT_TRUE(g.fitted) << g.name;
      ASSERT_TRUE(g.mape_after && g.mape_before) << g.name;
      EXPECT_LT(*g.mape_after, *g.mape_before) << g.name;
      EXPECT_GE(g.held_out, 1) << g.name;
    }
    // 5 forward groups, 5 backward, 2 scopes.
    EXPECT_EQ(fit->groups.size(), 12u);
  }
}

TEST(CalibrationFit, NoiselessDataIsFittedExactly) {
  const CostCalibration want = truth();
  auto fit = fit_calibration(synthetic(want, 5, 0.0));
  ASSERT_TRUE(fit.is_ok());
  EXPECT_NEAR(*fit->calibration.bandwidth(ComputeKernel::kFused, DimClass::kHalf), 3.4e8,
              3.4e8 * 1e-9);
  EXPECT_NEAR(*fit->calibration.overhead(ComputeKernel::kDense), 0.025, 0.025 * 1e-9);
  EXPECT_NEAR(*fit->calibration.bwd_multiplier_of(ComputeKernel::kFused), 2.7, 2.7 * 1e-9);
  EXPECT_NEAR(*fit->calibration.bwd_multiplier_of(ComputeKernel::kDense), 1.6, 1.6 * 1e-9);
  EXPECT_NEAR(*fit->calibration.inter_host.latency_ms, 0.085, 0.085 * 1e-9);
  EXPECT_LT(*fit->mape_after, 1e-6);
}

TEST(CalibrationFit, PredictionsUseTorchRecFormulasBeforeAndTheCalibrationAfter) {
  const CalibrationOptions options;
  const double bytes = 3.0e7;
  // TW at d = 64: half-block penalty; RW: none (docs/cost-model.md §4.3, §4.4).
  const Measurement tw = lookup(ComputeKernel::kFused, 64, planner::ShardingType::kTableWise,
                                sim::Phase::kFwdCompute, bytes, 1.0);
  EXPECT_DOUBLE_EQ(*predict_ms(tw, nullptr, options), bytes * 1.15 / planner::kDefaultHbmMemBw);
  Measurement rw = tw;
  rw.sharding_type = planner::ShardingType::kRowWise;
  EXPECT_DOUBLE_EQ(*predict_ms(rw, nullptr, options), bytes / planner::kDefaultHbmMemBw);
  Measurement dense = rw;
  dense.compute_kernel = ComputeKernel::kDense;
  dense.phase = sim::Phase::kBwdCompute;
  EXPECT_DOUBLE_EQ(*predict_ms(dense, nullptr, options),
                   bytes / (0.5 * planner::kDefaultHbmMemBw) * 2.0);
  const Measurement c = collective(true, 1e6, 1.0);
  EXPECT_DOUBLE_EQ(*predict_ms(c, nullptr, options), 1e6 / planner::kDefaultInterHostBw);

  const CostCalibration cal = truth();
  EXPECT_DOUBLE_EQ(*predict_ms(tw, &cal, options), 0.012 + bytes / 3.4e8);
  EXPECT_DOUBLE_EQ(*predict_ms(dense, &cal, options),
                   (0.025 + bytes / (0.5 * planner::kDefaultHbmMemBw)) * 1.6)
      << "dense/half has no calibrated bandwidth: TorchRec's, plus the dense overhead";
  EXPECT_DOUBLE_EQ(*predict_ms(c, &cal, options), 0.085 + 1e6 / 1.05e7);

  Measurement estimate = c;
  estimate.collective_kind = sim::CollectiveKind::kEstimate;
  EXPECT_FALSE(predict_ms(estimate, nullptr, options).has_value());
  // fused_uvm has no bandwidth on a CPU device.
  Measurement uvm = tw;
  uvm.compute_kernel = ComputeKernel::kFusedUvm;
  EXPECT_FALSE(
      predict_ms(uvm, nullptr, CalibrationOptions{.compute_device = planner::ComputeDevice::kCpu}));
}

// ---- The split ---------------------------------------------------------------

TEST(HoldoutSplit, DeterministicDisjointAndPerGroup) {
  std::vector<Measurement> ms = synthetic(truth(), 9);
  ms.push_back(collective(false, 0.0, 1.0));  // no bytes: in neither side
  const CalibrationOptions options{.holdout_fraction = 0.25, .seed = 42};
  const HoldoutSplit a = holdout_split(ms, options);
  const HoldoutSplit b = holdout_split(ms, options);
  EXPECT_EQ(a.fit, b.fit);
  EXPECT_EQ(a.held_out, b.held_out);
  EXPECT_TRUE(std::is_sorted(a.fit.begin(), a.fit.end()));
  EXPECT_TRUE(std::is_sorted(a.held_out.begin(), a.held_out.end()));

  std::set<size_t> all(a.fit.begin(), a.fit.end());
  for (size_t i : a.held_out)
    EXPECT_TRUE(all.insert(i).second) << "record " << i << " on both sides";
  EXPECT_EQ(all.size(), ms.size() - 1);
  EXPECT_EQ(all.count(ms.size() - 1), 0u);
  // 12 groups of 40 records (two dims of 20 per dim class), 10 held out of each.
  EXPECT_EQ(a.held_out.size(), 12u * 10);

  const HoldoutSplit other =
      holdout_split(ms, CalibrationOptions{.holdout_fraction = 0.25, .seed = 43});
  EXPECT_EQ(other.held_out.size(), a.held_out.size());
  EXPECT_NE(other.held_out, a.held_out);

  // A group's split does not depend on the other groups' records.
  std::vector<Measurement> comm_only(ms.end() - 81, ms.end() - 1);
  const HoldoutSplit c = holdout_split(comm_only, options);
  std::vector<size_t> shifted;
  for (size_t i : a.held_out) {
    if (i >= ms.size() - 81) shifted.push_back(i - (ms.size() - 81));
  }
  EXPECT_EQ(c.held_out, shifted);
}

TEST(HoldoutSplit, SmallGroupsKeepOneOnEachSide) {
  std::vector<Measurement> ms = {collective(false, 1e6, 1.0), collective(false, 2e6, 2.0),
                                 collective(true, 1e6, 1.0)};
  const HoldoutSplit s = holdout_split(ms, CalibrationOptions{.holdout_fraction = 0.01});
  EXPECT_EQ(s.held_out.size(), 1u);  // the pair holds one out despite 1%
  EXPECT_EQ(s.fit.size(), 2u);       // the single inter-host record is fitted
  EXPECT_TRUE(std::find(s.fit.begin(), s.fit.end(), 2u) != s.fit.end());
  const HoldoutSplit none = holdout_split(ms, CalibrationOptions{.holdout_fraction = 0.0});
  EXPECT_TRUE(none.held_out.empty());
}

// ---- Too little data ---------------------------------------------------------

TEST(CalibrationFit, GroupsWithTooFewRecordsKeepTorchRecValues) {
  std::vector<Measurement> ms;
  // fused/full: bytes vary, so overhead and bandwidth are fitted.
  for (double bytes : {1e6, 5e6, 2e7, 8e7, 3e8}) {
    ms.push_back(lookup(ComputeKernel::kFused, 128, planner::ShardingType::kTableWise,
                        sim::Phase::kFwdCompute, bytes, 0.01 + bytes / 4e8));
  }
  // fused/narrow: one record only (held out is impossible, fit has 1 < 2).
  ms.push_back(lookup(ComputeKernel::kFused, 32, planner::ShardingType::kTableWise,
                      sim::Phase::kFwdCompute, 1e7, 0.5));
  // dense/half: three records of the same size: bandwidth only, no overhead.
  for (int i = 0; i < 3; ++i) {
    ms.push_back(lookup(ComputeKernel::kDense, 64, planner::ShardingType::kRowWise,
                        sim::Phase::kFwdCompute, 1e7, 0.1));
  }
  ms.push_back(collective(true, 1e6, 1.0));  // one inter-host record
  auto fit = fit_calibration(ms, CalibrationOptions{.holdout_fraction = 0.0});
  ASSERT_TRUE(fit.is_ok()) << fit.status().message();
  const CostCalibration& c = fit->calibration;
  EXPECT_NEAR(*c.bandwidth(ComputeKernel::kFused, DimClass::kFull), 4e8, 4e8 * 1e-9);
  EXPECT_NEAR(*c.overhead(ComputeKernel::kFused), 0.01, 1e-9);
  EXPECT_FALSE(c.bandwidth(ComputeKernel::kFused, DimClass::kNarrow).has_value());
  EXPECT_NEAR(*c.bandwidth(ComputeKernel::kDense, DimClass::kHalf), 1e8, 1e-1);
  EXPECT_FALSE(c.overhead(ComputeKernel::kDense).has_value());
  EXPECT_FALSE(c.inter_host.bandwidth_bytes_per_ms.has_value());
  EXPECT_FALSE(c.bwd_multiplier.has_value());
  EXPECT_FALSE(c.bwd_multiplier_of(ComputeKernel::kFused).has_value());
  ASSERT_TRUE(fit->fit_mape_before && fit->fit_mape_after);
  EXPECT_GT(*fit->fit_mape_before, *fit->fit_mape_after);
  EXPECT_FALSE(fit->mape_after.has_value()) << "nothing held out";
  EXPECT_EQ(fit->held_out_count, 0);

  const auto noted = [&](const std::string& what) {
    return std::any_of(fit->notes.begin(), fit->notes.end(),
                       [&](const std::string& n) { return n.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(noted("fwd fused/narrow: 1 fit record, too few"))
      << testing::PrintToString(fit->notes);
  EXPECT_TRUE(noted("fwd dense: bytes do not vary")) << testing::PrintToString(fit->notes);
  EXPECT_TRUE(noted("comm inter_host: 1 fit record, too few"))
      << testing::PrintToString(fit->notes);
}

TEST(CalibrationFit, RefusesNothingToFitAndBadOptions) {
  std::vector<Measurement> ms = {
      collective(false, 0.0, 1.0),
      lookup(ComputeKernel::kFused, 64, planner::ShardingType::kTableWise, sim::Phase::kFwdCompute,
             1e6, 0.0)};
  auto fit = fit_calibration(ms);
  ASSERT_FALSE(fit.is_ok());
  EXPECT_EQ(fit.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(fit.status().message().find("none of the 2 measurement records can be fitted"),
            std::string::npos)
      << fit.status().message();
  EXPECT_FALSE(
      fit_calibration(synthetic(truth(), 1), CalibrationOptions{.holdout_fraction = 1.0}).is_ok());
  EXPECT_FALSE(fit_calibration(synthetic(truth(), 1), CalibrationOptions{.hbm_bw = 0.0}).is_ok());
}

}  // namespace
}  // namespace shardlab::kernels

namespace shardlab::kernels {
namespace {

// The "before" model is the scenario's topology as the planner sees it:
// given bandwidths as written, absent ones at TorchRec's defaults.
TEST(BeforeModelOptions, FollowTheScenariosTopology) {
  planner::Scenario s;
  s.topology.world_size = 2;
  s.topology.compute_device = planner::ComputeDevice::kCpu;
  s.topology.hbm_mem_bw = 1.5e9;
  s.topology.ddr_mem_bw = 2.5e7;
  s.topology.hbm_to_ddr_mem_bw = 3.5e7;
  s.topology.intra_host_bw = 4.5e8;
  s.topology.bwd_compute_multiplier = 3.0;
  s.planner.torchrec_version = planner::TorchRecVersion::k2024_02;
  const CalibrationOptions o = before_model_options(s);
  EXPECT_EQ(o.compute_device, planner::ComputeDevice::kCpu);
  EXPECT_EQ(o.hbm_bw, 1.5e9);
  EXPECT_EQ(o.ddr_bw, 2.5e7);
  EXPECT_EQ(o.hbm_to_ddr_bw, 3.5e7);
  EXPECT_EQ(o.intra_host_bw, 4.5e8);
  EXPECT_EQ(o.inter_host_bw, planner::kDefaultInterHostBw);
  EXPECT_EQ(o.bwd_multiplier, 3.0);
  EXPECT_EQ(o.torchrec_version, planner::TorchRecVersion::k2024_02);
  EXPECT_EQ(o.holdout_fraction, CalibrationOptions{}.holdout_fraction);
}

}  // namespace
}  // namespace shardlab::kernels
