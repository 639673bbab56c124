// Editing one field of a scenario under the loader's rules, for front ends
// that edit scenarios in place (the GUI's Scenario view).
//
// The scenario is written as a scenario file (scenario_writer.h), the value
// is put at the field's JSON path, and the document is read back by the
// loader: an edit is accepted exactly when a file with that value would load,
// and a refusal carries the loader's message, which names the field, the
// value and what was expected. Nothing is clamped or coerced.
//
// Thread safety: reentrant.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/status.h"

namespace shardlab::data {

// One step of a JSON path: an object key or an array index.
using FieldStep = std::variant<std::string, int>;
using FieldPath = std::vector<FieldStep>;

// `path` rendered as the loader renders paths ("tables[3].embedding_dim").
std::string to_string(const FieldPath& path);

// Sets the field at `path` to `value_json` (one JSON value, e.g. `64`,
// `"fp16"`, `[1.0, 2.5]`) and loads the result; `null` removes the field.
// Objects missing along the path are created (a table without constraints
// gets a constraints entry); arrays are not extended. Errors are
// kInvalidArgument: the loader's message prefixed with `origin`, or a
// malformed value or path naming `origin` and the path.
Result<planner::Scenario> edit_scenario(const planner::Scenario& scenario, const FieldPath& path,
                                        const std::string& value_json, const std::string& origin);

// One edit as edit_scenario takes it.
struct FieldEdit {
  FieldPath path;
  std::string value_json;
};

// The scenario file `original_text` with `edits` applied in order, each as
// edit_scenario puts its value, and nothing else changed: keys keep their
// order and fields the file leaves out stay out (no defaults written), laid
// out with 2-space indentation. The result is not loaded here. Errors
// (kInvalidArgument, naming `origin`): the original is not a JSON object, an
// edit's value is not JSON or its path does not fit the document.
Result<std::string> apply_edits_to_text(const std::string& original_text,
                                        const std::vector<FieldEdit>& edits,
                                        const std::string& origin);

}  // namespace shardlab::data
