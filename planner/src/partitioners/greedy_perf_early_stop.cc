// The greedy perf partitioner's early stop (Partitioner::set_early_stop): a
// call without `out` ends as soon as two things are proven, often before the
// first option is placed:
//
//   * the full placement's largest device perf total is at least the
//     threshold. Every perf component is non-negative, so device totals only
//     grow, and the largest is at least the mean of all device totals, which
//     the options' perfs give before anything is placed (perf_bound_);
//   * the placement cannot fail: some host can always take what comes next
//     (a counting argument before placing, settled_at_start), or the options
//     left fit on the device with the least free storage (after each option,
//     settled).
//
// The caller then gets success and a lower bound of the largest total, at
// least the threshold: the same answer as the full placement.
#include <algorithm>
#include <limits>

#include "greedy_perf_partitioner.h"

namespace shardlab::planner {
namespace {

// A lower bound of the full placement's largest device total, from the
// uniform options' per-device perf `uniform_total` (Perf::total()) and the
// other options' shard perf total × shard count summed in any order
// (`others`, non-negative terms). With u = 2^-53, P positions and N shards:
// a device's total is its components' sums of at most N + 1 terms, then
// four additions, so it is at least (1 - u)^(N + 5) times the exact sum of
// what it holds; `others` and world_size · uniform_total are at most
// (1 + u)^(P + 6) times their exact values; the roundings below add
// (1 + u)^4. The largest device total is at least the mean, so
// mean · (1 - (N + P + 64) · 2^-50) is below it by a wide margin (the
// factor needed is about (N + P + 15) · 2^-53).
double mean_total_bound(double uniform_total, double others, int world_size, int64_t positions,
                        int64_t shards) {
  const double margin = static_cast<double>(shards + positions + 64) * 0x1p-50;
  if (!(margin < 0.5)) return 0.0;  // no useful bound
  const double sum = static_cast<double>(world_size) * uniform_total + others;
  return sum / static_cast<double>(world_size) * (1.0 - margin);
}

}  // namespace

// Placing an option takes some of one host's storage (a device option: of
// one device; the trailing ranks of a partial host belong to none). Call a
// host safe while each of its devices has at least T free, T the largest
// total storage of the options to place (per component): a safe host takes
// any of them (the option's total fits its devices' sum; table-row-wise
// shard i fits device i; shards placed by device fit any device), and any
// device option's shard fits its devices. A host with slack s (its least
// free device minus T, in one component) turns unsafe only after receiving
// more than s in that component, at least s_min + 1 bytes for the least
// slack s_min among the safe hosts. All the options left need R in all, so
// at most R_hbm / (s_min_hbm + 1) + R_ddr / (s_min_ddr + 1) hosts turn
// unsafe before the last option is placed. With more safe hosts than that,
// some host is safe whenever an option comes: the device strategy finds a
// device with room, the host strategy a host that takes the option, and the
// placement succeeds.
bool GreedyPerfPartitioner::settled_at_start() {
  // The options to place: their perfs in two independent sums (the bound
  // holds for any order) so the additions pipeline, and their largest
  // storage per component.
  const int* order = order_.data();
  const int n = static_cast<int>(order_.size());
  double sums[2] = {0.0, 0.0};
  Storage largest;
  for (int k = 0; k < n; ++k) {
    const int p = order[k];
    sums[k & 1] += pos_perf_[p];
    largest.hbm = std::max(largest.hbm, pos_storage_[p].hbm);
    largest.ddr = std::max(largest.ddr, pos_storage_[p].ddr);
  }
  perf_bound_ = mean_total_bound(uniform_perf().total(), sums[0] + sums[1], world_size_,
                                 static_cast<int64_t>(pos_perf_.size()), num_shards_);
  if (!(perf_bound_ >= early_stop_)) return false;

  // Hosts, with each device's free storage after the uniform options.
  const std::vector<Storage>& host_free = host_least_free();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t safe = 0;
  Storage least_slack{kMax, kMax};
  for (int h = 0; h < num_hosts_; ++h) {
    const Storage& least_free = host_free[h];
    if (!largest.fits_in(least_free)) continue;
    ++safe;
    least_slack.hbm = std::min(least_slack.hbm, least_free.hbm - largest.hbm);
    least_slack.ddr = std::min(least_slack.ddr, least_free.ddr - largest.ddr);
  }
  const Storage left = placed_need_.saturated();
  const auto unsafe_at_most = [](int64_t need, int64_t slack) -> int64_t {
    if (need <= 0) return 0;
    return slack == kMax ? 0 : need / (slack + 1);
  };
  const int64_t by_hbm = unsafe_at_most(left.hbm, least_slack.hbm);
  const int64_t by_ddr = unsafe_at_most(left.ddr, least_slack.ddr);
  if (!(by_hbm < safe && by_ddr < safe - by_hbm)) return false;
  stopped_ = true;
  stopped_at_ = perf_bound_;
  return true;
}

// The options left need at most unplaced_ in all; every device has at least
// that much free, and free storage only shrinks by what is placed, so each
// shard left finds room on any device (and any host, whose free storage is
// at least one device's) it is offered: the placement succeeds.
bool GreedyPerfPartitioner::settled(const HotOption& placed) {
  unplaced_.add(placed.total_storage, -1);
  const double bound = std::max(max_total_, perf_bound_);
  if (!(bound >= early_stop_)) return false;
  const Storage left = unplaced_.saturated();
  if (!(left.hbm <= min_free_hbm_ && left.ddr <= min_free_ddr_)) return false;
  stopped_ = true;
  stopped_at_ = bound;
  return true;
}

}  // namespace shardlab::planner
