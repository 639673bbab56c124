#include "models/topology_snapshot.h"

#include <algorithm>
#include <map>
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
  std::map<std::pair<int, int>, size_t> first;  // (from, to) of a kept link -> its index
  for (const sim::Link& l : graph->links()) {
    if (const auto back = first.find({l.to, l.from}); back != first.end()) {
      out.reverse[back->second] = l.name;
      continue;
    }
    if (first.count({l.from, l.to}) > 0) continue;
    first[{l.from, l.to}] = out.links.size();
    out.links.push_back(l);
    out.reverse.emplace_back();
  }
  return out;
}

}  // namespace shardlab::gui
