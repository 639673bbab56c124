// Readers for the sections of a scenario file (scenario.md "Fields"). Private
// to the loader: scenario_loader.cc drives them in file-format order and then
// runs the checks that span sections.
//
// Each reader validates its section completely (types, ranges, unknown keys)
// and fills plain planner structs; values are stored as given, TorchRec's
// falsy defaults are left to the planner.
#pragma once

#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "json_reader.h"
#include "shardlab/planner/scenario.h"

namespace shardlab::data::internal {

// Table name -> index in Scenario::tables. The views point into the parsed
// document's strings, which outlive the loading.
using TableIndex = std::unordered_map<std::string_view, std::size_t>;

// Reads `topology`, its optional `fabric` member (read_fabric) and its
// optional `gpu` preset (read_gpu_preset).
Status read_topology(const ObjectReader& root, planner::TopologySpec& out,
                     planner::FabricSpec& fabric, std::optional<planner::GpuSpec>& gpu,
                     planner::PresetFills& fills);
Status read_module(const ObjectReader& root, planner::ModuleSpec& out);
// Requires a non-empty list with unique names; fills `index`.
Status read_tables(const ObjectReader& root, std::vector<planner::TableSpec>& out, TableIndex& index);
// `out` gets one entry per table (same order as the tables).
Status read_constraints(const ObjectReader& root, const TableIndex& index,
                        std::vector<std::optional<planner::ConstraintSpec>>& out);
Status read_sharder(const ObjectReader& root, planner::SharderSpec& out);
Status read_planner(const ObjectReader& root, planner::PlannerSpec& out);

// The simulator's sections (scenario_simulation.cc). `topology` is the
// topology object's reader and `t` the topology read from it: fabric.hosts
// must have one entry per host.
Status read_fabric(const ObjectReader& topology, const planner::TopologySpec& t, planner::FabricSpec& out);
// Per-rank lists must have `world_size` entries.
Status read_workload(const ObjectReader& root, int world_size, planner::WorkloadSpec& out);

// GPU presets (scenario_presets.cc, docs/presets.md). `topology` is the
// topology object's reader: a preset fills the fields it lacks.
Status read_gpu_preset(const ObjectReader& topology, planner::TopologySpec& t,
                       std::optional<planner::GpuSpec>& gpu, planner::PresetFills& fills);
// What needs the whole scenario: the preset's optimizer-derived backward
// multiplier, the dense model's checks against the tables and the topology,
// and its parameter bytes for the storage reservation when the module leaves
// them out.
Status finish_simulator_sections(const ObjectReader& root, planner::Scenario& s);

}  // namespace shardlab::data::internal
