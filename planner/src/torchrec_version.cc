#include "shardlab/planner/torchrec_version.h"

namespace shardlab::planner {
namespace {

TorchRecBehaviour behaviour_2024() {
  TorchRecBehaviour b;
  b.version = TorchRecVersion::k2024_02;
  b.explicit_zero_capacity_kept = false;
  b.mtia_has_hbm = false;
  b.pods = false;
  b.ssd_tier = false;
  b.grid_shard = false;
  b.dynamic_programming_proposer = false;
  b.mtia_offers_model_parallel_types = false;
  b.uvm_over_hbm_to_ddr_link = false;
  b.zero_load_factor_kept_in_perf = false;
  b.no_backward_in_inference = false;
  b.twrw_two_level_comms = false;
  b.pooled_output_capped_by_pooling_factor = false;
  b.cache_aux_state_in_hbm = false;
  b.fixed_percentage_estimates_kjt = false;
  b.scaleup_starts_from_caching_options = false;
  b.memory_balanced_bounds_from_default_plan = false;
  b.stats_layout = StatsLayout::k2024;
  return b;
}

}  // namespace

std::string_view to_string(TorchRecVersion v) {
  switch (v) {
    case TorchRecVersion::k2024_02:
      return "2024-02";
    case TorchRecVersion::k2026_08:
      return "2026-08";
  }
  return "?";
}

std::string_view torchrec_commit(TorchRecVersion v) {
  switch (v) {
    case TorchRecVersion::k2024_02:
      return "fe1c2824";
    case TorchRecVersion::k2026_08:
      return "376cac6a";
  }
  return "?";
}

std::optional<TorchRecVersion> parse_torchrec_version(std::string_view s) {
  for (TorchRecVersion v : all_torchrec_versions()) {
    if (s == to_string(v)) return v;
  }
  return std::nullopt;
}

const std::vector<TorchRecVersion>& all_torchrec_versions() {
  static const std::vector<TorchRecVersion> kAll = {TorchRecVersion::k2024_02,
                                                    TorchRecVersion::k2026_08};
  return kAll;
}

std::string_view torchrec_version_names() { return "2024-02, 2026-08"; }

std::string model_name(TorchRecVersion v) {
  return std::string(to_string(v)) + " (commit " + std::string(torchrec_commit(v)) + ")";
}

const TorchRecBehaviour& torchrec_behaviour(TorchRecVersion version) {
  static const TorchRecBehaviour k2024 = behaviour_2024();
  static const TorchRecBehaviour k2026 = TorchRecBehaviour{};
  return version == TorchRecVersion::k2024_02 ? k2024 : k2026;
}

}  // namespace shardlab::planner
