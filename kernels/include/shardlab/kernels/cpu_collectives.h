// In-memory collectives among a group of threads: the CPU reference backend's
// communication. Each member is one thread; every member calls the same
// collectives in the same order (as with NCCL), and a call returns when the
// member's output is complete and no other member still reads its input.
//
// Data really moves: members publish their buffers, then each member pulls
// what it receives from the others' buffers (std::barrier between the steps).
// Sums add members' contributions in member order 0, 1, ..., n-1, starting
// from member 0's value, so results are deterministic and a direct loop in the
// same order reproduces them bit for bit.
//
// Element type is fp32 throughout; byte sizes of a sim::CollectiveSpec become
// element counts with collective_floats() (bytes / 4, rounded up).
//
// Thread safety: one call per member at a time; members are distinct threads.
#pragma once

#include <barrier>
#include <cstdint>
#include <span>
#include <vector>

#include "shardlab/sim/iteration_traffic.h"

namespace shardlab::kernels {

class CpuGroup {
 public:
  // REQUIRES: size >= 1.
  explicit CpuGroup(int size);
  CpuGroup(const CpuGroup&) = delete;
  CpuGroup& operator=(const CpuGroup&) = delete;

  int size() const { return size_; }

  // Waits until every member has arrived.
  void barrier();

  // Member `m` sends send_counts[j] elements to member j, laid out in `send`
  // in member order, and receives recv_counts[i] elements from member i into
  // `recv`, in member order (its own segment is copied locally).
  // REQUIRES: send_counts.size() == recv_counts.size() == size(), recv_counts[i]
  // equals member i's send_counts[m], and the buffers hold the summed counts.
  void all_to_all(int m, std::span<const float> send, std::span<const int64_t> send_counts,
                  std::span<float> recv, std::span<const int64_t> recv_counts);

  // Member m ends with recv = sum over members i of send_i[offset_m, offset_m + counts[m]),
  // offset_m = counts[0] + ... + counts[m-1]. REQUIRES: every member passes the
  // same counts; send holds their sum, recv counts[m].
  void reduce_scatter(int m, std::span<const float> send, std::span<const int64_t> counts,
                      std::span<float> recv);

  // Member m ends with recv = send_0 ++ send_1 ++ ... ++ send_{n-1}, send_i
  // holding counts[i] elements. REQUIRES: same counts on every member.
  void all_gather(int m, std::span<const float> send, std::span<const int64_t> counts,
                  std::span<float> recv);

  // Every member ends with data = the element-wise sum of all members' data.
  // REQUIRES: the same data.size() on every member.
  void all_reduce(int m, std::span<float> data);

  // Allocates all_reduce's shared sum for `elements` values now, so that
  // all_reduce of at most that many allocates nothing while members wait on
  // each other. Throws std::bad_alloc. REQUIRES: no call of the group runs.
  void reserve_all_reduce(std::size_t elements) {
    if (reduce_.size() < elements) reduce_.resize(elements);
  }

 private:
  int size_;
  std::barrier<> barrier_;
  // Published by each member between the barriers of one call; read by all.
  std::vector<const float*> send_;
  std::vector<const int64_t*> counts_;
  std::vector<float*> recv_;
  std::vector<float> reduce_;  // all-reduce's sum, written by segments; member 0 sizes it
};

// Elements of fp32 for a byte count (rounded up).
int64_t collective_floats(double bytes);

// One member's element counts and buffer sizes in a collective spec (member
// index m in spec.members). All-to-all: i sends j ceil((from_bytes[i] + to_bytes[j]) / 4)
// elements for i != j and nothing to itself.
struct CollectiveBuffers {
  std::vector<int64_t>
      send_counts;  // all-to-all: per peer; reduce-scatter / all-gather: chunk per member
  std::vector<int64_t> recv_counts;  // all-to-all: per peer
  int64_t send_elements = 0;
  int64_t recv_elements = 0;
};
CollectiveBuffers collective_buffers(const sim::CollectiveSpec& spec, int m);

// The spec restricted to `ranks` (global ranks, ascending): members outside
// are dropped with their sizes; the others keep theirs. Used when only some
// ranks are replayed.
sim::CollectiveSpec restrict_collective(const sim::CollectiveSpec& spec,
                                        const std::vector<int>& ranks);

// The index of `rank` among spec.members, or -1 when it is not a member.
int member_index(const sim::CollectiveSpec& spec, int rank);

}  // namespace shardlab::kernels
