// The cluster graph of a scenario (sim::TopologyGraph: GPUs, host fabrics,
// NICs, leaf switches, the network core and their links) as plain values for
// the Topology view, with one entry per physical link (both directions of a
// full-duplex pair have the same capacity and latency).
#pragma once

#include <string>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::gui {

struct TopologySnapshot {
  int num_hosts = 0;
  int num_ranks = 0;
  int ranks_per_host = 1;             // local_world_size: an NVLink domain (a pod) may span hosts
  std::vector<sim::Vertex> vertices;  // vertex ids are indices
  std::vector<sim::Link> links;       // one per physical link (its first direction)
  std::vector<std::string> reverse;   // per link: its other direction's name, empty without one
};

Result<TopologySnapshot> topology_snapshot(const planner::Scenario& scenario);

}  // namespace shardlab::gui
