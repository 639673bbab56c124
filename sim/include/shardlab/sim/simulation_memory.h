// Memory a simulation needs, checked against the process's memory budget
// before anything is allocated (docs/simulation.md "Memory").
#pragma once

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim {

// Whether a simulation of `scenario` with `options` fits in what the memory
// budget leaves (planner/memory_budget.h): its topology graph, the
// executor's timings and the phase records, estimated from counts alone;
// then, the graph built, the route from every rank to every other when
// collectives run as flows (contention on a blocking fabric, or closed forms
// off: FlowNetwork::closed_form_exact). simulate() checks the same; a front
// end that will simulate many plans (the simulated perf model) checks it
// once before planning. Fails with kInvalidArgument naming what needs the
// memory, or with TopologyGraph::build's failure for a fabric it refuses.
Status check_simulation_memory(const planner::Scenario& scenario, const SimOptions& options = {});

}  // namespace shardlab::sim
