// Shared by run_export.cc, run_diff.cc and run_records.cc.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace shardlab::data::internal {

// `text` parsed as JSON; null when empty, the text itself as a JSON string
// when it does not parse.
nlohmann::ordered_json embedded_json(const std::string& text);

}  // namespace shardlab::data::internal
