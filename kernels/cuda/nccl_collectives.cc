// NCCL groups and collectives (nccl_collectives.h).

#include "nccl_collectives.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "cuda_check.h"
#include "device_buffer.h"
#include "nccl_check.h"

namespace shardlab::kernels::cuda {
namespace {

// Ends an NCCL group on every path out of a scope that started one, so an
// error inside does not leave the thread's group open.
class GroupScope {
 public:
  GroupScope() : result_(ncclGroupStart()) {}
  ~GroupScope() {
    if (open_) (void)ncclGroupEnd();
  }
  GroupScope(const GroupScope&) = delete;
  GroupScope& operator=(const GroupScope&) = delete;
  ncclResult_t started() const { return result_; }
  ncclResult_t end() {
    open_ = false;
    return ncclGroupEnd();
  }

 private:
  ncclResult_t result_;
  bool open_ = true;
};

std::vector<int64_t> prefix_offsets(const std::vector<int64_t>& counts) {
  std::vector<int64_t> offsets(counts.size() + 1, 0);
  std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
  return offsets;
}

Status check_buffers(const NcclGroup& group, const std::vector<LocalBuffers>& buffers) {
  if (static_cast<int>(buffers.size()) != group.local_count()) {
    return Status::internal("NCCL collective: " + std::to_string(buffers.size()) +
                            " buffer sets for " + std::to_string(group.local_count()) +
                            " local participants");
  }
  return Status::ok();
}

// Reduce-scatter and all-gather with one chunk per member: NCCL's collective
// takes one count, so equal chunks go to `even(b, count, comm)` and unequal
// ones to `rooted(b, root, count, offset, comm)` once per member's non-empty
// chunk (offset: floats before that chunk). Both enqueue on b.stream within
// one NCCL group and return a Status.
template <typename Even, typename Rooted>
Status chunked_collective(const NcclGroup& group, const std::vector<int64_t>& counts,
                          const std::vector<LocalBuffers>& buffers, Even even, Rooted rooted) {
  SHARDLAB_RETURN_IF_ERROR(check_buffers(group, buffers));
  const bool equal =
      std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) == counts.end();
  const std::vector<int64_t> offsets = prefix_offsets(counts);
  GroupScope scope;
  NCCL_CHECK(scope.started());
  for (int l = 0; l < group.local_count(); ++l) {
    const LocalBuffers& b = buffers[static_cast<size_t>(l)];
    if (equal) {
      if (counts.front() > 0) {
        SHARDLAB_RETURN_IF_ERROR(even(b, static_cast<size_t>(counts.front()), group.comm_of(l)));
      }
      continue;
    }
    for (int root = 0; root < group.size(); ++root) {
      const int64_t count = counts[static_cast<size_t>(root)];
      if (count == 0) continue;
      SHARDLAB_RETURN_IF_ERROR(rooted(b, root, static_cast<size_t>(count),
                                      offsets[static_cast<size_t>(root)], group.comm_of(l)));
    }
  }
  NCCL_CHECK(scope.end());
  return Status::ok();
}

}  // namespace

NcclGroup::~NcclGroup() {
  for (Local& l : locals_) {
    if (l.comm != nullptr) (void)ncclCommDestroy(l.comm);
  }
}

Result<std::unique_ptr<NcclGroup>> NcclGroup::create_local(const std::vector<int>& devices) {
  if (devices.empty()) return Status::internal("NCCL group without devices");
  std::unique_ptr<NcclGroup> group(new NcclGroup());
  group->size_ = static_cast<int>(devices.size());
  group->single_process_ = true;
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  NCCL_CHECK(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
  for (size_t i = 0; i < devices.size(); ++i) {
    group->locals_.push_back(
        Local{.rank = static_cast<int>(i), .device = devices[i], .comm = comms[i]});
  }
  return group;
}

Result<std::unique_ptr<NcclGroup>> NcclGroup::create_from_id(const ncclUniqueId& id, int rank,
                                                             int size, int device) {
  std::unique_ptr<NcclGroup> group(new NcclGroup());
  group->size_ = size;
  group->single_process_ = false;
  DeviceGuard guard(device);
  if (!guard.ok()) return Status::internal("cannot select GPU " + std::to_string(device));
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, size, id, rank));
  group->locals_.push_back(Local{.rank = rank, .device = device, .comm = comm});
  return group;
}

int NcclGroup::local_of(int rank) const {
  for (size_t i = 0; i < locals_.size(); ++i) {
    if (locals_[i].rank == rank) return static_cast<int>(i);
  }
  return -1;
}

Result<std::unique_ptr<NcclGroup>> NcclGroup::subgroup(const std::vector<int>& members) {
  if (single_process_) {
    std::vector<int> devices;
    for (int m : members) devices.push_back(locals_[static_cast<size_t>(m)].device);
    return create_local(devices);
  }
  // One participant per process: split the parent communicator. Every member
  // of the parent calls ncclCommSplit, the others with NCCL_SPLIT_NOCOLOR.
  const Local& self = locals_.front();
  const auto at = std::find(members.begin(), members.end(), self.rank);
  const bool inside = at != members.end();
  DeviceGuard guard(self.device);
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommSplit(self.comm, inside ? 0 : NCCL_SPLIT_NOCOLOR,
                           inside ? static_cast<int>(at - members.begin()) : 0, &comm, nullptr));
  if (!inside) return std::unique_ptr<NcclGroup>();
  std::unique_ptr<NcclGroup> group(new NcclGroup());
  group->size_ = static_cast<int>(members.size());
  group->single_process_ = false;
  group->locals_.push_back(
      Local{.rank = static_cast<int>(at - members.begin()), .device = self.device, .comm = comm});
  return group;
}

Status nccl_all_to_all(const NcclGroup& group, const std::vector<std::vector<int64_t>>& counts,
                       const std::vector<LocalBuffers>& buffers) {
  SHARDLAB_RETURN_IF_ERROR(check_buffers(group, buffers));
  const int n = group.size();
  GroupScope scope;
  NCCL_CHECK(scope.started());
  for (int l = 0; l < group.local_count(); ++l) {
    const int i = group.rank_of(l);
    const LocalBuffers& b = buffers[static_cast<size_t>(l)];
    int64_t send_offset = 0;
    int64_t recv_offset = 0;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const int64_t out = counts[static_cast<size_t>(i)][static_cast<size_t>(j)];
      const int64_t in = counts[static_cast<size_t>(j)][static_cast<size_t>(i)];
      if (out > 0) {
        NCCL_CHECK(ncclSend(b.send + send_offset, static_cast<size_t>(out), ncclFloat, j,
                            group.comm_of(l), b.stream));
      }
      if (in > 0) {
        NCCL_CHECK(ncclRecv(b.recv + recv_offset, static_cast<size_t>(in), ncclFloat, j,
                            group.comm_of(l), b.stream));
      }
      send_offset += out;
      recv_offset += in;
    }
  }
  NCCL_CHECK(scope.end());
  return Status::ok();
}

Status nccl_reduce_scatter(const NcclGroup& group, const std::vector<int64_t>& counts,
                           const std::vector<LocalBuffers>& buffers) {
  return chunked_collective(
      group, counts, buffers,
      [](const LocalBuffers& b, size_t count, ncclComm_t comm) {
        NCCL_CHECK(ncclReduceScatter(b.send, b.recv, count, ncclFloat, ncclSum, comm, b.stream));
        return Status::ok();
      },
      [](const LocalBuffers& b, int root, size_t count, int64_t offset, ncclComm_t comm) {
        // Only the root writes its receive buffer; the others' is ignored.
        NCCL_CHECK(
            ncclReduce(b.send + offset, b.recv, count, ncclFloat, ncclSum, root, comm, b.stream));
        return Status::ok();
      });
}

Status nccl_all_gather(const NcclGroup& group, const std::vector<int64_t>& counts,
                       const std::vector<LocalBuffers>& buffers) {
  return chunked_collective(
      group, counts, buffers,
      [](const LocalBuffers& b, size_t count, ncclComm_t comm) {
        NCCL_CHECK(ncclAllGather(b.send, b.recv, count, ncclFloat, comm, b.stream));
        return Status::ok();
      },
      [](const LocalBuffers& b, int root, size_t count, int64_t offset, ncclComm_t comm) {
        NCCL_CHECK(ncclBroadcast(b.send, b.recv + offset, count, ncclFloat, root, comm, b.stream));
        return Status::ok();
      });
}

Status nccl_all_reduce(const NcclGroup& group, int64_t count,
                       const std::vector<LocalBuffers>& buffers) {
  SHARDLAB_RETURN_IF_ERROR(check_buffers(group, buffers));
  if (count == 0) return Status::ok();
  GroupScope scope;
  NCCL_CHECK(scope.started());
  for (int l = 0; l < group.local_count(); ++l) {
    const LocalBuffers& b = buffers[static_cast<size_t>(l)];
    NCCL_CHECK(ncclAllReduce(b.send, b.recv, static_cast<size_t>(count), ncclFloat, ncclSum,
                             group.comm_of(l), b.stream));
  }
  NCCL_CHECK(scope.end());
  return Status::ok();
}

}  // namespace shardlab::kernels::cuda
