// Writing a scenario back as a scenario file (docs/scenario-format.md), for "save as" in
// the GUI and for editing a scenario field by field (scenario_edit.h).
//
// The document reads back to an equal Scenario: load(write(s)) == s field by
// field, as the loader keeps values (optional fields that were absent stay
// absent, hbm_cap 0 stays 0, the optimizer's spelling is kept). Sizes and
// bandwidths are written as plain numbers (bytes, bytes/ms), doubles in their
// shortest round-trip form. Every section is written, with defaults spelled
// out, except those that only hold "not given" values.
//
// Thread safety: reentrant.
#pragma once

#include <string>

#include "shardlab/data/plan_json.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::data {

std::string scenario_to_json(const planner::Scenario& scenario, int indent = kDefaultJsonIndent);

// The `workload.dense` object alone (for front ends that show and edit it).
std::string dense_to_json(const planner::DenseSpec& dense, int indent = kDefaultJsonIndent);

// The docs/scenario-format.md names of enum values the writer uses (also for front ends
// that show them).
std::string to_string(planner::ModuleKind kind);       // "embedding_bag_collection", ...
std::string to_string(planner::ReservationKind kind);  // "heuristical", ...
std::string to_string(planner::BoundsCheckMode mode);  // "fatal", "warning", "ignore", "none"

}  // namespace shardlab::data
