// Host profiles (docs/host-model.md): what one CPU thread pays to issue a
// training step's ops, per op, each number with its public source. The
// profiles are one data file, data/presets/hosts.json, compiled into the
// library; a scenario picks one with `workload.host_profile` (default
// planner::kDefaultHostProfile).
//
// Errors: kInvalidArgument naming the origin, the JSON path and the value
// (a malformed profiles document; an unknown profile name in a scenario).
// Thread safety: builtin_host_profiles() parses once (a function-local
// static) and is safe to call from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shardlab/planner/hardware_spec.h"
#include "shardlab/planner/status.h"

namespace shardlab::data {

inline constexpr int kHostProfilesFormatVersion = 1;

struct HostProfileCatalog {
  std::vector<planner::HostProfile> profiles;  // file order

  const planner::HostProfile* find(std::string_view name) const;
  std::string names() const;  // "a, b"
};

// Parses a profiles document; `origin` names it in errors.
Result<HostProfileCatalog> parse_host_profiles(const std::string& text, const std::string& origin);

// The built-in profiles (data/presets/hosts.json).
const Result<HostProfileCatalog>& builtin_host_profiles();

}  // namespace shardlab::data
