// Pieces the run store's sources share: the migration list, the text forms of
// the enums stored as TEXT columns, and the values the store fills in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardlab/kernels/workload.h"
#include "shardlab/planner/types.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::data::internal {

struct Migration {
  int version = 0;       // user_version after this step
  const char* sql = "";  // statements run in the step's transaction
  // The step drops and recreates a table that others reference: foreign keys
  // are switched off around its transaction and checked before the commit.
  bool rebuilds_tables = false;
};

// Every step, versions 1, 2, ... in order; the last is kRunStoreSchemaVersion.
const std::vector<Migration>& migrations();

// PRAGMA application_id of a ShardLab run store ("SHLB").
inline constexpr int32_t kRunStoreApplicationId = 0x53484C42;

// Inverses of the to_string functions of the enums stored as text; nullopt
// for an unknown name.
std::optional<sim::Phase> parse_phase(std::string_view s);
std::optional<sim::Stream> parse_stream(std::string_view s);
std::optional<sim::CollectiveKind> parse_collective_kind(std::string_view s);
std::optional<kernels::Precision> parse_precision(std::string_view s);

// Every sim::Phase, in declaration order.
const std::vector<sim::Phase>& all_phases();

// FNV-1a 64 of the bytes of `text`, 16 lowercase hex digits.
std::string fnv1a64_hex(std::string_view text);

// The current time, UTC, ISO-8601 with milliseconds: "2025-01-31T17:04:05.123Z".
std::string utc_timestamp_now();

// gethostname(), or "unknown" when it fails.
std::string host_name();

}  // namespace shardlab::data::internal
