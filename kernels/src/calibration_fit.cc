// The calibration fit (calibration.h): records sorted into groups, a seeded
// per-group holdout split, one NNLS per compute kernel (overhead and inverse
// bandwidth per dim class), a one-parameter fit of each kernel's backward
// multiplier on the fitted forward model, one NNLS per communication scope
// (latency and inverse bandwidth), then the errors of both models on both
// sides of the split.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calibration_common.h"
#include "calibration_nnls.h"
#include "shardlab/kernels/calibration.h"
#include "shardlab/planner/estimators.h"
#include "shardlab/planner/topology.h"

namespace shardlab::kernels {
namespace {

using internal::ErrorSum;
using planner::ComputeKernel;
using planner::CostCalibration;
using planner::DimClass;

// A group of records shares its unknowns. Forward groups are (kernel, dim
// class), numbered kernel·3 + class; backward groups follow them; then the
// two communication scopes.
constexpr int kKernelClassGroups = planner::kNumComputeKernels * planner::kNumDimClasses;
constexpr int kFirstBwdGroup = kKernelClassGroups;
constexpr int kIntraGroup = 2 * kKernelClassGroups;
constexpr int kInterGroup = kIntraGroup + 1;
constexpr int kNumGroups = kInterGroup + 1;

// A group needs this many fit records before its unknowns are fitted.
constexpr int kMinFitRecords = 2;
// Bytes within a group must spread by this factor (max / min) before a
// constant term (overhead, latency) can be told apart from the byte term.
constexpr double kMinByteSpread = 1.1;

ComputeKernel kernel_of_group(int g) {
  return static_cast<ComputeKernel>((g % kKernelClassGroups) / planner::kNumDimClasses);
}
DimClass class_of_group(int g) { return static_cast<DimClass>(g % planner::kNumDimClasses); }

std::string group_name(int g) {
  if (g == kIntraGroup) return "comm intra_host";
  if (g == kInterGroup) return "comm inter_host";
  return std::string(g < kFirstBwdGroup ? "fwd " : "bwd ") +
         std::string(planner::to_string(kernel_of_group(g))) + "/" +
         std::string(planner::to_string(class_of_group(g)));
}

// "1 record" / "3 records".
std::string records(size_t n, std::string_view what = "record") {
  return std::to_string(n) + " " + std::string(what) + (n == 1 ? "" : "s");
}

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

bool is_lookup(const Measurement& m) { return m.collective < 0; }

double record_bytes(const Measurement& m) { return is_lookup(m) ? m.model_bytes : m.bytes; }

// The record's group, or why it has none.
struct Grouping {
  int group = -1;
  const char* skip_reason = nullptr;
};

Grouping group_of(const Measurement& m, const CalibrationOptions& options) {
  const double t = m.timing.median_ms;
  if (!std::isfinite(t) || t <= 0.0) return {.skip_reason = "no positive median time"};
  const double bytes = record_bytes(m);
  if (!std::isfinite(bytes) || bytes <= 0.0) return {.skip_reason = "no bytes"};
  if (!is_lookup(m)) {
    if (m.collective_kind == sim::CollectiveKind::kEstimate)
      return {.skip_reason = "estimate-only collective"};
    if (m.members < 2) return {.skip_reason = "collective of one rank"};
    return {.group = m.inter_host ? kInterGroup : kIntraGroup};
  }
  if (m.phase != sim::Phase::kFwdCompute && m.phase != sim::Phase::kBwdCompute) {
    return {.skip_reason = "lookup phase other than forward or backward compute"};
  }
  if (!planner::kernel_bandwidth(options.compute_device, m.compute_kernel, options.hbm_bw,
                                 options.ddr_bw, std::nullopt, false, options.hbm_to_ddr_bw,
                                 planner::torchrec_behaviour(options.torchrec_version))) {
    return {.skip_reason = "compute kernel without a TorchRec bandwidth on the compute device"};
  }
  const int g = static_cast<int>(m.compute_kernel) * planner::kNumDimClasses +
                static_cast<int>(planner::dim_class(m.dim));
  return {.group = m.phase == sim::Phase::kFwdCompute ? g : kFirstBwdGroup + g};
}

Status check_options(const CalibrationOptions& o) {
  if (!(o.holdout_fraction >= 0.0 && o.holdout_fraction < 1.0)) {
    return Status::invalid_argument("calibration: holdout fraction must be in [0, 1), got " +
                                    number(o.holdout_fraction));
  }
  const std::pair<const char*, double> bandwidths[] = {{"hbm bandwidth", o.hbm_bw},
                                                       {"ddr bandwidth", o.ddr_bw},
                                                       {"intra-host bandwidth", o.intra_host_bw},
                                                       {"inter-host bandwidth", o.inter_host_bw}};
  for (const auto& [name, bw] : bandwidths) {
    if (!(std::isfinite(bw) && bw > 0.0)) {
      return Status::invalid_argument("calibration: " + std::string(name) +
                                      " must be > 0 bytes/ms, got " + number(bw));
    }
  }
  if (!(std::isfinite(o.bwd_multiplier) && o.bwd_multiplier >= 0.0)) {
    return Status::invalid_argument("calibration: backward multiplier must be >= 0, got " +
                                    number(o.bwd_multiplier));
  }
  return Status::ok();
}

// Scales columns to unit norm, solves NNLS, and scales back. Columns that are
// all zero stay at 0.
bool solve_scaled(Eigen::MatrixXd a, const Eigen::VectorXd& b, Eigen::VectorXd* x) {
  Eigen::VectorXd norms(a.cols());
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    norms(j) = a.col(j).norm();
    if (norms(j) > 0.0) a.col(j) /= norms(j);
  }
  const bool settled = internal::nnls_solve(a, b, x);
  for (Eigen::Index j = 0; j < a.cols(); ++j) (*x)(j) = norms(j) > 0.0 ? (*x)(j) / norms(j) : 0.0;
  return settled;
}

bool spread(const std::vector<double>& bytes) {
  const auto [lo, hi] = std::minmax_element(bytes.begin(), bytes.end());
  return *hi >= kMinByteSpread * *lo;
}

class Fitter {
 public:
  Fitter(const std::vector<Measurement>& ms, const CalibrationOptions& options,
         const std::vector<size_t>& fit, CalibrationFit* out)
      : ms_(ms), options_(options), out_(out) {
    for (size_t i : fit)
      by_group_[static_cast<size_t>(group_of(ms[i], options).group)].push_back(i);
  }

  void fit_forward(ComputeKernel k) {
    const int first = static_cast<int>(k) * planner::kNumDimClasses;
    std::vector<int> classes;  // dim classes with enough records
    for (int c = 0; c < planner::kNumDimClasses; ++c) {
      const auto& recs = by_group_[static_cast<size_t>(first + c)];
      if (recs.empty()) continue;
      if (static_cast<int>(recs.size()) < kMinFitRecords) {
        note(group_name(first + c) + ": " + records(recs.size(), "fit record") +
             ", too few for its bandwidth; TorchRec's kept");
        continue;
      }
      classes.push_back(c);
    }
    if (classes.empty()) return;
    size_t rows = 0;
    bool overhead = false;
    for (int c : classes) {
      const auto& recs = by_group_[static_cast<size_t>(first + c)];
      rows += recs.size();
      std::vector<double> bytes;
      for (size_t i : recs) bytes.push_back(record_bytes(ms_[i]));
      overhead = overhead || spread(bytes);
    }
    if (!overhead) {
      note("fwd " + std::string(planner::to_string(k)) +
           ": bytes do not vary within a dim class, so the overhead cannot be told from the "
           "bandwidth; "
           "overhead not fitted");
    }
    // Unknowns: [overhead], then 1/bandwidth per class; rows divided by the
    // measured time so the residuals are relative.
    const Eigen::Index cols = static_cast<Eigen::Index>(classes.size()) + (overhead ? 1 : 0);
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows), cols);
    Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(rows));
    Eigen::Index r = 0;
    for (size_t ci = 0; ci < classes.size(); ++ci) {
      for (size_t i : by_group_[static_cast<size_t>(first + classes[ci])]) {
        const double t = ms_[i].timing.median_ms;
        if (overhead) a(r, 0) = 1.0 / t;
        a(r, static_cast<Eigen::Index>(ci) + (overhead ? 1 : 0)) = record_bytes(ms_[i]) / t;
        ++r;
      }
    }
    Eigen::VectorXd x;
    if (!solve_scaled(a, b, &x)) {
      note("fwd " + std::string(planner::to_string(k)) +
           ": the fit did not settle; TorchRec's values kept");
      return;
    }
    CostCalibration& cal = out_->calibration;
    if (overhead) cal.overhead(k) = x(0);
    for (size_t ci = 0; ci < classes.size(); ++ci) {
      const int g = first + classes[ci];
      const double inverse = x(static_cast<Eigen::Index>(ci) + (overhead ? 1 : 0));
      if (inverse > 0.0) {
        cal.bandwidth(k, class_of_group(g)) = 1.0 / inverse;
        fitted_[static_cast<size_t>(g)] = true;
      } else {
        note(group_name(g) +
             ": the fit charges nothing per byte (times do not grow with bytes); "
             "TorchRec's bandwidth kept");
      }
    }
  }

  // Per kernel, m minimising Σ (m·f_i / t_i - 1)², f_i the fitted forward
  // prediction of record i's shard, over records whose forward group was fitted.
  void fit_backward(ComputeKernel k) {
    const int first = kFirstBwdGroup + static_cast<int>(k) * planner::kNumDimClasses;
    double num = 0.0, den = 0.0;
    int used = 0, unusable = 0;
    std::vector<int> groups;
    for (int g = first; g < first + planner::kNumDimClasses; ++g) {
      const auto& recs = by_group_[static_cast<size_t>(g)];
      if (recs.empty()) continue;
      if (!fitted_[static_cast<size_t>(g - kFirstBwdGroup)]) {
        unusable += static_cast<int>(recs.size());
        continue;
      }
      groups.push_back(g);
      for (size_t i : recs) {
        Measurement fwd = ms_[i];
        fwd.phase = sim::Phase::kFwdCompute;
        const std::optional<double> f = predict_ms(fwd, &out_->calibration, options_);
        if (!f || *f <= 0.0) continue;
        const double u = *f / ms_[i].timing.median_ms;
        num += u;
        den += u * u;
        ++used;
      }
    }
    const std::string name = "bwd " + std::string(planner::to_string(k));
    if (unusable > 0) {
      note(name + ": " + records(static_cast<size_t>(unusable), "fit record") +
           " of dim classes without a fitted forward bandwidth not used");
    }
    if (used == 0 && unusable == 0) return;
    if (used < kMinFitRecords || den <= 0.0) {
      note(name + ": " + records(static_cast<size_t>(used), "usable fit record") +
           ", too few for the multiplier; TorchRec's kept");
      return;
    }
    out_->calibration.bwd_multiplier_of(k) = num / den;
    for (int g : groups) fitted_[static_cast<size_t>(g)] = true;
  }

  void fit_comm(int g) {
    const auto& recs = by_group_[static_cast<size_t>(g)];
    if (recs.empty()) return;
    if (static_cast<int>(recs.size()) < kMinFitRecords) {
      note(group_name(g) + ": " + records(recs.size(), "fit record") +
           ", too few; TorchRec's bandwidth kept");
      return;
    }
    std::vector<double> bytes;
    for (size_t i : recs) bytes.push_back(record_bytes(ms_[i]));
    const bool latency = spread(bytes);
    if (!latency) note(group_name(g) + ": bytes do not vary, latency not fitted");
    const Eigen::Index cols = latency ? 2 : 1;
    Eigen::MatrixXd a(static_cast<Eigen::Index>(recs.size()), cols);
    Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(recs.size()));
    for (size_t r = 0; r < recs.size(); ++r) {
      const double t = ms_[recs[r]].timing.median_ms;
      if (latency) a(static_cast<Eigen::Index>(r), 0) = 1.0 / t;
      a(static_cast<Eigen::Index>(r), cols - 1) = bytes[r] / t;
    }
    Eigen::VectorXd x;
    if (!solve_scaled(a, b, &x)) {
      note(group_name(g) + ": the fit did not settle; TorchRec's values kept");
      return;
    }
    planner::CommCalibration& comm =
        g == kInterGroup ? out_->calibration.inter_host : out_->calibration.intra_host;
    if (latency) comm.latency_ms = x(0);
    if (x(cols - 1) > 0.0) {
      comm.bandwidth_bytes_per_ms = 1.0 / x(cols - 1);
      fitted_[static_cast<size_t>(g)] = true;
    } else {
      note(group_name(g) + ": the fit charges nothing per byte; TorchRec's bandwidth kept");
    }
    if (latency) fitted_[static_cast<size_t>(g)] = true;
  }

  bool fitted(int g) const { return fitted_[static_cast<size_t>(g)]; }

 private:
  void note(std::string text) { out_->notes.push_back(std::move(text)); }

  const std::vector<Measurement>& ms_;
  const CalibrationOptions& options_;
  CalibrationFit* out_;
  std::array<std::vector<size_t>, kNumGroups> by_group_;
  std::array<bool, kNumGroups> fitted_{};
};

}  // namespace

Status internal::check_calibration_options(const CalibrationOptions& options) {
  return check_options(options);
}

HoldoutSplit holdout_split(const std::vector<Measurement>& ms, const CalibrationOptions& options) {
  std::array<std::vector<size_t>, kNumGroups> groups;
  for (size_t i = 0; i < ms.size(); ++i) {
    const int g = group_of(ms[i], options).group;
    if (g >= 0) groups[static_cast<size_t>(g)].push_back(i);
  }
  HoldoutSplit split;
  for (int g = 0; g < kNumGroups; ++g)
    internal::split_group(std::move(groups[static_cast<size_t>(g)]), options.holdout_fraction,
                          options.seed, group_name(g), &split);
  std::sort(split.fit.begin(), split.fit.end());
  std::sort(split.held_out.begin(), split.held_out.end());
  return split;
}

std::optional<double> predict_ms(const Measurement& m, const planner::CostCalibration* cal,
                                 const CalibrationOptions& options) {
  if (!is_lookup(m)) {
    if (m.collective_kind == sim::CollectiveKind::kEstimate || m.members < 2 || !(m.bytes > 0.0))
      return std::nullopt;
    const double torchrec_bw = m.inter_host ? options.inter_host_bw : options.intra_host_bw;
    if (cal == nullptr) return m.bytes / torchrec_bw;
    return planner::calibrated_comm(cal->comm(m.inter_host), m.bytes, torchrec_bw);
  }
  if (m.phase != sim::Phase::kFwdCompute && m.phase != sim::Phase::kBwdCompute) return std::nullopt;
  if (!(m.model_bytes > 0.0)) return std::nullopt;
  const std::optional<double> bw_dev = planner::kernel_bandwidth(
      options.compute_device, m.compute_kernel, options.hbm_bw, options.ddr_bw, std::nullopt, false,
      options.hbm_to_ddr_bw, planner::torchrec_behaviour(options.torchrec_version));
  if (!bw_dev) return std::nullopt;
  const double penalty = planner::block_penalty(m.sharding_type, m.dim);
  const double fwd = cal == nullptr
                         ? m.model_bytes * penalty / *bw_dev
                         : planner::calibrated_fwd_compute(*cal, m.compute_kernel, m.dim,
                                                           m.model_bytes, penalty, *bw_dev);
  if (m.phase == sim::Phase::kFwdCompute) return fwd;
  const double multiplier = cal != nullptr
                                ? cal->backward_multiplier(m.compute_kernel, options.bwd_multiplier)
                                : options.bwd_multiplier;
  return fwd * multiplier;
}

Result<CalibrationFit> fit_calibration(const std::vector<Measurement>& ms,
                                       const CalibrationOptions& options) {
  if (Status st = check_options(options); !st) return st;
  CalibrationFit out;
  std::map<std::string, int> skipped;
  for (const Measurement& m : ms) {
    const Grouping g = group_of(m, options);
    if (g.group < 0) ++skipped[g.skip_reason];
  }
  for (const auto& [reason, n] : skipped) {
    out.skipped += n;
    out.notes.push_back(records(static_cast<size_t>(n)) + " skipped: " + reason);
  }
  const HoldoutSplit split = holdout_split(ms, options);
  if (split.fit.empty()) {
    return Status::invalid_argument(
        "calibration: none of the " + records(ms.size(), "measurement record") +
        " can be fitted (lookups and collectives with positive bytes and time are "
        "needed)");
  }
  out.fit_count = static_cast<int>(split.fit.size());
  out.held_out_count = static_cast<int>(split.held_out.size());

  Fitter fitter(ms, options, split.fit, &out);
  for (int k = 0; k < planner::kNumComputeKernels; ++k)
    fitter.fit_forward(static_cast<ComputeKernel>(k));
  for (int k = 0; k < planner::kNumComputeKernels; ++k)
    fitter.fit_backward(static_cast<ComputeKernel>(k));
  fitter.fit_comm(kIntraGroup);
  fitter.fit_comm(kInterGroup);

  // Errors per group and overall: TorchRec's defaults and the fit, on the
  // held-out records, and the fit on its own records.
  std::array<ErrorSum, kNumGroups> before, after, train_before, train;
  std::array<int, kNumGroups> fit_n{}, held_n{};
  ErrorSum all_before, all_after, all_train_before, all_train;
  const auto account = [&](size_t i, bool held) {
    const Measurement& m = ms[i];
    const auto g = static_cast<size_t>(group_of(m, options).group);
    const std::optional<double> b = predict_ms(m, nullptr, options);
    const std::optional<double> a = predict_ms(m, &out.calibration, options);
    if (!b || !a) return;  // group_of admitted it, so both exist
    const double t = m.timing.median_ms;
    if (held) {
      ++held_n[g];
      before[g].add(*b, t);
      after[g].add(*a, t);
      all_before.add(*b, t);
      all_after.add(*a, t);
    } else {
      ++fit_n[g];
      train_before[g].add(*b, t);
      train[g].add(*a, t);
      all_train_before.add(*b, t);
      all_train.add(*a, t);
    }
  };
  for (size_t i : split.fit) account(i, false);
  for (size_t i : split.held_out) account(i, true);
  for (int g = 0; g < kNumGroups; ++g) {
    const auto u = static_cast<size_t>(g);
    if (fit_n[u] + held_n[u] == 0) continue;
    out.groups.push_back(CalibrationGroup{.name = group_name(g),
                                          .fit_count = fit_n[u],
                                          .held_out = held_n[u],
                                          .fitted = fitter.fitted(g),
                                          .mape_before = before[u].mape(),
                                          .mape_after = after[u].mape(),
                                          .fit_mape_before = train_before[u].mape(),
                                          .fit_mape_after = train[u].mape()});
  }
  out.mape_before = all_before.mape();
  out.mape_after = all_after.mape();
  out.fit_mape_before = all_train_before.mape();
  out.fit_mape_after = all_train.mape();
  if (out.held_out_count == 0)
    out.notes.push_back("no record held out: no error to report beyond the fit's own");
  return out;
}

std::vector<CalibrationParameter> calibration_parameters(
    const planner::CostCalibration& c, const std::vector<CalibrationGroup>& groups,
    const CalibrationOptions& o) {
  using Unit = CalibrationParameter::Unit;
  const auto has_group = [&](const std::string& name) {
    return std::any_of(groups.begin(), groups.end(),
                       [&](const CalibrationGroup& g) { return g.name == name; });
  };
  std::vector<CalibrationParameter> rows;
  for (int k = 0; k < planner::kNumComputeKernels; ++k) {
    const auto kernel = static_cast<planner::ComputeKernel>(k);
    const std::string kn(planner::to_string(kernel));
    bool any = false;
    for (int cls = 0; cls < planner::kNumDimClasses; ++cls) {
      const auto dc = static_cast<planner::DimClass>(cls);
      const std::string group = "fwd " + kn + "/" + std::string(planner::to_string(dc));
      if (!has_group(group)) continue;
      any = true;
      const std::optional<double> bw = planner::kernel_bandwidth(o.compute_device, kernel, o.hbm_bw,
                                                                 o.ddr_bw, std::nullopt, false);
      // A representative dim of the class gives TorchRec's TW/CW/TWCW penalty.
      const int64_t dim =
          dc == planner::DimClass::kNarrow ? 32 : (dc == planner::DimClass::kHalf ? 64 : 128);
      const double penalty = planner::block_penalty(planner::ShardingType::kTableWise, dim);
      rows.push_back({.name = group + " bandwidth",
                      .unit = Unit::kBandwidth,
                      .torchrec = bw ? std::optional<double>(*bw / penalty) : std::nullopt,
                      .fitted = c.bandwidth(kernel, dc)});
    }
    if (any)
      rows.push_back({.name = kn + " overhead",
                      .unit = Unit::kMs,
                      .torchrec = 0.0,
                      .fitted = c.overhead(kernel)});
    const bool has_bwd = std::any_of(groups.begin(), groups.end(), [&](const CalibrationGroup& g) {
      return g.name.rfind("bwd " + kn + "/", 0) == 0;
    });
    if (has_bwd) {
      rows.push_back({.name = kn + " bwd multiplier",
                      .unit = Unit::kRatio,
                      .torchrec = o.bwd_multiplier,
                      .fitted = c.bwd_multiplier_of(kernel)});
    }
  }
  for (const bool inter : {false, true}) {
    const std::string scope = inter ? "inter_host" : "intra_host";
    if (!has_group("comm " + scope)) continue;
    const planner::CommCalibration& comm = c.comm(inter);
    rows.push_back({.name = scope + " bandwidth",
                    .unit = Unit::kBandwidth,
                    .torchrec = inter ? o.inter_host_bw : o.intra_host_bw,
                    .fitted = comm.bandwidth_bytes_per_ms});
    rows.push_back({.name = scope + " latency",
                    .unit = Unit::kMs,
                    .torchrec = 0.0,
                    .fitted = comm.latency_ms});
  }
  // The dense model's GEMM terms a trace fitted: TorchRec has none.
  for (int p = 0; p < planner::kNumPrecisions; ++p) {
    const std::string name(planner::to_string(static_cast<planner::Precision>(p)));
    if (const auto& e = c.gemm_efficiency[static_cast<size_t>(p)])
      rows.push_back({.name = "gemm " + name + " efficiency", .unit = Unit::kRatio, .fitted = e});
    if (const auto& k = c.gemm_kernel_ms[static_cast<size_t>(p)])
      rows.push_back({.name = "gemm " + name + " kernel time", .unit = Unit::kMs, .fitted = k});
  }
  return rows;
}

CalibrationOptions before_model_options(const planner::Scenario& scenario) {
  const planner::Topology t = planner::make_topology(scenario);
  CalibrationOptions o;
  o.compute_device = t.compute_device;
  o.hbm_bw = t.hbm_mem_bw;
  o.ddr_bw = t.ddr_mem_bw;
  o.hbm_to_ddr_bw = t.hbm_to_ddr_mem_bw;
  o.torchrec_version = scenario.planner.torchrec_version;
  o.intra_host_bw = t.intra_host_bw;
  o.inter_host_bw = t.inter_host_bw;
  o.bwd_multiplier = t.bwd_compute_multiplier;
  return o;
}

}  // namespace shardlab::kernels
