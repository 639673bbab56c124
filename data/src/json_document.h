// Parsing scenario text into a JSON tree, defensively.
//
// nlohmann-json's own DOM parser would accept duplicate object keys (the last
// one silently wins) and any nesting depth, and reports number overflow
// (`1e400`) without a position. This parser drives nlohmann's SAX interface
// with its own tree builder so that:
//   - nesting deeper than kMaxJsonDepth is refused before it is built (a file
//     of 100k '[' must neither exhaust the stack in later recursive code such
//     as dump() nor take memory proportional to the nesting);
//   - a duplicate key is an error naming its path;
//   - every syntax error, number overflow included, names line and column.
// No nlohmann exception escapes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "shardlab/planner/status.h"

namespace shardlab::data::internal {

// The tree type of the loader. Objects keep file order, so the first unknown
// key or constraint reported is the first in the file, and small objects (all
// of a scenario's but constraints) are vectors: cheaper to build and search
// than std::map nodes.
using Json = nlohmann::ordered_json;

// Deepest container nesting accepted; the root object is depth 1. Scenarios
// need 4 (root > constraints > table > cache_params, or root > tables > table >
// feature_names), so this leaves room without risk.
inline constexpr int kMaxJsonDepth = 64;

// Parses `text` as one JSON value. Errors are invalid_scenario whose message
// has no origin prefix: "malformed JSON at line L, column C: <why>" or
// "<path>: <what is wrong>".
Result<Json> parse_json_document(const std::string& text);

}  // namespace shardlab::data::internal
