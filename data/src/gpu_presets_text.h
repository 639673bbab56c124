// The text of data/presets/gpus.json, compiled in by CMake
// (cmake/EmbedText.cmake writes gpu_presets_text.cc at build time).
#pragma once

#include <cstddef>

namespace shardlab::data::internal {

extern const char kGpuPresetsJson[];
extern const std::size_t kGpuPresetsJsonSize;

}  // namespace shardlab::data::internal
