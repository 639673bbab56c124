#include "dynamic_programming_proposer.h"

#include <algorithm>
#include <barrier>
#include <limits>
#include <memory>
#include <numeric>
#include <thread>

namespace shardlab::planner {

DynamicProgrammingProposer::DynamicProgrammingProposer(int64_t hbm_bins_per_device)
    : bins_per_device_(std::max<int64_t>(hbm_bins_per_device, 1)) {}

void DynamicProgrammingProposer::load(const SearchSpace& space) {
  space_ = &space;
  order_.clear();
  options_.clear();
  proposals_.reset();
  num_proposals_ = 0;
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
  const int* row = proposals_.get() + static_cast<size_t>(current_) * space_->fqns.size();
  return Proposal(row, row + space_->fqns.size());
}

void DynamicProgrammingProposer::feedback(bool /*partitionable*/, const PartitionedPlan* /*plan*/,
                                          std::optional<double> /*rating*/,
                                          const std::vector<Storage>& reserved) {
  if (built_) {
    ++current_;
    if (current_ >= static_cast<int64_t>(num_proposals_)) current_ = -1;
    return;
  }
  built_ = true;
  build(reserved);
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Option-bin pairs of one table worth a second thread.
constexpr size_t kParallelWork = size_t{1} << 16;

// One option of a table: its HBM in bins, its perf, its index among the
// table's options.
struct Cost {
  double bins;
  double perf;
  int32_t option;
};
// How a bin's plan was reached: this table's option, the previous table's
// bin; one table's row of each (6 bytes per bin: the walk back reads them
// at random).
struct BackRow {
  uint16_t* option;
  uint32_t* previous;
  void set(size_t at, int32_t o, size_t k) const {
    option[at] = static_cast<uint16_t>(o);
    previous[at] = static_cast<uint32_t>(k);
  }
};
// A bin's best plan so far: its summed perf and HBM (in bins); how it was
// reached is in the table's row of back-pointers.
struct Cell {
  double perf = kInf;
  double hbm = kInf;
};

// Options [first, last) of one table (each a (bins, perf) pair) added to
// every reached bin of the previous table, in TorchRec's loop order: options
// in HBM order, bins ascending; a bin takes a plan only when strictly faster.
// A reached bin's HBM grows with the bin, so the first plan past the last
// bin ends an option's loop.
void relax(const std::vector<Cost>& cost, size_t first, size_t last,
           const std::vector<Cell>& previous, const std::vector<uint32_t>& reached, double limit,
           Cell* current, const BackRow& row) {
  for (size_t j = first; j < last; ++j) {
    const auto [h, p, option] = cost[j];
    for (const uint32_t k : reached) {
      const Cell& prev = previous[k];
      const double new_hbm = prev.hbm + h;
      if (!(new_hbm < limit)) break;
      const auto at = static_cast<size_t>(new_hbm);
      const double new_perf = prev.perf + p;
      if (current[at].perf > new_perf) {
        current[at] = Cell{new_perf, new_hbm};
        row.set(at, option, k);
      }
    }
  }
}

}  // namespace

void DynamicProgrammingProposer::build(const std::vector<Storage>& reserved) {
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
  // An option whose bin count equals an earlier option's and whose perf is
  // not lower lands where that one does, later and no faster: it never
  // takes a bin, and is left out (tables often have several options of
  // the same HBM: table-, column- and table-column-wise of one kernel).
  std::vector<std::vector<Cost>> cost(tables);
  for (size_t i = 0; i < tables; ++i) {
    for (size_t j = 0; j < options_[i].size(); ++j) {
      const ShardingOption& option = space_->options[options_[i][j]];
      const Cost c{static_cast<double>(option.total_storage.hbm) / bin_size, option.total_perf,
                   static_cast<int32_t>(j)};
      const bool dominated = std::any_of(cost[i].begin(), cost[i].end(), [&](const Cost& e) {
        return e.bins == c.bins && e.perf <= c.perf;
      });
      if (!dominated) cost[i].push_back(c);
    }
  }

  const auto n = static_cast<size_t>(bins);
  const auto limit = static_cast<double>(bins);
  std::vector<Cell> previous(n);
  std::vector<Cell> current(n);
  // Every cell a later table or the last bin reads was written (a reached
  // bin): no need to initialize 8 bytes per table and bin.
  const auto back_option = std::make_unique_for_overwrite<uint16_t[]>(tables * n);
  const auto back_previous = std::make_unique_for_overwrite<uint32_t[]>(tables * n);
  const auto row_of = [&](size_t i) {
    return BackRow{back_option.get() + i * n, back_previous.get() + i * n};
  };
  for (const auto& [h, p, option] : cost[0]) {
    if (!(h < limit)) continue;
    const auto k = static_cast<size_t>(h);
    if (previous[k].perf > p) {
      previous[k] = Cell{p, h};
      row_of(0).set(k, option, 0);
    }
  }
  // The bins the previous table reached, ascending: TorchRec visits every
  // bin and skips the unreached ones, so visiting only these is the same.
  // Only the bins a table's plans can land in are cleared, merged and
  // scanned: [reached.front() + its smallest option, reached.back() + its
  // largest + 1] (options are in HBM order). `current` holds, besides, what
  // it held as `previous` (the table before last), in `stale`.
  using Span = std::pair<size_t, size_t>;
  std::vector<uint32_t> reached;
  const auto collect_reached = [&](Span span) {
    reached.clear();
    for (size_t k = span.first; k < span.second; ++k) {
      if (previous[k].perf < kInf) reached.push_back(static_cast<uint32_t>(k));
    }
  };
  collect_reached(Span{0, n});
  Span stale{0, 0};
  Span written{0, n};  // the bins `previous` may hold plans in
  const auto clear = [](std::vector<Cell>& cells, Span span) {
    std::fill(cells.begin() + static_cast<std::ptrdiff_t>(span.first),
              cells.begin() + static_cast<std::ptrdiff_t>(span.second), Cell{});
  };
  // A second thread, started once, takes the later half of a table's
  // options when there is enough work; its bins replace the first half's
  // only when strictly faster, which is what running the options in order
  // does. The barrier hands it each table and waits for it.
  const bool two_threads = std::thread::hardware_concurrency() >= 2;
  std::vector<Cell> helper_cells;
  Span helper_stale{0, 0};
  Span span{0, 0};  // the bins table helper_table's plans can land in
  std::vector<uint16_t> helper_option;
  std::vector<uint32_t> helper_previous;
  std::barrier<> sync(2);
  size_t helper_table = 0;  // 0: stop
  std::thread helper;
  const auto helper_loop = [&] {
    for (;;) {
      sync.arrive_and_wait();
      if (helper_table == 0) return;
      const std::vector<Cost>& c = cost[helper_table];
      clear(helper_cells, helper_stale);
      helper_stale = span;
      relax(c, c.size() / 2, c.size(), previous, reached, limit, helper_cells.data(),
            BackRow{helper_option.data(), helper_previous.data()});
      sync.arrive_and_wait();
    }
  };
  for (size_t i = 1; i < tables; ++i) {
    clear(current, stale);
    const BackRow row = row_of(i);
    const size_t options = cost[i].size();
    if (reached.empty() || options == 0) {
      span = Span{0, 0};
    } else {
      span = Span{std::min(n, reached.front() + static_cast<size_t>(cost[i].front().bins)),
                  std::min(n, reached.back() +
                                  static_cast<size_t>(std::min(cost[i].back().bins, limit)) + 2)};
    }
    if (two_threads && options >= 2 && options * reached.size() >= kParallelWork) {
      if (!helper.joinable()) {
        helper_cells.resize(n);
        helper_option.resize(n);
        helper_previous.resize(n);
        helper = std::thread(helper_loop);
      }
      helper_table = i;
      sync.arrive_and_wait();  // the helper starts table i
      relax(cost[i], 0, options / 2, previous, reached, limit, current.data(), row);
      sync.arrive_and_wait();  // and is done with it
      for (size_t k = span.first; k < span.second; ++k) {
        if (helper_cells[k].perf < current[k].perf) {
          current[k] = helper_cells[k];
          row.set(k, helper_option[k], helper_previous[k]);
        }
      }
    } else {
      relax(cost[i], 0, options, previous, reached, limit, current.data(), row);
    }
    std::swap(previous, current);
    stale = written;
    written = span;
    collect_reached(span);
  }
  if (helper.joinable()) {
    helper_table = 0;
    sync.arrive_and_wait();
    helper.join();
  }
  // One plan per reachable bin of the last table, the most HBM first; the
  // walks back are independent, so two threads share them.
  // Each walk writes its plan as a proposal (an option per fqn) into its row
  // of proposals_.
  std::vector<uint32_t> ends(reached.rbegin(), reached.rend());
  const size_t width = space_->fqns.size();
  num_proposals_ = ends.size();
  proposals_ = std::make_unique_for_overwrite<int[]>(num_proposals_ * width);
  const auto walk_back = [&](size_t first, size_t step) {
    for (size_t e = first; e < ends.size(); e += step) {
      int* proposal = proposals_.get() + e * width;
      size_t bin = ends[e];
      for (size_t i = tables; i-- > 0;) {
        const size_t at = i * n + bin;
        proposal[order_[i]] = options_[i][back_option[at]];
        bin = back_previous[at];
      }
    }
  };
  if (two_threads && ends.size() * tables >= kParallelWork) {
    std::thread walker(walk_back, 1, 2);
    walk_back(0, 2);
    walker.join();
  } else {
    walk_back(0, 1);
  }
  if (num_proposals_ > 0) current_ = 0;
}

double DynamicProgrammingProposer::walked() const {
  if (!built_ || num_proposals_ == 0) return -1.0;
  if (current_ < 0) return 1.0;
  return static_cast<double>(current_) / static_cast<double>(num_proposals_);
}

}  // namespace shardlab::planner
