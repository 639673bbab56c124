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
//   - every syntax error, number overflow included, names line and column;
//   - the tree's memory is counted as it grows, and the parse stops with an
//     error once it would pass what the memory budget leaves
//     (planner/memory_budget.h), never with std::bad_alloc;
//   - with a KeySchema, a key an object may not hold is an error as soon as
//     it is read, not after the whole file is.
// No exception escapes, and nothing allocates while a tree is torn down.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The keys the objects of a document may hold, by where they sit: a node
// describes one object (or, with `elements`, the objects of a list). Objects
// the schema does not reach are not checked while parsing.
struct KeySchema {
  std::span<const std::string_view> keys;                              // empty: any key
  std::vector<std::pair<std::string_view, const KeySchema*>> members;  // schema of a member's value
  const KeySchema* any_member = nullptr;  // schema of every member's value (objects keyed by name)
  const KeySchema* elements = nullptr;    // for a list: schema of its elements

  const KeySchema* member(std::string_view key) const;
};

// Parses `text` as one JSON value. Errors are kInvalidArgument whose message
// has no origin prefix: "malformed JSON at line L, column C: <why>" or
// "<path>: <what is wrong>". `schema` (may be null) checks keys as they are
// read; the message is the reader's ("<path>: unknown key: got ..."). The tree
// may use at most `max_tree_bytes` (estimated); by default what the memory
// budget leaves.
Result<Json> parse_json_document(const std::string& text, const KeySchema* schema = nullptr);
Result<Json> parse_json_document(const std::string& text, const KeySchema* schema,
                                 int64_t max_tree_bytes);

// Empties `tree` leaves first, so that no destructor allocates: nlohmann's
// destructor moves a container's children into a new vector before freeing
// them, which would throw std::bad_alloc, and end the process, with memory
// exhausted. Depth is bounded by kMaxJsonDepth.
void release_tree(Json& tree) noexcept;

}  // namespace shardlab::data::internal
