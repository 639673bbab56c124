#include "models/topology_snapshot.h"

#include <algorithm>
#include <set>
#include <utility>

namespace shardlab::gui {

Result<TopologySnapshot> topology_snapshot(const planner::Scenario& scenario) {
  Result<sim::TopologyGraph> graph = sim::TopologyGraph::build(scenario.topology, scenario.fabric);
  if (!graph.is_ok()) return graph.status();
  TopologySnapshot out;
  out.num_hosts = graph->num_hosts();
  out.num_ranks = graph->num_ranks();
  out.ranks_per_host = scenario.topology.local_world_size.value_or(0) > 0
                           ? *scenario.topology.local_world_size
                           : scenario.topology.world_size;
  out.vertices = graph->vertices();
  std::set<std::pair<int, int>> seen;
  for (const sim::Link& l : graph->links()) {
    const auto key = std::minmax(l.from, l.to);
    if (seen.insert(key).second) out.links.push_back(l);
  }
  return out;
}

}  // namespace shardlab::gui
