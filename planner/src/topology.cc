#include "shardlab/planner/topology.h"

namespace shardlab::planner {

Topology make_topology(const TopologySpec& spec) {
  Topology t;
  t.world_size = spec.world_size;
  // Falsy rule: a local world size of 0 (or none) means one host.
  t.local_world_size = spec.local_world_size.value_or(0) > 0 ? *spec.local_world_size : spec.world_size;
  t.compute_device = spec.compute_device;
  // Bandwidths and the backward multiplier are stored verbatim (no falsy rule).
  t.hbm_mem_bw = spec.hbm_mem_bw;
  t.ddr_mem_bw = spec.ddr_mem_bw;
  t.intra_host_bw = spec.intra_host_bw;
  t.inter_host_bw = spec.inter_host_bw;
  t.bwd_compute_multiplier = spec.bwd_compute_multiplier;

  const int64_t hbm = spec.compute_device == ComputeDevice::kCuda
                          ? (spec.hbm_cap != 0 ? spec.hbm_cap : kDefaultHbmCap)
                          : 0;
  const int64_t ddr = spec.ddr_cap != 0 ? spec.ddr_cap : kDefaultDdrCap;
  t.devices.resize(static_cast<size_t>(spec.world_size));
  for (int r = 0; r < spec.world_size; ++r) {
    t.devices[r].rank = r;
    t.devices[r].storage = Storage{hbm, ddr};
  }
  return t;
}

}  // namespace shardlab::planner
