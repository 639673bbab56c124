// Reading the presets file's "systems" (internal to the data library).
#pragma once

#include "json_reader.h"
#include "shardlab/data/gpu_presets.h"

namespace shardlab::data::internal {

// Reads root["systems"] (optional) into c.systems; c.gpus and c.sources are
// read already. Errors: kInvalidArgument naming the path and the value.
Status read_systems(const ObjectReader& root, PresetCatalog& c);

}  // namespace shardlab::data::internal
