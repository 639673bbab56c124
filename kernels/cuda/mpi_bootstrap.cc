// MPI side of the multi-process replay (mpi_bootstrap.h). Compiled only when
// CMake found MPI; every MPI error becomes a Status naming the call.

#include "mpi_bootstrap.h"

#include <mpi.h>

#include <cstdlib>
#include <functional>
#include <limits>
#include <string>

namespace shardlab::kernels::cuda {
namespace {

bool g_started_here = false;  // this library called MPI_Init (so it calls MPI_Finalize)

Status mpi_error(int code, const char* call) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return Status::internal(std::string(call) +
                          " failed: " + std::string(text, static_cast<size_t>(length)));
}

#define SHARDLAB_MPI_CHECK(call)                                      \
  do {                                                                \
    const int mpi_code_ = (call);                                     \
    if (mpi_code_ != MPI_SUCCESS) return mpi_error(mpi_code_, #call); \
  } while (0)

}  // namespace

Status mpi_start(const ProcessLaunch& launch) {
  int initialized = 0;
  SHARDLAB_MPI_CHECK(MPI_Initialized(&initialized));
  if (!initialized) {
    int provided = 0;
    // One thread drives MPI; the replay's other threads never call it.
    SHARDLAB_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
    g_started_here = true;
    // Finalise at exit, after the backend and its NCCL communicators are gone.
    std::atexit(mpi_stop);
    // Errors come back as codes (then Status), not as an abort of every process.
    SHARDLAB_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  }
  int rank = 0;
  int size = 0;
  SHARDLAB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  SHARDLAB_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (rank != launch.rank || size != launch.size) {
    return Status::internal(
        "MPI world (rank " + std::to_string(rank) + " of " + std::to_string(size) +
        ") differs from the launcher's environment (rank " + std::to_string(launch.rank) + " of " +
        std::to_string(launch.size) + ")");
  }
  return Status::ok();
}

void mpi_stop() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_started_here && !finalized) MPI_Finalize();
  g_started_here = false;
}

Status mpi_barrier() {
  SHARDLAB_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  return Status::ok();
}

Status mpi_broadcast(void* data, int64_t bytes, int root) {
  SHARDLAB_MPI_CHECK(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD));
  return Status::ok();
}

Result<std::vector<std::byte>> mpi_allgather(const std::vector<std::byte>& mine) {
  int size = 0;
  SHARDLAB_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (mine.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::internal("mpi_allgather: " + std::to_string(mine.size()) +
                            " bytes exceed MPI's int count");
  }
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size));
  SHARDLAB_MPI_CHECK(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD));
  std::vector<int> displacements(static_cast<size_t>(size), 0);
  int64_t total = 0;
  for (size_t p = 0; p < counts.size(); ++p) {
    if (total > std::numeric_limits<int>::max()) {
      return Status::internal("mpi_allgather: the gathered bytes exceed MPI's int displacements");
    }
    displacements[p] = static_cast<int>(total);
    total += counts[p];
  }
  std::vector<std::byte> all(static_cast<size_t>(total));
  SHARDLAB_MPI_CHECK(MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(),
                                    displacements.data(), MPI_BYTE, MPI_COMM_WORLD));
  return all;
}

Result<uint64_t> mpi_host_id() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  SHARDLAB_MPI_CHECK(MPI_Get_processor_name(name, &length));
  return static_cast<uint64_t>(
      std::hash<std::string>{}(std::string(name, static_cast<size_t>(length))));
}

}  // namespace shardlab::kernels::cuda
