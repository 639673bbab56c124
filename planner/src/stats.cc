// TorchRec's EmbeddingStats printout (docs/cost-model.md §10), line for line,
// in the layout of the scenario's TorchRec version (stats_printer.h). This
// file: what both versions print, and the 2024-02 sections.
//
// The table is printed for the best plan, or on failure for the last failed
// proposal, whose shards all have rank -1: Python's negative index then adds
// them to the last rank (docs/cost-model.md O28). Only the table width can show that, because
// the rank table is printed only when a plan exists.
#include "shardlab/planner/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "py_format.h"
#include "shardlab/planner/estimators.h"
#include "stats_format.h"
#include "stats_printer.h"

namespace shardlab::planner {
namespace internal {

using stats_format::collapse_ranks;
using stats_format::format_table;
using stats_format::int_str;
using stats_format::join;
using stats_format::one_sig;
using stats_format::pct0;

namespace {

constexpr double kBytesPerGb = 1024.0 * 1024.0 * 1024.0;
constexpr double kBytesPerMb = 1024.0 * 1024.0;

// One shard's perf with TorchRec's int literals marked: DP's forward comms,
// and in 2024-02 the TW/CW/TWCW backward terms of inference (2026-08's
// inference evaluators return 0.0).
RankPerf shard_rank_perf(const ShardingOption& o, bool is_inference,
                         const TorchRecBehaviour& behaviour) {
  const Perf& p = o.shard_perf;
  RankPerf r;
  r.fwd_compute = {p.fwd_compute, false};
  r.fwd_comms = {p.fwd_comms, o.sharding_type == ShardingType::kDataParallel};
  const bool int_backward = is_inference && !behaviour.no_backward_in_inference &&
                            (o.sharding_type == ShardingType::kTableWise ||
                             o.sharding_type == ShardingType::kColumnWise ||
                             o.sharding_type == ShardingType::kTableColumnWise);
  r.bwd_compute = {p.bwd_compute, int_backward};
  r.bwd_comms = {p.bwd_comms, int_backward};
  r.prefetch_compute = p.prefetch_compute;
  return r;
}

void add_to(RankPerf* acc, const RankPerf& p) {
  acc->fwd_compute += p.fwd_compute;
  acc->fwd_comms += p.fwd_comms;
  acc->bwd_compute += p.bwd_compute;
  acc->bwd_comms += p.bwd_comms;
  acc->prefetch_compute += p.prefetch_compute;
}

// TorchRec's imbalance tables (docs/cost-model.md §10.5 item 9): options on
// every rank that attains the maximum of `stat`, DP and RW excluded, sorted
// by their first shard's value, largest first (stable).
template <typename RankStat, typename ShardStat>
std::vector<int> imbalance_tables(const SearchSpace& space, const PartitionedPlan& plan,
                                  RankStat zero, ShardStat shard_stat) {
  std::map<int, RankStat> per_rank;
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& o = space.options[plan.proposal[i]];
    for (int j = 0; j < o.num_shards(); ++j) {
      const int r = plan.ranks[plan.first_shard[i] + j];
      auto it = per_rank.try_emplace(r, zero).first;
      it->second += shard_stat(o, j);
    }
  }
  if (per_rank.size() <= 1) return {};
  RankStat max_value = per_rank.begin()->second;
  for (const auto& [r, v] : per_rank) max_value = std::max(max_value, v);
  std::set<int> max_ranks;
  for (const auto& [r, v] : per_rank) {
    if (v == max_value) max_ranks.insert(r);
  }
  std::vector<int> picked;  // indices into plan.proposal
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& o = space.options[plan.proposal[i]];
    if (o.sharding_type == ShardingType::kDataParallel ||
        o.sharding_type == ShardingType::kRowWise) {
      continue;
    }
    std::set<int> ranks(plan.ranks.begin() + plan.first_shard[i],
                        plan.ranks.begin() + plan.first_shard[i + 1]);
    if (std::includes(ranks.begin(), ranks.end(), max_ranks.begin(), max_ranks.end())) {
      picked.push_back(static_cast<int>(i));
    }
  }
  std::stable_sort(picked.begin(), picked.end(), [&](int a, int b) {
    const ShardingOption& oa = space.options[plan.proposal[a]];
    const ShardingOption& ob = space.options[plan.proposal[b]];
    return shard_stat(oa, 0) > shard_stat(ob, 0);
  });
  return picked;
}

// Python sum() of floats from int 0, printed as str(round(x, 3)): an empty
// sum prints "0".
std::string py_sum3(const std::vector<double>& v) {
  if (v.empty()) return "0";
  double s = 0.0;
  for (double x : v) s += x;
  return py_round(s, 3);
}

}  // namespace

double gb(int64_t bytes) { return static_cast<double>(bytes) / kBytesPerGb; }
double mb(int64_t bytes) { return static_cast<double>(bytes) / kBytesPerMb; }

std::string round3(const PyNum& x) {
  if (x.is_int) return stats_format::fixed(x.value, 0);
  return py_round(x.value, 3);
}

std::string format_perf(double total, double fc, double fm, double bc, double bm, double pc) {
  std::vector<std::string> parts;
  for (double c : {fc, fm, bc, bm, pc}) {
    parts.push_back(c >= 1 ? stats_format::fixed(std::nearbyint(c), 0) : one_sig(c));
  }
  return py_round(total, 3) + " (" + join(parts, ",") + ")";
}

std::string max_text(const std::vector<PyNum>& values, const std::string& unit) {
  size_t best = 0;
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i].value > values[best].value) best = i;
  }
  std::vector<int> at;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].value == values[best].value) at.push_back(static_cast<int>(i));
  }
  return round3(values[best]) + " " + unit + " on " + (at.size() > 1 ? "ranks " : "rank ") +
         join(collapse_ranks(at), ",");
}

StatsPrinter::StatsPrinter(const Scenario& scenario, const PlannerResult& result,
                           const StatsOptions& options)
    : scenario_(scenario), result_(result), options_(options), behaviour_(scenario.behaviour()) {}

void StatsPrinter::compute_rank_numbers() {
  const Topology& topo = result_.topology;
  const SearchSpace& space = *space_;
  const PartitionedPlan& plan = *plan_;
  const int w = world_size_;

  sparse_hbm_.assign(static_cast<size_t>(w), 0);
  used_ddr_.assign(static_cast<size_t>(w), 0);
  perf_.assign(static_cast<size_t>(w), RankPerf{});
  input_mb_.assign(static_cast<size_t>(w), 0.0);
  output_mb_.assign(static_cast<size_t>(w), 0.0);
  shard_counts_.assign(static_cast<size_t>(w), {});

  std::set<std::string> used_types;
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& o = space.options[plan.proposal[i]];
    const RankPerf shard_perf = shard_rank_perf(o, scenario_.planner.is_inference, behaviour_);
    for (int j = 0; j < o.num_shards(); ++j) {
      const int r = rank_index(plan.ranks[plan.first_shard[i] + j]);
      sparse_hbm_[r] += o.shards.storage(j).hbm;
      used_ddr_[r] += o.shards.storage(j).ddr;
      add_to(&perf_[r], shard_perf);
    }
    // Input/output sizes and shard counts come from the sharding plan, which
    // is empty on failure.
    if (!has_plan_) continue;
    const std::string abbr(abbreviation(o.sharding_type));
    used_types.insert(abbr);
    for (int j = 0; j < o.num_shards(); ++j) {
      const int r = rank_index(plan.ranks[plan.first_shard[i] + j]);
      const IoSizes io =
          shard_io_sizes(o, o.shards[j], topo.world_size, topo.intra_group_size, behaviour_);
      ++shard_counts_[r][abbr];
      input_mb_[r] += mb(io.input);
      output_mb_[r] += mb(io.output);
    }
  }
  // HBM and DDR add the reservation's per-rank dense and KJT storage.
  used_hbm_ = sparse_hbm_;
  for (int64_t& h : used_hbm_) h += dense_.hbm + kjt_.hbm;
  for (int64_t& d : used_ddr_) d += dense_.ddr + kjt_.ddr;
  for (auto& counts : shard_counts_) {
    for (const std::string& t : used_types) counts.try_emplace(t, 0);
  }
}

std::vector<std::string> StatsPrinter::rank_table() const {
  const Topology& topo = result_.topology;
  std::vector<std::vector<std::string>> rows = {
      {"Rank", "HBM (GB)", "DDR (GB)", "Perf (ms)", "Input (MB)", "Output (MB)", "Shards"},
      {"------", "----------", "----------", "-----------", "------------", "-------------",
       "--------"},
  };
  // GB with 1 decimal in 2024-02, 3 in 2026-08.
  const int gb_decimals = is_2026() ? 3 : 1;
  for (int r = 0; r < world_size_; ++r) {
    const Storage cap =
        r < static_cast<int>(topo.devices.size()) ? topo.devices[r].storage : Storage{};
    const double hbm_den = (1.0 - reserved_pct_) * static_cast<double>(cap.hbm);
    // The ratio is shown for cuda and mtia devices (MTIA has no HBM in
    // 2024-02, so its denominator is 0 there).
    const bool device_hbm =
        topo.compute_device == ComputeDevice::kCuda || topo.compute_device == ComputeDevice::kMtia;
    const double hbm_ratio =
        device_hbm && hbm_den != 0 ? static_cast<double>(used_hbm_[r]) / hbm_den : 0.0;
    const double ddr_ratio =
        cap.ddr > 0 ? static_cast<double>(used_ddr_[r]) / static_cast<double>(cap.ddr) : 0.0;
    const RankPerf& p = perf_[r];
    std::vector<std::string> shards;
    for (const auto& [abbr, count] : shard_counts_[r])
      shards.push_back(abbr + ": " + int_str(count));
    rows.push_back({
        int_str(r),
        py_round(gb(used_hbm_[r]), gb_decimals) + " (" + pct0(hbm_ratio) + ")",
        py_round(gb(used_ddr_[r]), gb_decimals) + " (" + pct0(ddr_ratio) + ")",
        format_perf(p.total(), p.fwd_compute.value, p.fwd_comms.value, p.bwd_compute.value,
                    p.bwd_comms.value, p.prefetch_compute),
        py_round(input_mb_[r], 2),
        py_round(output_mb_[r], 2),
        join(shards, " "),
    });
  }
  return format_table(rows);
}

std::vector<std::string> StatsPrinter::param_table() const {
  const SearchSpace& space = *space_;
  const PartitionedPlan& plan = *plan_;
  const bool v2026 = is_2026();

  auto batch_sizes_of = [&](const ShardingOption& o) -> const std::vector<int64_t>* {
    if (o.table < 0 || o.table >= static_cast<int>(scenario_.constraints.size())) return nullptr;
    const auto& c = scenario_.constraints[o.table];
    if (!c || !c->batch_sizes || c->batch_sizes->empty()) return nullptr;
    return &*c->batch_sizes;
  };
  bool with_batch_sizes = false;
  for (int idx : plan.proposal)
    with_batch_sizes = with_batch_sizes || batch_sizes_of(space.options[idx]);

  std::vector<std::vector<std::string>> rows;
  if (v2026) {
    rows = {
        {"FQN", "Sharding", "Compute Kernel", "Perf (ms)", "Storage (HBM, DDR, SSD)",
         "Cache Load Factor", "Sum Pooling Factor", "Sum Num Poolings", "Num Indices", "Output",
         "Weighted", "Sharder", "Features", "Emb Dim (CW Dim)", "Hash Size", "Ranks"},
        {"-----", "----------", "----------------", "-----------", "-------------------------",
         "-------------------", "--------------------", "------------------", "-------------",
         "--------", "----------", "---------", "----------", "------------------", "-----------",
         "-------"},
    };
  } else {
    rows = {
        {"FQN", "Sharding", "Compute Kernel", "Perf (ms)", "Storage (HBM, DDR)",
         "Cache Load Factor", "Pooling Factor", "Num Poolings", "Output", "Weighing", "Sharder",
         "Features", "Emb Dim (CW Dim)", "Hash Size", "Ranks"},
        {"-----", "----------", "----------------", "-----------", "--------------------",
         "-------------------", "----------------", "--------------", "--------", "----------",
         "---------", "----------", "------------------", "-----------", "-------"},
    };
  }
  if (with_batch_sizes) {
    rows[0].push_back("Batch Sizes");
    rows[1].push_back("-------------");
  }

  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const ShardingOption& o = space.options[plan.proposal[i]];

    // Perf of the option: component-wise sum of its shards' perfs.
    Perf sum;
    for (int j = 0; j < o.num_shards(); ++j) sum += o.shard_perf;

    // Cache load factor: the option's (constraint cache params), else the
    // sharder's fused params, else None; printed as Python str(float).
    // 2026-08 prints it for fused_uvm_caching options only.
    std::string clf = "None";
    if (!v2026 || o.compute_kernel == ComputeKernel::kFusedUvmCaching) {
      if (o.cache_load_factor) {
        clf = py_float_repr(*o.cache_load_factor);
      } else if (scenario_.sharder.cache_load_factor) {
        clf = py_float_repr(*scenario_.sharder.cache_load_factor);
      }
    }

    std::vector<double> num_poolings = o.num_poolings;
    if (num_poolings.size() != o.input_lengths.size())
      num_poolings.assign(o.input_lengths.size(), 1.0);

    const bool column_wise = o.sharding_type == ShardingType::kColumnWise ||
                             o.sharding_type == ShardingType::kTableColumnWise ||
                             o.sharding_type == ShardingType::kGridShard;
    std::string emb_dim = int_str(o.tensor_cols);
    if (column_wise && !o.shards.empty()) emb_dim += " (" + int_str(o.shards[0].cols) + ")";

    std::string ranks = "None";
    if (has_plan_) {
      std::vector<int> rs(plan.ranks.begin() + plan.first_shard[i],
                          plan.ranks.begin() + plan.first_shard[i + 1]);
      std::sort(rs.begin(), rs.end());
      ranks = join(collapse_ranks(rs), ",");
    }

    const bool known_module = o.module >= 0 && o.module < static_cast<int>(space.modules.size());
    std::string sharder = "None";
    if (known_module) {
      const ModuleInfo& m = space.modules[o.module];
      // 2024-02 prints the sharder's class name; 2026-08 the module class
      // name plus "Sharder" (so quantized modules show the training name).
      sharder = v2026 ? m.class_key.substr(m.class_key.rfind('.') + 1) + "Sharder" : m.sharder_name;
    }

    const std::string perf = format_perf(sum.total(), sum.fwd_compute, sum.fwd_comms,
                                         sum.bwd_compute, sum.bwd_comms, sum.prefetch_compute);
    std::string storage = "(" + py_round(gb(o.total_storage.hbm), 3) + " GB, " +
                          py_round(gb(o.total_storage.ddr), 3) + " GB";
    storage += v2026 ? ", " + py_round(gb(o.total_storage.ssd), 3) + " GB)" : ")";
    std::vector<std::string> row = {
        o.fqn,
        std::string(abbreviation(o.sharding_type)),
        std::string(to_string(o.compute_kernel)),
        perf,
        storage,
        clf,
        py_sum3(o.input_lengths),
    };
    if (v2026) {
      row.push_back(py_sum3(num_poolings));
      std::vector<double> indices;
      for (size_t k = 0; k < o.input_lengths.size(); ++k)
        indices.push_back(o.input_lengths[k] * num_poolings[k]);
      row.push_back(py_sum3(indices));
    } else {
      row.push_back(py_sum3(num_poolings));
    }
    row.insert(row.end(), {
                              o.is_pooled ? "pooled" : "sequence",
                              o.is_weighted ? "weighted" : "unweighted",
                              sharder,
                              int_str(static_cast<int64_t>(o.input_lengths.size())),
                              emb_dim,
                              int_str(o.tensor_rows),
                              ranks,
                          });
    if (with_batch_sizes) {
      const std::vector<int64_t>* bs = batch_sizes_of(o);
      row.push_back(bs ? stats_format::reduce_int_list(*bs) : "n/a");
    }
    rows.push_back(std::move(row));
  }
  return format_table(rows);
}

void StatsPrinter::emit_kernel_counts_2024() {
  std::map<std::string, int> kernels;  // sorted by kernel name
  for (int idx : plan_->proposal)
    ++kernels[std::string(to_string(space_->options[idx].compute_kernel))];
  blank();
  left("Compute Kernels:");
  for (const auto& [kernel, count] : kernels) indented(kernel + ": " + int_str(count));
}

double RankColumns::sum_of_maxima() const {
  auto max_of = [](const std::vector<PyNum>& v) {
    double m = v[0].value;
    for (const PyNum& x : v) m = std::max(m, x.value);
    return m;
  };
  return (((max_of(fwd_compute) + max_of(fwd_comms)) + max_of(bwd_compute)) + max_of(bwd_comms)) +
         max_of(prefetch);
}

RankColumns StatsPrinter::rank_columns() const {
  RankColumns c;
  for (const RankPerf& p : perf_) {
    c.total.push_back({p.total(), false});
    c.fwd_compute.push_back(p.fwd_compute);
    c.fwd_comms.push_back(p.fwd_comms);
    c.bwd_compute.push_back(p.bwd_compute);
    c.bwd_comms.push_back(p.bwd_comms);
    c.prefetch.push_back({p.prefetch_compute, false});
  }
  return c;
}

void StatsPrinter::emit_component_maxima(const RankColumns& c) {
  left("Maximum of Forward Compute: " + max_text(c.fwd_compute, "ms"));
  left("Maximum of Forward Comms: " + max_text(c.fwd_comms, "ms"));
  left("Maximum of Backward Compute: " + max_text(c.bwd_compute, "ms"));
  left("Maximum of Backward Comms: " + max_text(c.bwd_comms, "ms"));
  left("Maximum of Prefetch Compute: " + max_text(c.prefetch, "ms"));
  left("Sum of Maxima: " + py_round(c.sum_of_maxima(), 3) + " ms");
}

void StatsPrinter::emit_debug_plan_section_2024() {
  const RankColumns c = rank_columns();
  blank();
  left("Longest Critical Path (Maximum of Total Perf): " + max_text(c.total, "ms"));
  emit_component_maxima(c);

  std::vector<PyNum> hbm_gb;
  for (int64_t h : used_hbm_) hbm_gb.push_back({gb(h), false});
  blank();
  left("Peak Memory Pressure: " + max_text(hbm_gb, "GB"));
}

void StatsPrinter::emit_reservation_section_2024() {
  const Topology& topo = result_.topology;
  const Storage cap0 = topo.devices.empty() ? Storage{} : topo.devices[0].storage;
  const auto usable_hbm =
      static_cast<int64_t>((1.0 - reserved_pct_) * static_cast<double>(cap0.hbm));
  blank();
  left("Usable Memory:");
  indented("HBM: " + py_round(gb(usable_hbm), 3) + " GB, DDR: " + py_round(gb(cap0.ddr), 3) +
           " GB");
  indented("Percent of Total HBM: " + pct0(1.0 - reserved_pct_));

  const bool heuristical =
      result_.reserved && result_.reserved->kind == ReservationKind::kHeuristical;
  if (heuristical) {
    blank();
    left("Dense Storage (per rank): ");
    indented("HBM: " + py_round(gb(dense_.hbm), 3) + " GB, DDR: " + py_round(gb(dense_.ddr), 3) +
             " GB");
    blank();
    left("KJT Storage (per rank): ");
    indented("HBM: " + py_round(gb(kjt_.hbm), 3) + " GB, DDR: " + py_round(gb(kjt_.ddr), 3) +
             " GB");
  }
}

void StatsPrinter::emit_imbalance_tables() {
  const SearchSpace& space = *space_;
  const PartitionedPlan& plan = *plan_;
  const std::vector<int> by_perf = imbalance_tables(
      space, plan, 0.0, [](const ShardingOption& o, int) { return o.shard_perf.total(); });
  const std::vector<int> by_hbm =
      imbalance_tables(space, plan, int64_t{0},
                       [](const ShardingOption& o, int j) { return o.shards.storage(j).hbm; });
  blank();
  left("Top 5 Tables Causing Max Perf:");
  for (size_t k = 0; k < by_perf.size() && k < 5; ++k) {
    indented(space.options[plan.proposal[by_perf[k]]].name);
  }
  left("Top 5 Tables Causing Max HBM:");
  for (size_t k = 0; k < by_hbm.size() && k < 5; ++k) {
    const size_t i = static_cast<size_t>(by_hbm[k]);
    const ShardingOption& o = space.options[plan.proposal[i]];
    if (!is_2026()) {
      indented(o.name);
      continue;
    }
    // 2026-08: "name: <first shard's HBM> GB on rank(s) [r, ...]".
    std::vector<int> ranks(plan.ranks.begin() + plan.first_shard[i],
                           plan.ranks.begin() + plan.first_shard[i + 1]);
    const int64_t hbm = o.shards.empty() ? 0 : o.shards.storage(0).hbm;
    indented(o.name + ": " + py_round(gb(hbm), 3) + " GB on " +
             (o.num_shards() > 1 ? "ranks " : "rank ") + stats_format::py_int_list(ranks));
  }
}

std::vector<std::string> StatsPrinter::run() {
  if (!result_.search_space) return {};
  space_ = &*result_.search_space;
  if (result_.best) {
    plan_ = &*result_.best;
    has_plan_ = true;
    if (!result_.table_order.empty()) {
      // TorchRec lists the plan's tables in its proposer's order.
      const PartitionedPlan& best = *result_.best;
      ordered_ = PartitionedPlan{};
      ordered_.first_shard.push_back(0);
      for (const int t : result_.table_order) {
        ordered_.proposal.push_back(best.proposal[static_cast<size_t>(t)]);
        ordered_.ranks.insert(ordered_.ranks.end(), best.ranks.begin() + best.first_shard[t],
                              best.ranks.begin() + best.first_shard[t + 1]);
        ordered_.first_shard.push_back(static_cast<int>(ordered_.ranks.size()));
      }
      plan_ = &ordered_;
    }
  } else if (result_.last_proposal) {
    plan_ = &*result_.last_proposal;
  } else {
    return {};  // TorchRec prints no stats when the proposal loop never ran
  }
  world_size_ = std::max(1, result_.topology.world_size);

  if (result_.reserved) {
    reserved_pct_ = result_.reserved->percentage;
    // Dense storage exists for the heuristical and inference reservations,
    // KJT storage also for 2026-08's fixed percentage (storage_reservation.h).
    dense_ = result_.reserved->dense.value_or(Storage{});
    kjt_ = result_.reserved->kjt.value_or(Storage{});
  } else {
    reserved_pct_ = scenario_.planner.storage_reservation.percentage;
  }

  compute_rank_numbers();
  // The rank table is formatted (and sets the width) even without a plan.
  const std::vector<std::string> ranks = rank_table();
  width_ = std::max(width_, static_cast<int>(ranks.front().size()) + 8);
  std::vector<std::string> params;
  if (options_.debug) {
    params = param_table();
    width_ = std::max(width_, static_cast<int>(params.front().size()) + 6);
  }

  line(std::string(static_cast<size_t>(width_), '#'));
  centered("--- Planner Statistics ---");
  centered("--- Evaluated " + int_str(result_.num_proposals) + " proposal(s), found " +
           int_str(result_.num_plans) + " possible plan(s), ran for " +
           stats_format::fixed(result_.wall_seconds, 2) + "s ---");
  centered(std::string(static_cast<size_t>(width_ - 4), '-'));

  if (has_plan_) {
    for (const std::string& row : ranks) left(row);
    blank();
    left(
        "Perf: Total perf (Forward compute, Forward comms, Backward compute, Backward comms, "
        "Prefetch compute)");
    left("Input: MB/iteration, Output: MB/iteration, Shards: number of tables");
    left("HBM: estimated peak memory usage for shards, dense tensors, and features (KJT)");
  }

  if (options_.debug) {
    blank();
    left("Parameter Info:");
    for (const std::string& row : params) left(row);
  }

  blank();
  left("Batch Size: " + int_str(scenario_.batch_size));
  if (!has_plan_) {
    blank();
    left("World Size: " + int_str(result_.topology.world_size));
  }

  if (is_2026()) {
    emit_kernel_sections_2026();
    if (options_.debug) {
      if (has_plan_) {
        emit_imbalance_statistics_2026();
        emit_max_perf_and_hbm_2026();
      }
      emit_reservation_section_2026();
      if (has_plan_) emit_imbalance_tables();
    }
  } else {
    emit_kernel_counts_2024();
    if (options_.debug) {
      if (has_plan_) emit_debug_plan_section_2024();
      emit_reservation_section_2024();
      if (has_plan_) emit_imbalance_tables();
    }
  }

  line(std::string(static_cast<size_t>(width_), '#'));
  return std::move(lines_);
}

}  // namespace internal

std::vector<std::string> format_stats(const Scenario& scenario, const PlannerResult& result,
                                      const StatsOptions& options) {
  internal::StatsPrinter printer(scenario, result, options);
  return printer.run();
}

}  // namespace shardlab::planner
