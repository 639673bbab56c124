// NCCL communicators and the replay's collectives on them.
//
// An NcclGroup is a set of participants (NCCL ranks 0..size-1), of which this
// process drives `local_count()`: all of them when one process drives several
// GPUs (ncclCommInitAll), or one under mpirun (ncclCommInitRank with an id
// broadcast over MPI, sub-groups by ncclCommSplit). The collective functions
// take one LocalBuffers per local participant and enqueue the operation on
// each one's stream inside a single ncclGroupStart/End, so one thread can
// drive every local GPU without deadlock; they return once enqueued.
//
// Data is fp32 (ncclFloat), sizes in elements, as the CPU reference's
// collectives (cpu_collectives.h): the replay turns a spec's byte sizes into
// element counts with collective_buffers(). Uneven reduce-scatter and
// all-gather run as one ncclReduce / ncclBroadcast per root in a group, as
// PyTorch does for uneven splits; even ones use ncclReduceScatter / ncclAllGather.
//
// Thread safety: a group and its communicators belong to one thread.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "shardlab/planner/status.h"

namespace shardlab::kernels::cuda {

class NcclGroup {
 public:
  ~NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  // One process drives every participant; participant i runs on devices[i].
  static Result<std::unique_ptr<NcclGroup>> create_local(const std::vector<int>& devices);
  // This process is participant `rank` of `size`, on `device` (mpirun: one
  // process per GPU). Every participant calls it with the same id.
  static Result<std::unique_ptr<NcclGroup>> create_from_id(const ncclUniqueId& id, int rank,
                                                           int size, int device);

  // A group of the participants `members` (indices into this group,
  // ascending), in that order. Every process of this group calls it with the
  // same members; a process with no participant among them gets null.
  Result<std::unique_ptr<NcclGroup>> subgroup(const std::vector<int>& members);

  int size() const { return size_; }
  int local_count() const { return static_cast<int>(locals_.size()); }
  int rank_of(int local) const { return locals_[static_cast<size_t>(local)].rank; }
  int device_of(int local) const { return locals_[static_cast<size_t>(local)].device; }
  ncclComm_t comm_of(int local) const { return locals_[static_cast<size_t>(local)].comm; }
  // The local index of participant `rank`, or -1 when another process drives it.
  int local_of(int rank) const;

 private:
  struct Local {
    int rank = 0;
    int device = 0;
    ncclComm_t comm = nullptr;
  };
  NcclGroup() = default;

  int size_ = 0;
  bool single_process_ = true;
  std::vector<Local> locals_;
};

// One local participant's buffers (device memory on its GPU) and stream.
struct LocalBuffers {
  const float* send = nullptr;
  float* recv = nullptr;
  cudaStream_t stream = nullptr;
};

// Participant i sends counts[i][j] floats to j (i != j), laid out in its send
// buffer in participant order; it receives counts[j][i] from each j, laid out
// in participant order. counts is size x size (the diagonal is ignored).
Status nccl_all_to_all(const NcclGroup& group, const std::vector<std::vector<int64_t>>& counts,
                       const std::vector<LocalBuffers>& buffers);
// Every participant sends sum(counts) floats; participant m receives the
// element-wise sum over participants of their segment m (counts[m] floats).
Status nccl_reduce_scatter(const NcclGroup& group, const std::vector<int64_t>& counts,
                           const std::vector<LocalBuffers>& buffers);
// Participant m sends counts[m] floats; every participant receives the
// concatenation in participant order.
Status nccl_all_gather(const NcclGroup& group, const std::vector<int64_t>& counts,
                       const std::vector<LocalBuffers>& buffers);
// Every participant ends with recv = the element-wise sum of all sends (count floats).
Status nccl_all_reduce(const NcclGroup& group, int64_t count,
                       const std::vector<LocalBuffers>& buffers);

}  // namespace shardlab::kernels::cuda
