// Sourced values of the presets file (docs/presets.md "The presets file"):
// {"value": V, "source": id, "note": text}, read by the GPU and the system
// presets alike (internal to the data library).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_reader.h"
#include "shardlab/data/gpu_presets.h"

namespace shardlab::data::internal {

// Reads sourced values, {"value": V, "source": id, "note": text}, checking
// that the source is listed, and records each as a PresetValue.
class SourcedReader {
 public:
  SourcedReader(const PresetCatalog& catalog, std::vector<PresetValue>& values)
      : catalog_(catalog), values_(values) {}

  // Converts member `key` of `obj` (a sourced value) into `out`; `field`
  // names it in the record. Absent: an error when `required`.
  template <typename T, typename Convert>
  Status read(const ObjectReader& obj, std::string_view key, const std::string& field, T& out,
              Convert&& convert, bool required = true) {
    const Json* v = obj.find(key);
    if (v == nullptr) {
      if (!required) return Status::ok();
      return obj.missing(key, "an object {\"value\": ..., \"source\": ...}");
    }
    ObjectReader entry(*v, obj.path_of(key));
    SHARDLAB_RETURN_IF_ERROR(entry.check("a sourced value {\"value\", \"source\", \"note\"}",
                                         {"value", "source", "note"}));
    PresetValue record;
    record.field = field;
    SHARDLAB_RETURN_IF_ERROR(
        entry.require("source", record.source, StringValue{.non_empty = true}, "a source id"));
    if (catalog_.source(record.source) == nullptr) {
      return invalid_at(entry.path_of("source"), "not a source listed in \"sources\"",
                        entry.find("source"));
    }
    SHARDLAB_RETURN_IF_ERROR(entry.read("note", record.note, StringValue{}));
    const Json* value = entry.find("value");
    if (value == nullptr) return entry.missing("value", "the number");
    SHARDLAB_RETURN_IF_ERROR(entry.read("value", out, std::forward<Convert>(convert)));
    record.value = value->is_string() ? value->get_ref<const std::string&>() : value->dump();
    values_.push_back(std::move(record));
    return Status::ok();
  }

 private:
  const PresetCatalog& catalog_;
  std::vector<PresetValue>& values_;
};

}  // namespace shardlab::data::internal
