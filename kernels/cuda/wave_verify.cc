// A wave's check against the CPU reference (replay_wave.h, ReplayOptions::verify):
// every shard runs again, on a table and batch capped in size, on its GPU and
// on the CPU; the elements that differ become the records' wrong_elements.

#include <algorithm>

#include "cuda_check.h"
#include "replay_wave.h"

namespace shardlab::kernels::cuda {
namespace {

// Shards a verification run checks at most this large: the CPU reference
// replays them too, so the check stays quick on any table.
constexpr int64_t kVerifyRows = 65536;
constexpr int64_t kVerifyBags = 2048;
constexpr int kVerifyIterations = 2;

}  // namespace

Status Wave::verify() {
  const OptimizerConfig optimizer{.kind = w_.optimizer, .learning_rate = o_.learning_rate};
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    for (ShardSlot& sh : slot.shards) {
      ShardShape shape = shape_of(*sh.work);
      shape.rows = std::min(shape.rows, kVerifyRows);
      shape.bags = std::min(shape.bags, kVerifyBags);
      auto device =
          run_shard_on_device(shape, draw_, optimizer, slot.rank, sh.index, kVerifyIterations);
      if (!device) return device.status().with_context("verifying table " + sh.work->table);
      const ShardRun reference =
          run_shard_on_cpu(shape, draw_, optimizer, slot.rank, sh.index, kVerifyIterations);
      const ShardDifferences d = compare_runs(*device, reference);
      sh.wrong_fwd = d.inputs + d.forward;
      sh.wrong_bwd = d.table + d.state;
    }
  }
  return Status::ok();
}

}  // namespace shardlab::kernels::cuda
