// A wave's collectives (replay_wave.h): communicators for each distinct set
// of members, buffers sized for the largest part of each slot, and the NCCL
// calls, timed per member on its stream.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "cuda_check.h"
#include "replay_wave.h"

namespace shardlab::kernels::cuda {

Status Wave::set_up_collectives() {
  const std::vector<int>& ranks = placement_.ranks;
  for (ReplayedCollective& replayed : replayed_collectives(w_.collectives, w_.training, ranks)) {
    const int c = replayed.index;
    WaveCollective wc;
    wc.index = c;
    wc.spec = std::move(replayed.spec);
    const int n = static_cast<int>(wc.spec.members.size());
    for (int m = 0; m < n; ++m) {
      const CollectiveBuffers b = collective_buffers(wc.spec, m);
      if (wc.spec.kind == sim::CollectiveKind::kAllToAll) wc.counts.push_back(b.send_counts);
      if (m == 0) {
        wc.chunks = b.send_counts;
        wc.elements = b.recv_elements;
      }
    }
    // Members as indices into the wave (= processes under mpirun).
    const std::vector<int> in_wave = wave_indices(ranks, wc.spec.members);
    if (mpi()) wc.inter_host = spans_hosts(in_wave, ctx_.host_ids);
    auto found = groups_.find(wc.spec.members);
    if (found == groups_.end()) {
      std::unique_ptr<NcclGroup> group;
      if (mpi()) {
        // Every process calls this for the same collectives in the same order.
        auto sub = ctx_.world->subgroup(in_wave);
        if (!sub)
          return sub.status().with_context("NCCL communicator for collective " + std::to_string(c));
        group = std::move(*sub);
      } else {
        std::vector<int> devices;
        for (int i : in_wave) devices.push_back(slots_[static_cast<size_t>(i)].device);
        auto made = NcclGroup::create_local(devices);
        if (!made)
          return made.status().with_context("NCCL communicator for collective " +
                                            std::to_string(c));
        group = std::move(*made);
      }
      found = groups_.emplace(wc.spec.members, std::move(group)).first;
    }
    wc.group = found->second.get();
    collectives_.push_back(std::move(wc));
  }
  // Each slot's part in the collectives, and buffers for the largest.
  for (Slot& slot : slots_) {
    int64_t send = 1;
    int64_t recv = 1;
    for (size_t c = 0; c < collectives_.size(); ++c) {
      const int member = member_index(collectives_[c].spec, slot.rank);
      if (member < 0) continue;
      SlotCollective sc;
      sc.collective = static_cast<int>(c);
      sc.member = member;
      const CollectiveBuffers b = collective_buffers(collectives_[c].spec, sc.member);
      send = std::max(send, b.send_elements);
      recv = std::max(recv, b.recv_elements);
      DeviceGuard guard(slot.device);
      SHARDLAB_RETURN_IF_ERROR(sc.events.create());
      slot.collectives.push_back(std::move(sc));
    }
    DeviceGuard guard(slot.device);
    if (Status st = slot.send.reserve(send); !st) return st.with_context("collective send buffer");
    if (Status st = slot.recv.reserve(recv); !st)
      return st.with_context("collective receive buffer");
    // Zeros: reductions of finite data, whatever was in the memory before.
    CUDA_CHECK(cudaMemsetAsync(slot.send.data(), 0, static_cast<size_t>(send) * sizeof(float),
                               slot.stream.get()));
    CUDA_CHECK(cudaMemsetAsync(slot.recv.data(), 0, static_cast<size_t>(recv) * sizeof(float),
                               slot.stream.get()));
  }
  return synchronize_all();
}

Status Wave::synchronize_all() {
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    CUDA_CHECK(cudaStreamSynchronize(slot.stream.get()));
  }
#if defined(SHARDLAB_HAVE_MPI)
  if (mpi()) SHARDLAB_RETURN_IF_ERROR(mpi_barrier());
#endif
  return Status::ok();
}

Status Wave::run_collective(WaveCollective& c) {
  // Start together (the CPU backend's barrier): wait for every local GPU and,
  // under mpirun, every process, members or not (the barrier is MPI's world).
  SHARDLAB_RETURN_IF_ERROR(synchronize_all());
  if (c.group == nullptr) return Status::ok();  // mpirun: this process has no member in it
  std::vector<LocalBuffers> buffers(static_cast<size_t>(c.group->local_count()));
  std::vector<SlotCollective*> parts(buffers.size(), nullptr);
  std::vector<Slot*> owners(buffers.size(), nullptr);
  const int collective = static_cast<int>(&c - collectives_.data());
  for (Slot& slot : slots_) {
    for (SlotCollective& sc : slot.collectives) {
      if (sc.collective != collective) continue;
      const int l = c.group->local_of(sc.member);
      if (l < 0) continue;
      buffers[static_cast<size_t>(l)] = LocalBuffers{
          .send = slot.send.data(), .recv = slot.recv.data(), .stream = slot.stream.get()};
      parts[static_cast<size_t>(l)] = &sc;
      owners[static_cast<size_t>(l)] = &slot;
    }
  }
  for (size_t l = 0; l < parts.size(); ++l) {
    if (parts[l] == nullptr) return Status::internal("collective member without a local GPU");
    DeviceGuard guard(owners[l]->device);
    SHARDLAB_RETURN_IF_ERROR(parts[l]->events.record_start(buffers[l].stream));
  }
  switch (c.spec.kind) {
    case sim::CollectiveKind::kAllToAll:
      SHARDLAB_RETURN_IF_ERROR(nccl_all_to_all(*c.group, c.counts, buffers));
      break;
    case sim::CollectiveKind::kReduceScatter:
      SHARDLAB_RETURN_IF_ERROR(nccl_reduce_scatter(*c.group, c.chunks, buffers));
      break;
    case sim::CollectiveKind::kAllGather:
      SHARDLAB_RETURN_IF_ERROR(nccl_all_gather(*c.group, c.chunks, buffers));
      break;
    case sim::CollectiveKind::kAllReduce:
      SHARDLAB_RETURN_IF_ERROR(nccl_all_reduce(*c.group, c.elements, buffers));
      break;
    case sim::CollectiveKind::kEstimate:
      break;
  }
  for (size_t l = 0; l < parts.size(); ++l) {
    DeviceGuard guard(owners[l]->device);
    SHARDLAB_RETURN_IF_ERROR(parts[l]->events.record_stop(buffers[l].stream));
  }
  return Status::ok();
}

Status Wave::run_collectives(sim::Phase phase) {
  for (WaveCollective& c : collectives_) {
    if (c.spec.phase == phase) SHARDLAB_RETURN_IF_ERROR(run_collective(c));
  }
  return Status::ok();
}

}  // namespace shardlab::kernels::cuda
