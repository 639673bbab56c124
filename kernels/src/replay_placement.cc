#include "replay_placement.h"

#include <algorithm>
#include <string>

namespace shardlab::kernels {

Result<std::vector<ReplayWave>> place_waves(const std::vector<int>& ranks,
                                            const ProcessLaunch& launch,
                                            const std::vector<int>& devices) {
  std::vector<ReplayWave> waves;
  if (ranks.empty() || devices.empty()) return waves;
  if (launch.size > 1) {
    if (static_cast<size_t>(launch.size) != ranks.size()) {
      return Status::invalid_argument("mpirun started " + std::to_string(launch.size) +
                                      " processes; the replay runs one per replayed rank (" +
                                      std::to_string(ranks.size()) + "): start " +
                                      std::to_string(ranks.size()) + " processes, or replay " +
                                      std::to_string(launch.size) + " ranks");
    }
    waves.push_back(
        ReplayWave{.ranks = ranks,
                   .local = {RankPlacement{.rank = ranks[static_cast<size_t>(launch.rank)],
                                           .device = devices.front()}}});
    return waves;
  }
  for (size_t first = 0; first < ranks.size(); first += devices.size()) {
    ReplayWave wave;
    const size_t end = std::min(ranks.size(), first + devices.size());
    wave.ranks.assign(ranks.begin() + static_cast<std::ptrdiff_t>(first),
                      ranks.begin() + static_cast<std::ptrdiff_t>(end));
    for (size_t k = 0; k < wave.ranks.size(); ++k)
      wave.local.push_back({.rank = wave.ranks[k], .device = devices[k]});
    waves.push_back(std::move(wave));
  }
  return waves;
}

std::vector<int> wave_indices(const std::vector<int>& wave, const std::vector<int>& members) {
  std::vector<int> out;
  out.reserve(members.size());
  for (int r : members) {
    out.push_back(static_cast<int>(std::lower_bound(wave.begin(), wave.end(), r) - wave.begin()));
  }
  return out;
}

bool spans_hosts(const std::vector<int>& indices, const std::vector<uint64_t>& host_ids) {
  for (int i : indices) {
    if (host_ids[static_cast<size_t>(i)] != host_ids[static_cast<size_t>(indices.front())])
      return true;
  }
  return false;
}

}  // namespace shardlab::kernels
