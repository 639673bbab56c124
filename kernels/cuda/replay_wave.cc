// A wave's set-up, its timed loop and its records (replay_wave.h).

#include "replay_wave.h"

#include <cuda_runtime_api.h>

#include <string>

#include "cuda_check.h"
#include "shardlab/kernels/bytes.h"

namespace shardlab::kernels::cuda {

Status Wave::set_up() {
  draw_ = InputDraw{.seed = o_.seed,
                    .zipf = o_.ids == IdDistribution::kZipf,
                    .alpha = o_.zipf_alpha,
                    .poisson = o_.pooling == PoolingDistribution::kPoisson};
  slots_.resize(placement_.local.size());
  for (size_t k = 0; k < placement_.local.size(); ++k) {
    Slot& slot = slots_[k];
    slot.rank = placement_.local[k].rank;
    slot.device = placement_.local[k].device;
    DeviceGuard guard(slot.device);
    if (!guard.ok()) return Status::internal("cannot select GPU " + std::to_string(slot.device));
    SHARDLAB_RETURN_IF_ERROR(slot.stream.create());
    const auto& works = w_.ranks[static_cast<size_t>(slot.rank)].shards;
    slot.shards.resize(works.size());
    for (size_t s = 0; s < works.size(); ++s) {
      ShardSlot& sh = slot.shards[s];
      sh.work = &works[s];
      sh.index = static_cast<int>(s);
      auto shard = DeviceShard::create(shape_of(works[s]), w_.optimizer);
      if (!shard) {
        return shard.status().with_context("rank " + std::to_string(slot.rank) + " shard " +
                                           std::to_string(s) + " (table " + works[s].table +
                                           ") on GPU " + std::to_string(slot.device) +
                                           "; cap the rows per shard or replay fewer ranks");
      }
      sh.shard = std::move(*shard);
      SHARDLAB_RETURN_IF_ERROR(sh.shard->fill_table(
          o_.seed, table_key(static_cast<uint64_t>(slot.rank), s), slot.stream.get()));
      SHARDLAB_RETURN_IF_ERROR(sh.fwd_events.create());
      SHARDLAB_RETURN_IF_ERROR(sh.bwd_events.create());
    }
  }
  return set_up_collectives();
}

Status Wave::draw_inputs(int iteration) {
  const auto it = static_cast<uint64_t>(iteration);
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    for (ShardSlot& sh : slot.shards) {
      SHARDLAB_RETURN_IF_ERROR(sh.shard->draw_offsets(
          draw_, shard_key(static_cast<uint64_t>(slot.rank), static_cast<uint64_t>(sh.index), it),
          slot.stream.get()));
    }
  }
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    CUDA_CHECK(cudaStreamSynchronize(slot.stream.get()));
    for (ShardSlot& sh : slot.shards) {
      SHARDLAB_RETURN_IF_ERROR(sh.shard->draw_rest(
          draw_, shard_key(static_cast<uint64_t>(slot.rank), static_cast<uint64_t>(sh.index), it),
          w_.training, slot.stream.get()));
    }
  }
  return Status::ok();
}

// Enqueues every local shard's lookups; their events are read after the
// iteration's synchronisation.
Status Wave::run_lookups(bool forward) {
  const DeviceOptimizer optimizer{.kind = w_.optimizer, .learning_rate = o_.learning_rate};
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    cudaStream_t stream = slot.stream.get();
    for (ShardSlot& sh : slot.shards) {
      EventPair& events = forward ? sh.fwd_events : sh.bwd_events;
      SHARDLAB_RETURN_IF_ERROR(events.record_start(stream));
      SHARDLAB_RETURN_IF_ERROR(forward ? sh.shard->forward(stream)
                                       : sh.shard->backward(optimizer, stream));
      SHARDLAB_RETURN_IF_ERROR(events.record_stop(stream));
    }
  }
  return Status::ok();
}

// After a timed iteration's synchronisation: every event pair's time.
Status Wave::read_timings() {
  for (Slot& slot : slots_) {
    for (ShardSlot& sh : slot.shards) {
      auto fwd = sh.fwd_events.elapsed_ms();
      if (!fwd) return fwd.status();
      sh.fwd_ms.push_back(*fwd);
      slot.phases.add(sim::Phase::kFwdCompute, *fwd);
      sh.fwd_bytes += forward_bytes(sh.shard->lookup_shape());
      if (!w_.training) continue;
      auto bwd = sh.bwd_events.elapsed_ms();
      if (!bwd) return bwd.status();
      sh.bwd_ms.push_back(*bwd);
      slot.phases.add(sim::Phase::kBwdCompute, *bwd);
      sh.bwd_bytes +=
          backward_bytes(sh.shard->lookup_shape(), sh.shard->unique_rows(), w_.optimizer);
    }
    for (SlotCollective& sc : slot.collectives) {
      const WaveCollective& c = collectives_[static_cast<size_t>(sc.collective)];
      if (c.group == nullptr) continue;
      auto ms = sc.events.elapsed_ms();
      if (!ms) return ms.status();
      sc.ms.push_back(*ms);
      slot.phases.add(c.spec.phase, *ms);
    }
    slot.phases.end_iteration();
  }
  return Status::ok();
}

Status Wave::run(const ProgressFn& progress, int& done, int total) {
  const int iterations = o_.warmup + o_.iterations;
  for (int it = 0; it < iterations; ++it) {
    SHARDLAB_RETURN_IF_ERROR(draw_inputs(it));
    for (const ReplayStep& step : kReplaySteps) {
      if (!runs_step(step, w_.training)) continue;
      SHARDLAB_RETURN_IF_ERROR(step.lookups ? run_lookups(step.forward())
                                            : run_collectives(step.phase));
    }
    SHARDLAB_RETURN_IF_ERROR(synchronize_all());
    if (it >= o_.warmup) SHARDLAB_RETURN_IF_ERROR(read_timings());
    ++done;
    if (progress) progress(done, total, iteration_progress(it, o_));
  }
  return Status::ok();
}

std::vector<ReplayRecord> Wave::records() const {
  std::vector<ReplayRecord> out;
  for (const Slot& slot : slots_) {
    for (const ShardSlot& sh : slot.shards) {
      out.push_back(lookup_record(slot.rank, sh.index, true, sh.fwd_bytes / o_.iterations,
                                  sh.wrong_fwd, summarize(sh.fwd_ms)));
      if (!w_.training) continue;
      out.push_back(lookup_record(slot.rank, sh.index, false, sh.bwd_bytes / o_.iterations,
                                  sh.wrong_bwd, summarize(sh.bwd_ms)));
    }
    for (const SlotCollective& sc : slot.collectives) {
      if (sc.ms.empty()) continue;  // mpirun: run by other processes only
      const WaveCollective& c = collectives_[static_cast<size_t>(sc.collective)];
      out.push_back(collective_record(slot.rank, c.index, static_cast<int>(c.spec.members.size()),
                                      c.inter_host, c.spec.bytes_sent(sc.member),
                                      summarize(sc.ms)));
    }
    add_phase_records(slot.rank, slot.phases, out);
  }
  return out;
}

}  // namespace shardlab::kernels::cuda
