// The text of data/presets/hosts.json, compiled in by CMake
// (cmake/EmbedText.cmake writes host_profiles_text.cc at build time).
#pragma once

#include <cstddef>

namespace shardlab::data::internal {

extern const char kHostProfilesJson[];
extern const std::size_t kHostProfilesJsonSize;

}  // namespace shardlab::data::internal
