#include "shardlab/planner/topology.h"

namespace shardlab::planner {

Topology make_topology(const TopologySpec& spec, const TorchRecBehaviour& behaviour) {
  Topology t;
  t.world_size = spec.world_size;
  // Falsy rule: a local world size of 0 (or none) means one host.
  t.local_world_size =
      spec.local_world_size.value_or(0) > 0 ? *spec.local_world_size : spec.world_size;
  // Topology.intra_group_size: pod_size x local_world_size (2026-08).
  t.intra_group_size = spec.pod_size && behaviour.pods
                           ? static_cast<int>(int64_t{*spec.pod_size} * t.local_world_size)
                           : t.local_world_size;
  t.compute_device = spec.compute_device;
  // Bandwidths and the backward multiplier are stored verbatim (no falsy rule).
  t.hbm_mem_bw = spec.hbm_mem_bw;
  t.ddr_mem_bw = spec.ddr_mem_bw;
  t.hbm_to_ddr_mem_bw = spec.hbm_to_ddr_mem_bw;
  t.ssd_mem_bw = spec.ssd_mem_bw.value_or(kDefaultSsdMemBw);
  t.intra_host_bw = spec.intra_host_bw;
  t.inter_host_bw = spec.inter_host_bw;
  t.bwd_compute_multiplier = spec.bwd_compute_multiplier;

  // 2024-02: `cap if cap else default`; 2026-08: `cap if cap is not None`.
  auto capacity = [&](const std::optional<int64_t>& cap, int64_t fallback) {
    if (!cap) return fallback;
    return *cap != 0 || behaviour.explicit_zero_capacity_kept ? *cap : fallback;
  };
  const bool has_hbm = device_has_hbm(spec.compute_device, behaviour);
  const int64_t hbm = has_hbm ? capacity(spec.hbm_cap, kDefaultHbmCap) : 0;
  const int64_t ddr = capacity(spec.ddr_cap, kDefaultDdrCap);
  // 2026-08: every device has an SSD tier (2 TiB unless given); 2024-02 none.
  const int64_t ssd = behaviour.ssd_tier ? spec.ssd_cap.value_or(kDefaultSsdCap) : 0;
  t.devices.resize(static_cast<size_t>(spec.world_size));
  for (int r = 0; r < spec.world_size; ++r) {
    t.devices[r].rank = r;
    t.devices[r].storage = Storage{hbm, ddr, ssd};
  }
  return t;
}

Topology make_topology(const Scenario& scenario) {
  return make_topology(scenario.topology, scenario.behaviour());
}

}  // namespace shardlab::planner
