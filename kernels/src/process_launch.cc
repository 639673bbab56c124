#include "process_launch.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace shardlab::kernels {
namespace {

std::optional<int> read_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  int out = 0;
  const char* end = v + std::strlen(v);
  const auto [ptr, ec] = std::from_chars(v, end, out);
  if (ec != std::errc() || ptr != end || out < 0) return std::nullopt;
  return out;
}

int first_of(const char* a, const char* b, int fallback) {
  if (const auto v = read_int(a)) return *v;
  if (const auto v = read_int(b)) return *v;
  return fallback;
}

}  // namespace

ProcessLaunch detect_launch() {
  ProcessLaunch launch;
  launch.size = first_of("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1);
  if (launch.size < 1) launch.size = 1;
  launch.rank = first_of("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0);
  launch.local_rank = first_of("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", launch.rank);
  return launch;
}

}  // namespace shardlab::kernels
