// The cluster as the planner sees it: identical devices with HBM/DDR (and,
// from 2026-08, SSD) capacity,
// the bandwidths of docs/cost-model.md §1, and a running perf per device that the
// partitioner accumulates.
#pragma once

#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/types.h"

namespace shardlab::planner {

struct Device {
  int rank = 0;
  Storage storage;  // capacity left (raw, or after reservation / placement)
  Perf perf;        // sum of perfs of shards placed so far
};

struct Topology {
  int world_size = 1;
  int local_world_size = 1;  // ranks per host
  // Ranks per placement group (TorchRec's Topology.intra_group_size):
  // pod_size x local_world_size, or local_world_size without a pod. The
  // groups of table-row-wise and table-column-wise shards; may exceed
  // world_size, and then there is no group.
  int intra_group_size = 1;
  ComputeDevice compute_device = ComputeDevice::kCuda;
  double hbm_mem_bw = kDefaultHbmMemBw;
  double ddr_mem_bw = kDefaultDdrMemBw;
  double hbm_to_ddr_mem_bw = kDefaultHbmToDdrMemBw;
  double ssd_mem_bw = kDefaultSsdMemBw;
  double intra_host_bw = kDefaultIntraHostBw;
  double inter_host_bw = kDefaultInterHostBw;
  double bwd_compute_multiplier = kDefaultBwdComputeMultiplier;
  std::vector<Device> devices;  // one per rank, rank order

  // Placement groups are W // intra_group_size (hosts without a pod);
  // trailing ranks of a non-multiple W belong to no group.
  int num_groups() const { return world_size / intra_group_size; }
};

// Whether `device` has HBM as the TorchRec version of `behaviour` sees it:
// cuda, and mtia from 2026-08 (TorchRecBehaviour::mtia_has_hbm). Tables, I/O
// buffers and reservations live in HBM there, in DDR elsewhere.
inline bool device_has_hbm(ComputeDevice device, const TorchRecBehaviour& behaviour) {
  return device == ComputeDevice::kCuda ||
         (device == ComputeDevice::kMtia && behaviour.mtia_has_hbm);
}

// Applies TorchRec's defaults and falsy rules (docs/cost-model.md §1.2) as the
// TorchRec version of `behaviour` applies them (device HBM on MTIA, explicit
// zero capacities).
Topology make_topology(const TopologySpec& spec, const TorchRecBehaviour& behaviour =
                                                     torchrec_behaviour(kLatestTorchRecVersion));
// The topology of `scenario` under its planner.torchrec_version.
Topology make_topology(const Scenario& scenario);

}  // namespace shardlab::planner
