#include "dynamic_programming_proposer.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace shardlab::planner {

DynamicProgrammingProposer::DynamicProgrammingProposer(int64_t hbm_bins_per_device)
    : bins_per_device_(std::max<int64_t>(hbm_bins_per_device, 1)) {}

void DynamicProgrammingProposer::load(const SearchSpace& space) {
  space_ = &space;
  order_.clear();
  options_.clear();
  proposals_.clear();
  built_ = false;
  current_ = -1;
  failure_ = Status::ok();
  // The enumerator's options by total HBM, stably; tables in order of their
  // first option there.
  std::vector<int> sorted(space.num_enumerated());
  std::iota(sorted.begin(), sorted.end(), 0);
  std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) {
    return space.options[a].total_storage.hbm < space.options[b].total_storage.hbm;
  });
  std::vector<int> entry_of(space.fqns.size(), -1);
  for (const int o : sorted) {
    const int fqn = space.fqn_of_option[o];
    if (entry_of[fqn] < 0) {
      entry_of[fqn] = static_cast<int>(order_.size());
      order_.push_back(fqn);
      options_.emplace_back();
    }
    options_[entry_of[fqn]].push_back(o);
  }
}

Proposal DynamicProgrammingProposer::to_proposal(const std::vector<int>& choice) const {
  Proposal p(space_->fqns.size());
  for (size_t i = 0; i < order_.size(); ++i) p[order_[i]] = options_[i][choice[i]];
  return p;
}

std::optional<Proposal> DynamicProgrammingProposer::propose() {
  if (!built_) return to_proposal(std::vector<int>(order_.size(), 0));
  if (current_ < 0) return std::nullopt;
  return to_proposal(proposals_[static_cast<size_t>(current_)]);
}

void DynamicProgrammingProposer::feedback(bool /*partitionable*/, const PartitionedPlan* /*plan*/,
                                          std::optional<double> /*rating*/,
                                          const std::vector<Storage>& reserved) {
  if (built_) {
    ++current_;
    if (current_ >= static_cast<int64_t>(proposals_.size())) current_ = -1;
    return;
  }
  built_ = true;
  build(reserved);
}

void DynamicProgrammingProposer::build(const std::vector<Storage>& reserved) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const size_t tables = order_.size();
  if (tables == 0) return;
  // Python's int sum, then float(): exact below 2^53 bytes in all.
  int64_t hbm_total = 0;
  for (const Storage& d : reserved) hbm_total += d.hbm;
  const int64_t bins = bins_per_device_ * static_cast<int64_t>(reserved.size());
  const double bin_size = static_cast<double>(hbm_total) / static_cast<double>(bins);
  if (bin_size == 0.0) {
    failure_ = Status::planner(PlannerErrorType::kOther,
                               "ZeroDivisionError: float division by zero (TorchRec's "
                               "DynamicProgrammingProposer: no reserved HBM to cut into bins)");
    return;
  }
  // Per entry, each option's (bins, perf). TorchRec pads every table to the
  // widest table's option count with infinite costs, never taken: left out.
  std::vector<std::vector<std::pair<double, double>>> cost(tables);
  for (size_t i = 0; i < tables; ++i) {
    for (const int o : options_[i]) {
      const ShardingOption& option = space_->options[o];
      cost[i].emplace_back(static_cast<double>(option.total_storage.hbm) / bin_size,
                           option.total_perf);
    }
  }

  struct Cell {
    double perf = kInf;
    double hbm = kInf;
  };
  struct Back {
    int32_t option = -1;
    int32_t previous = -1;
  };
  const auto n = static_cast<size_t>(bins);
  std::vector<Cell> previous(n);
  std::vector<Cell> current(n);
  std::vector<Back> back(tables * n);
  for (size_t j = 0; j < cost[0].size(); ++j) {
    const auto [h, p] = cost[0][j];
    if (!(h < static_cast<double>(bins))) continue;
    const auto k = static_cast<size_t>(h);
    if (previous[k].perf > p) {
      previous[k] = Cell{p, h};
      back[k] = Back{static_cast<int32_t>(j), -1};
    }
  }
  // The bins the previous table reached, ascending: TorchRec visits every
  // bin and skips the unreached ones, so visiting only these is the same.
  std::vector<uint32_t> reached;
  for (size_t k = 0; k < n; ++k) {
    if (previous[k].perf < kInf) reached.push_back(static_cast<uint32_t>(k));
  }
  for (size_t i = 1; i < tables; ++i) {
    std::fill(current.begin(), current.end(), Cell{});
    Back* row = back.data() + i * n;
    // Options in HBM order, bins ascending, as TorchRec's loops run.
    for (size_t j = 0; j < cost[i].size(); ++j) {
      const auto [h, p] = cost[i][j];
      for (const uint32_t k : reached) {
        const Cell& prev = previous[k];
        const double new_hbm = prev.hbm + h;
        if (!(new_hbm < static_cast<double>(bins))) continue;
        const auto at = static_cast<size_t>(new_hbm);
        const double new_perf = prev.perf + p;
        if (current[at].perf > new_perf) {
          current[at] = Cell{new_perf, new_hbm};
          row[at] = Back{static_cast<int32_t>(j), static_cast<int32_t>(k)};
        }
      }
    }
    std::swap(previous, current);
    reached.clear();
    for (size_t k = 0; k < n; ++k) {
      if (previous[k].perf < kInf) reached.push_back(static_cast<uint32_t>(k));
    }
  }
  // One plan per reachable bin of the last table, the most HBM first.
  const Back* last = back.data() + (tables - 1) * n;
  for (size_t c = n; c-- > 0;) {
    if (last[c].option < 0) continue;
    std::vector<int> choice(tables);
    choice[tables - 1] = last[c].option;
    int32_t bin = last[c].previous;
    for (size_t i = tables - 1; i-- > 0;) {
      const Back& b = back[i * n + static_cast<size_t>(bin)];
      choice[i] = b.option;
      bin = b.previous;
    }
    proposals_.push_back(std::move(choice));
  }
  if (!proposals_.empty()) current_ = 0;
}

double DynamicProgrammingProposer::walked() const {
  if (!built_ || proposals_.empty()) return -1.0;
  if (current_ < 0) return 1.0;
  return static_cast<double>(current_) / static_cast<double>(proposals_.size());
}

}  // namespace shardlab::planner
