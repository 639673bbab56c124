// The sections only TorchRec 2026-08's EmbeddingStats prints (stats_printer.h):
// per-kernel counts, weights, optimizer state and memory; compute-kernel
// constraints; imbalance statistics of the per-rank perf and memory; the HBM
// distribution and critical path; and the reserved / planning memory.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "py_format.h"
#include "shardlab/planner/estimators.h"
#include "stats_format.h"
#include "stats_printer.h"

namespace shardlab::planner::internal {
namespace {

using stats_format::collapse_ranks;
using stats_format::fixed;
using stats_format::int_str;
using stats_format::join;
using stats_format::pct0;

std::string gb3(int64_t bytes) { return py_round(gb(bytes), 3); }

// Bytes of a table's optimizer state: ceil(weight bytes · multiplier), the
// multiplier of the storage estimator (docs/cost-model.md §5.5).
int64_t optimizer_bytes(const Scenario& s, const ShardingOption& o, int64_t weight_bytes) {
  const OptimizerKind kind = s.planner.is_inference ? OptimizerKind::kNone : s.sharder.optimizer;
  const double mu = optimizer_state_multiplier(kind, o.tensor_cols);
  return static_cast<int64_t>(std::ceil(static_cast<double>(weight_bytes) * mu));
}

// The imbalance measures of a distribution `p` over k ranks (sums from 0 in
// rank order, as Python's sum()).
struct Measure {
  const char* name;
  double (*value)(const std::vector<double>& p);
};

double total_variation(const std::vector<double>& p) {
  const double k = static_cast<double>(p.size());
  double m = 0.0;
  for (double pi : p) m = std::max(m, std::fabs(pi - 1.0 / k));
  return m;
}

double total_distance(const std::vector<double>& p) {
  const double k = static_cast<double>(p.size());
  double s = 0.0;
  for (double pi : p) s += std::fabs(pi - 1.0 / k);
  return s;
}

double chi_divergence(const std::vector<double>& p) {
  const auto n = static_cast<int64_t>(p.size());
  const double k = static_cast<double>(n);
  double s = 0.0;
  for (double pi : p) s += std::pow(std::fabs(pi - 1.0 / k), 2.0) * k;
  // Its largest value for n ranks.
  const double max_value =
      std::pow(static_cast<double>(n - 1) / k, 2.0) * k + static_cast<double>(n - 1) * (1.0 / k);
  return max_value > 0 ? s / max_value : 0.0;
}

double kl_divergence(const std::vector<double>& p) {
  const double k = static_cast<double>(p.size());
  double s = 0.0;
  for (double pi : p) {
    if (pi > 0) s += pi * std::log(k * pi);
  }
  const double max_value = std::log(k);
  return max_value > 0 ? s / max_value : 0.0;
}

constexpr Measure kMeasures[] = {
    {"Total Variation", total_variation},
    {"Total Distance", total_distance},
    {"Chi Divergence", chi_divergence},
    {"KL Divergence", kl_divergence},
};

// statistics.mean of ints: an int when exact, else the nearest double.
struct IntMean {
  bool exact = true;
  int64_t int_value = 0;
  double value = 0.0;
};

IntMean int_mean(const std::vector<int64_t>& v) {
  __extension__ using i128 = __int128;
  i128 sum = 0;
  for (int64_t x : v) sum += x;
  const auto n = static_cast<i128>(v.size());
  IntMean m;
  m.exact = sum % n == 0;
  m.int_value = static_cast<int64_t>(sum / n);
  m.value = m.exact ? static_cast<double>(m.int_value)
                    : static_cast<double>(sum) / static_cast<double>(n);
  return m;
}

// Python round() of an int mean: the nearest integer, ties to even.
int64_t rounded(const IntMean& m) {
  return m.exact ? m.int_value : static_cast<int64_t>(std::nearbyint(m.value));
}

// math.isclose(mb(a), mb(b), abs_tol=1.0): within 1 MB (or a relative 1e-9).
bool within_one_mb(int64_t a, int64_t b) {
  const double x = mb(a);
  const double y = mb(b);
  if (x == y) return true;
  const double diff = std::fabs(x - y);
  return diff <= std::fabs(1e-9 * y) || diff <= std::fabs(1e-9 * x) || diff <= 1.0;
}

// "<GB> GB on rank(s) [i, ...]" for a per-rank statistic `value` (rounded to
// bytes): the ranks within 1 MB of it.
std::string rank_hbm_text(const std::vector<int64_t>& hbm, int64_t value) {
  std::vector<int> at;
  for (size_t i = 0; i < hbm.size(); ++i) {
    if (within_one_mb(hbm[i], value)) at.push_back(static_cast<int>(i));
  }
  return gb3(value) + " GB on " + (at.size() > 1 ? "ranks " : "rank ") +
         stats_format::py_int_list(at);
}

}  // namespace

void StatsPrinter::emit_kernel_sections_2026() {
  const SearchSpace& space = *space_;
  // By kernel name (sorted, as TorchRec sorts the dict items).
  std::map<std::string, int> count;
  std::map<std::string, int64_t> weights;
  std::map<std::string, int64_t> optimizer;
  std::map<std::string, Storage> storage;
  std::map<std::string, int> hardcoded;
  int num_hardcoded = 0;
  int num_auto = 0;
  for (int idx : plan_->proposal) {
    const ShardingOption& o = space.options[idx];
    const std::string kernel(to_string(o.compute_kernel));
    ++count[kernel];
    storage[kernel] += o.total_storage;
    const int64_t weight = o.tensor_rows * o.tensor_cols * o.element_size;
    weights[kernel] += weight;
    optimizer[kernel] += optimizer_bytes(scenario_, o, weight);
    const auto& c = o.table >= 0 && o.table < static_cast<int>(scenario_.constraints.size())
                        ? scenario_.constraints[o.table]
                        : std::nullopt;
    if (c && c->compute_kernels && !c->compute_kernels->empty()) {
      ++num_hardcoded;
      ++hardcoded[kernel];
    } else {
      ++num_auto;
    }
  }
  blank();
  left("Compute Kernels Count:");
  for (const auto& [k, n] : count) indented(k + ": " + int_str(n));
  blank();
  left("Compute Kernels Embedding Weights:");
  for (const auto& [k, bytes] : weights) indented(k + ": " + gb3(bytes) + " GB");
  blank();
  left("Compute Kernels Optimizer State:");
  for (const auto& [k, bytes] : optimizer) indented(k + ": " + gb3(bytes) + " GB");
  blank();
  left("Compute Kernels Total Estimated Memory (weights + optimizer + IO + pipeline):");
  for (const auto& [k, s] : storage) {
    indented(k + ": HBM: " + gb3(s.hbm) + " GB, DDR: " + gb3(s.ddr) + " GB, SSD: " + gb3(s.ssd) +
             " GB");
  }
  blank();
  left("Compute Kernel Constraints:");
  indented("Hardcoded: " + int_str(num_hardcoded) + ", Auto-selected: " + int_str(num_auto));
  for (const auto& [k, n] : hardcoded) indented("Hardcoded " + k + ": " + int_str(n));
}

void StatsPrinter::emit_imbalance_statistics_2026() {
  bool logged = false;
  auto emit = [&](const std::string& title, const std::vector<double>& p) {
    blank();
    left(title);
    for (const Measure& m : kMeasures) left(std::string(m.name) + ": " + fixed(m.value(p), 3));
    logged = true;
  };
  std::vector<double> totals;
  double total_sum = 0.0;
  for (const RankPerf& p : perf_) {
    totals.push_back(p.total());
    total_sum += totals.back();
  }
  if (total_sum > 0) {
    std::vector<double> p;
    for (double t : totals) p.push_back(t / total_sum);
    emit("Total Perf Imbalance Statistics", p);
  }
  for (const auto& [title, used] : {std::pair{"HBM Imbalance Statistics", &used_hbm_},
                                    std::pair{"DDR Imbalance Statistics", &used_ddr_}}) {
    int64_t sum = 0;
    for (int64_t x : *used) sum += x;
    if (sum <= 0) continue;
    std::vector<double> p;
    for (int64_t x : *used) p.push_back(static_cast<double>(x) * 1.0 / static_cast<double>(sum));
    emit(title, p);
  }
  if (logged) {
    blank();
    left("Imbalance stats range 0-1, higher means more imbalanced");
  }
}

void StatsPrinter::emit_max_perf_and_hbm_2026() {
  const SearchSpace& space = *space_;
  const PartitionedPlan& plan = *plan_;
  const RankColumns c = rank_columns();
  std::vector<double> totals;
  for (const PyNum& t : c.total) totals.push_back(t.value);
  const double mean = stats_format::exact_mean(totals);
  const double max_total = *std::max_element(totals.begin(), totals.end());
  const double delta_pct = mean > 0.0 ? (max_total - mean) / mean * 100 : 0.0;

  // The critical path (stats.py _calculate_critical_path): per (module,
  // sharding type), forward and backward comms synchronize across ranks
  // (the slowest rank counts); forward and backward compute likewise.
  std::vector<std::tuple<int, ShardingType, int>> comm_keys;  // insertion order
  std::map<std::tuple<int, ShardingType, int>, std::map<int, double>> comms;
  std::map<int, double> fwd_comp;
  std::map<int, double> bwd_comp;
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& o = space.options[plan.proposal[i]];
    for (int j = 0; j < o.num_shards(); ++j) {
      const int r = plan.ranks[plan.first_shard[i] + j];
      for (int dir = 0; dir < 2; ++dir) {
        const auto key = std::make_tuple(o.module, o.sharding_type, dir);
        auto [it, inserted] = comms.try_emplace(key);
        if (inserted) comm_keys.push_back(key);
        it->second[r] += dir == 0 ? o.shard_perf.fwd_comms : o.shard_perf.bwd_comms;
      }
      fwd_comp[r] += o.shard_perf.fwd_compute;
      bwd_comp[r] += o.shard_perf.bwd_compute;
    }
  }
  auto max_value = [](const std::map<int, double>& per_rank) {
    double m = per_rank.begin()->second;
    for (const auto& [r, v] : per_rank) m = std::max(m, v);
    return m;
  };
  double comms_estimate = 0.0;
  for (const auto& key : comm_keys) comms_estimate += max_value(comms[key]);
  double comp_estimate = 0.0;
  if (!fwd_comp.empty()) comp_estimate += max_value(fwd_comp);
  if (!bwd_comp.empty()) comp_estimate += max_value(bwd_comp);

  blank();
  left("Maximum of Total Perf: " + max_text(c.total, "ms"));
  left("Mean Total Perf: " + py_round(mean, 3) + " ms");
  left("Max Total Perf is " + stats_format::general3(delta_pct) + "% greater than the mean");
  emit_component_maxima(c);

  blank();
  // TorchRec pads this one line to one more character than the others.
  lines_.push_back("# " + stats_format::ljust("Estimated Sharding Distribution", width_ - 2) + "#");
  auto sorted = [](std::vector<int64_t> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  const std::vector<int64_t> used_sorted = sorted(used_hbm_);
  const size_t n = used_sorted.size();
  const IntMean mean_hbm = int_mean(used_hbm_);
  left("Sparse only Max HBM: " +
       rank_hbm_text(sparse_hbm_, *std::max_element(sparse_hbm_.begin(), sparse_hbm_.end())));
  left("Sparse only Min HBM: " +
       rank_hbm_text(sparse_hbm_, *std::min_element(sparse_hbm_.begin(), sparse_hbm_.end())));
  left("Max HBM: " + rank_hbm_text(used_hbm_, used_sorted.back()));
  left("Min HBM: " + rank_hbm_text(used_hbm_, used_sorted.front()));
  left("Mean HBM: " + rank_hbm_text(used_hbm_, rounded(mean_hbm)));
  left("Low Median HBM: " + rank_hbm_text(used_hbm_, used_sorted[(n - 1) / 2]));
  left("High Median HBM: " + rank_hbm_text(used_hbm_, used_sorted[n / 2]));
  left("Critical Path (comms): " + py_round(comms_estimate, 3));
  left("Critical Path (compute): " + py_round(comp_estimate, 3));
  left("Critical Path (comms + compute): " + py_round(comms_estimate + comp_estimate, 3));
  const int64_t max_hbm = used_sorted.back();
  double hbm_delta_pct = 0.0;
  if (mean_hbm.value > 0.0) {
    hbm_delta_pct = mean_hbm.exact
                        ? static_cast<double>(max_hbm - mean_hbm.int_value) / mean_hbm.value * 100
                        : (static_cast<double>(max_hbm) - mean_hbm.value) / mean_hbm.value * 100;
  }
  left("Max HBM is " + stats_format::general3(hbm_delta_pct) + "% greater than the mean");

  blank();
  blank();
  left("Top HBM Memory Usage Estimation: " + gb3(max_hbm) + " GB");
  // Up to five tiers of ranks within 1 MB of the largest remaining usage;
  // each tier's positions index the list left after removing the tiers
  // above it. Printed smallest tier first.
  std::vector<int64_t> remaining = used_hbm_;
  std::vector<std::string> tiers;
  for (int tier = 0; tier < 5 && !remaining.empty(); ++tier) {
    const int64_t top = *std::max_element(remaining.begin(), remaining.end());
    std::vector<int> at;
    std::vector<int64_t> rest;
    for (size_t i = 0; i < remaining.size(); ++i) {
      if (within_one_mb(remaining[i], top)) {
        at.push_back(static_cast<int>(i));
      } else {
        rest.push_back(remaining[i]);
      }
    }
    tiers.push_back("Top Tier #" + int_str(tier + 1) + " Estimated Peak HBM Pressure: " + gb3(top) +
                    " GB on " + (at.size() > 1 ? "ranks " : "rank ") +
                    join(collapse_ranks(at), ","));
    remaining = std::move(rest);
  }
  for (auto it = tiers.rbegin(); it != tiers.rend(); ++it) left(*it);
}

void StatsPrinter::emit_reservation_section_2026() {
  const Topology& topo = result_.topology;
  const Storage cap0 = topo.devices.empty() ? Storage{} : topo.devices[0].storage;
  const auto usable_hbm =
      static_cast<int64_t>((1.0 - reserved_pct_) * static_cast<double>(cap0.hbm));
  const auto reserved_hbm = static_cast<int64_t>(reserved_pct_ * static_cast<double>(cap0.hbm));
  blank();
  left("Reserved Memory:");
  indented("HBM: " + gb3(reserved_hbm) + " GB");
  indented("Percent of Total HBM: " + pct0(reserved_pct_));
  left("Planning Memory:");
  indented("HBM: " + gb3(usable_hbm) + " GB, DDR: " + gb3(cap0.ddr) + " GB");
  indented("Percent of Total HBM: " + pct0(1.0 - reserved_pct_));
  // Every reservation ShardLab models prints its dense and KJT storage.
  blank();
  left("Dense Storage (per rank): ");
  indented("HBM: " + gb3(dense_.hbm) + " GB, DDR: " + gb3(dense_.ddr) + " GB");
  blank();
  left("KJT Storage (per rank): ");
  indented("HBM: " + gb3(kjt_.hbm) + " GB, DDR: " + gb3(kjt_.ddr) + " GB");
}

}  // namespace shardlab::planner::internal
