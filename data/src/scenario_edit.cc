#include "shardlab/data/scenario_edit.h"

#include <utility>

#include "json_document.h"
#include "json_path.h"
#include "message_text.h"
#include "shardlab/data/scenario_loader.h"
#include "shardlab/data/scenario_writer.h"

namespace shardlab::data {
namespace {

using internal::Json;

Status bad_edit(const std::string& origin, const FieldPath& path, const std::string& why) {
  return Status::invalid_argument(
      internal::printable(origin + ": " + to_string(path) + ": " + why));
}

// The writer spells out the topology fields the file left out when there is
// no preset; an edit leaves them out again, so that a preset set by this edit
// or a later one fills them (its values are the defaults otherwise).
void drop_left_out_topology(const planner::PresetFills& left_out, Json& doc) {
  const auto it = doc.find("topology");
  if (it == doc.end() || !it->is_object()) return;
  const std::pair<bool, const char*> fields[] = {
      {left_out.hbm_cap, "hbm_cap"},
      {left_out.hbm_mem_bw, "hbm_mem_bw"},
      {left_out.ddr_mem_bw, "ddr_mem_bw"},
      {left_out.hbm_to_ddr_mem_bw, "hbm_to_ddr_mem_bw"},
      {left_out.intra_host_bw, "intra_host_bw"},
      {left_out.inter_host_bw, "inter_host_bw"},
      {left_out.bwd_compute_multiplier, "bwd_compute_multiplier"},
  };
  for (const auto& [out, key] : fields) {
    if (out) it->erase(key);
  }
}

}  // namespace

std::string to_string(const FieldPath& path) {
  std::string out;
  for (const FieldStep& step : path) {
    if (const std::string* key = std::get_if<std::string>(&step)) {
      internal::append_path_key(out, *key);
    } else {
      internal::append_path_index(out, static_cast<std::size_t>(std::get<int>(step)));
    }
  }
  return out.empty() ? "<root>" : out;
}

namespace {

// Puts `value` at `path` in `doc` (null removes the field), creating the
// objects missing on the way.
Status set_at(Json& doc, const FieldPath& path, Json value, const std::string& origin) {
  if (path.empty()) return bad_edit(origin, path, "no field to edit");
  // Walk to the parent of the last step, creating objects on the way.
  Json* node = &doc;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (const std::string* key = std::get_if<std::string>(&path[i])) {
      if (!node->is_object())
        return bad_edit(origin, path, "not an object at step " + std::to_string(i));
      Json& child = (*node)[*key];
      if (child.is_null()) child = Json::object();
      node = &child;
    } else {
      const int index = std::get<int>(path[i]);
      if (!node->is_array() || index < 0 || static_cast<size_t>(index) >= node->size()) {
        return bad_edit(origin, path, "no element " + std::to_string(index));
      }
      node = &(*node)[static_cast<size_t>(index)];
    }
  }
  const FieldStep& last = path.back();
  if (const std::string* key = std::get_if<std::string>(&last)) {
    if (!node->is_object()) return bad_edit(origin, path, "not an object");
    if (value.is_null()) {
      node->erase(*key);
    } else {
      (*node)[*key] = std::move(value);
    }
    return Status::ok();
  }
  const int index = std::get<int>(last);
  if (!node->is_array() || index < 0 || static_cast<size_t>(index) >= node->size()) {
    return bad_edit(origin, path, "no element " + std::to_string(index));
  }
  (*node)[static_cast<size_t>(index)] = std::move(value);
  return Status::ok();
}

}  // namespace

Result<planner::Scenario> edit_scenario(const planner::Scenario& scenario, const FieldPath& path,
                                        const std::string& value_json, const std::string& origin) {
  if (path.empty()) return bad_edit(origin, path, "no field to edit");
  auto value = internal::parse_json_document(value_json);
  if (!value)
    return bad_edit(origin, path, "the value is not JSON (" + value.status().message() + ")");
  auto doc = internal::parse_json_document(scenario_to_json(scenario, kCompactJson));
  if (!doc)
    return Status::internal("scenario_to_json wrote malformed JSON: " + doc.status().message());
  drop_left_out_topology(scenario.preset_fills, *doc);
  if (Status st = set_at(*doc, path, std::move(*value), origin); !st.is_ok()) return st;
  return parse_scenario(doc->dump(), origin);
}

Result<std::string> apply_edits_to_text(const std::string& original_text,
                                        const std::vector<FieldEdit>& edits,
                                        const std::string& origin) {
  auto doc = internal::parse_json_document(original_text);
  if (!doc || !doc->is_object()) {
    return Status::invalid_argument(origin + ": the file to save into is not a JSON object");
  }
  for (const FieldEdit& e : edits) {
    auto value = internal::parse_json_document(e.value_json);
    if (!value) {
      return bad_edit(origin, e.path, "the value is not JSON (" + value.status().message() + ")");
    }
    if (Status st = set_at(*doc, e.path, std::move(*value), origin); !st.is_ok()) return st;
  }
  return doc->dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace shardlab::data
