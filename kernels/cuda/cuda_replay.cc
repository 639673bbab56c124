// The CUDA backend's replay (cuda_backend.h): places the replayed ranks in
// waves (replay_placement.h), runs each wave (replay_wave.h) and turns what
// every wave, and under mpirun every process, measured into one result.
//
// Order of records (assemble_records): lookups by rank, forward before
// backward, shards in plan order; then collectives in issue order, members by
// rank. Under mpirun every process gathers every record (as bytes,
// replay_records.h), so each returns the whole result.

#include <algorithm>
#include <cstring>
#include <string>

#include "cuda_check.h"
#include "cuda_context.h"
#include "nccl_check.h"
#include "replay_wave.h"

namespace shardlab::kernels::cuda {
namespace {

Status check_options(const ReplayWorkload& w, const ReplayOptions& o) {
  SHARDLAB_RETURN_IF_ERROR(check_replay_options(w, o));
  if (static_cast<int>(w.ranks.size()) != w.world_size) {
    return Status::internal("workload with " + std::to_string(w.ranks.size()) +
                            " ranks for world size " + std::to_string(w.world_size));
  }
  return Status::ok();
}

#if defined(SHARDLAB_HAVE_MPI)
// The world communicator of an mpirun launch (NCCL's id from process 0 over
// MPI) and every process's host.
Status ensure_world(CudaContext& ctx) {
  if (ctx.world) return Status::ok();
  ncclUniqueId id{};
  if (ctx.launch.rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  SHARDLAB_RETURN_IF_ERROR(mpi_broadcast(&id, sizeof id, 0));
  auto world = NcclGroup::create_from_id(id, ctx.launch.rank, ctx.launch.size, ctx.devices.front());
  if (!world) return world.status().with_context("NCCL bootstrap over MPI");
  ctx.world = std::move(*world);
  auto host = mpi_host_id();
  if (!host) return host.status();
  std::vector<std::byte> mine(sizeof(uint64_t));
  std::memcpy(mine.data(), &*host, sizeof(uint64_t));
  auto hosts = mpi_allgather(mine);
  if (!hosts) return hosts.status();
  ctx.host_ids.assign(hosts->size() / sizeof(uint64_t), 0);
  std::memcpy(ctx.host_ids.data(), hosts->data(), ctx.host_ids.size() * sizeof(uint64_t));
  return Status::ok();
}
#endif

}  // namespace

Result<ReplayResult> cuda_replay(CudaContext& ctx, const ReplayWorkload& workload,
                                 const ReplayOptions& options, const ProgressFn& progress) {
  if (Status st = check_options(workload, options); !st) return st;
  const std::vector<int> ranks = replayed_ranks(workload, options);
  if (ranks.empty()) return Status::invalid_argument("no ranks to replay");
  Result<std::vector<ReplayWave>> waves = place_waves(ranks, ctx.launch, ctx.devices);
  if (!waves) return waves.status();
#if defined(SHARDLAB_HAVE_MPI)
  if (ctx.launch.size > 1) SHARDLAB_RETURN_IF_ERROR(ensure_world(ctx));
#endif

  std::vector<ReplayRecord> records;
  int done = 0;
  const int total = static_cast<int>(waves->size()) * (options.warmup + options.iterations);
  for (ReplayWave& placement : *waves) {
    // Each wave's tables and communicators are freed before the next one's.
    Wave wave(ctx, workload, options, std::move(placement));
    SHARDLAB_RETURN_IF_ERROR(wave.set_up());
    SHARDLAB_RETURN_IF_ERROR(wave.run(progress, done, total));
    if (options.verify) SHARDLAB_RETURN_IF_ERROR(wave.verify());
    const std::vector<ReplayRecord> mine = wave.records();
    records.insert(records.end(), mine.begin(), mine.end());
  }
#if defined(SHARDLAB_HAVE_MPI)
  if (ctx.launch.size > 1) {
    auto all = mpi_allgather(encode_records(records));
    if (!all) return all.status().with_context("gathering the records of every process");
    auto decoded = decode_records(*all);
    if (!decoded) return decoded.status();
    records = std::move(*decoded);
  }
#endif

  ReplayResult result;
  result.backend = "cuda";
  result.device_name = ctx.device_name;
  result.world_size = workload.world_size;
  result.devices_used = ctx.launch.size > 1
                            ? ctx.launch.size
                            : static_cast<int>(std::min(ranks.size(), ctx.devices.size()));
  result.warmup = options.warmup;
  result.iterations = options.iterations;
  SHARDLAB_RETURN_IF_ERROR(assemble_records(workload, records, result));
  return result;
}

}  // namespace shardlab::kernels::cuda
