// Reading one JSON document (a scenario, a plan, a profile) with a reader of
// its tree: the steps every format shares, so they are written once.
#pragma once

#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "json_document.h"
#include "json_input.h"
#include "message_text.h"
#include "shardlab/planner/status.h"

namespace shardlab::data::internal {

// Parses `text` (checking keys against `schema`, may be null) and returns
// `read(tree)`, a Result<T>; errors get "<origin>: " in front. The tree is
// torn down without allocating, so running out of memory on the way is an
// kInvalidArgument ("not enough memory to hold the <what> it describes")
// rather than an abort; a JSON exception (a reader bug: types are checked
// first) is an internal error. Nothing escapes.
template <typename Read>
auto read_document(const std::string& text, const std::string& origin, const KeySchema* schema,
                   std::string_view what, Read&& read)
    -> decltype(read(std::declval<const Json&>())) {
  Result<Json> doc = parse_json_document(text, schema);
  if (!doc) return with_origin(doc.status(), origin);
  try {
    auto out = read(static_cast<const Json&>(*doc));
    release_tree(*doc);
    if (!out) return with_origin(out.status(), origin);
    return out;
  } catch (const Json::exception& e) {
    release_tree(*doc);
    return Status::internal(printable(origin + ": unexpected JSON error: " + e.what()));
  } catch (const std::bad_alloc&) {
    release_tree(*doc);
    return Status::invalid_argument(origin + ": not enough memory to hold the " +
                                    std::string(what) + " it describes");
  }
}

}  // namespace shardlab::data::internal
