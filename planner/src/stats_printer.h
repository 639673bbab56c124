// The EmbeddingStats printer behind format_stats() (stats.h). Internal to the
// planner library: stats.cc holds what both TorchRec versions print and the
// 2024-02 sections, stats_2026.cc the sections only 2026-08 prints
// (TorchRecBehaviour::stats_layout).
//
// Python int versus float. A handful of printed numbers are Python ints in
// TorchRec and print without ".0": perf components that TorchRec sets to the
// literal 0 (DP forward comms; in 2024-02 the TW/CW/TWCW backward terms in
// inference) and the per-rank perf accumulators, which start from int 0
// (prefetch from 0.0). A per-rank component stays an int while only such
// zeros were added to it, and "Maximum of Backward Compute: 0 ms" shows it.
// PyNum tracks that.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "shardlab/planner/planner.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/planner/stats.h"
#include "stats_format.h"

namespace shardlab::planner::internal {

// A number that may be a Python int (see the file comment).
struct PyNum {
  double value = 0.0;
  bool is_int = true;
  PyNum& operator+=(const PyNum& o) {
    value += o.value;
    is_int = is_int && o.is_int;
    return *this;
  }
};

// A perf record whose first four components may be Python ints; prefetch is
// always a float (the dataclass default 0.0 is where every sum starts).
struct RankPerf {
  PyNum fwd_compute;
  PyNum fwd_comms;
  PyNum bwd_compute;
  PyNum bwd_comms;
  double prefetch_compute = 0.0;

  double total() const {
    return (((fwd_compute.value + bwd_compute.value) + fwd_comms.value) + bwd_comms.value) +
           prefetch_compute;
  }
};

// Each rank's perf components, as the "Maximum of ..." lines read them.
struct RankColumns {
  std::vector<PyNum> total, fwd_compute, fwd_comms, bwd_compute, bwd_comms, prefetch;
  // The sum of the components' maxima, in TorchRec's order.
  double sum_of_maxima() const;
};

class StatsPrinter {
 public:
  StatsPrinter(const Scenario& scenario, const PlannerResult& result, const StatsOptions& options);

  std::vector<std::string> run();

 private:
  void compute_rank_numbers();
  std::vector<std::string> rank_table() const;
  std::vector<std::string> param_table() const;
  RankColumns rank_columns() const;
  // "Maximum of Forward Compute" through "Sum of Maxima": the same lines in
  // both versions' critical-path sections.
  void emit_component_maxima(const RankColumns& c);

  // 2024-02 sections (stats.cc).
  void emit_kernel_counts_2024();
  void emit_debug_plan_section_2024();
  void emit_reservation_section_2024();
  // Both versions.
  void emit_imbalance_tables();

  // 2026-08 sections (stats_2026.cc).
  void emit_kernel_sections_2026();
  void emit_imbalance_statistics_2026();
  void emit_max_perf_and_hbm_2026();
  void emit_reservation_section_2026();

  // Line builders (docs/cost-model.md §10.5).
  void line(const std::string& s) { lines_.push_back(s); }
  void blank() {
    std::string s(static_cast<size_t>(width_), ' ');
    s.front() = '#';
    s.back() = '#';
    lines_.push_back(std::move(s));
  }
  void centered(const std::string& s) {
    lines_.push_back("#" + stats_format::center(s, width_ - 2) + "#");
  }
  void left(const std::string& s) {
    lines_.push_back("# " + stats_format::ljust(s, width_ - 3) + "#");
  }
  void indented(const std::string& s) {
    lines_.push_back("#    " + stats_format::ljust(s, width_ - 6) + "#");
  }

  // Rank as Python indexes a list of world_size entries (-1 is the last).
  int rank_index(int r) const { return r < 0 ? r + world_size_ : r; }
  bool is_2026() const { return behaviour_.stats_layout == StatsLayout::k2026; }

  const Scenario& scenario_;
  const PlannerResult& result_;
  const StatsOptions& options_;
  const TorchRecBehaviour& behaviour_;

  const SearchSpace* space_ = nullptr;
  const PartitionedPlan* plan_ = nullptr;  // best plan, or the last failed proposal
  PartitionedPlan ordered_;                // the best plan in result_.table_order
  bool has_plan_ = false;                  // TorchRec's sharding_plan.plan is non-empty
  int world_size_ = 1;
  int width_ = 90;  // MIN_WIDTH
  double reserved_pct_ = 0.0;
  Storage dense_;
  Storage kjt_;

  std::vector<int64_t> sparse_hbm_;  // the plan's shards only
  std::vector<int64_t> used_hbm_;    // plus dense and KJT storage
  std::vector<int64_t> used_ddr_;
  std::vector<RankPerf> perf_;
  std::vector<double> input_mb_;
  std::vector<double> output_mb_;
  // Shard counts per rank by sharding type abbreviation (sorted by name).
  std::vector<std::map<std::string, int>> shard_counts_;

  std::vector<std::string> lines_;
};

// str(round(x, 3)) for a PyNum: round(int, 3) is the int itself.
std::string round3(const PyNum& x);

// "X <unit> on rank r" / "X <unit> on ranks a-b" for the maximum of `values`
// (Python max: the first maximal element decides int versus float).
std::string max_text(const std::vector<PyNum>& values, const std::string& unit);

// "total (fc,fm,bc,bm,pc)": components >= 1 as rounded ints, others with one
// significant digit.
std::string format_perf(double total, double fc, double fm, double bc, double bm, double pc);

double gb(int64_t bytes);
double mb(int64_t bytes);

}  // namespace shardlab::planner::internal
