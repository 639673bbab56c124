#include "shardlab/kernels/cpu_collectives.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace shardlab::kernels {
namespace {

int64_t prefix(const int64_t* counts, int upto) {
  int64_t s = 0;
  for (int i = 0; i < upto; ++i) s += counts[i];
  return s;
}

}  // namespace

CpuGroup::CpuGroup(int size)
    : size_(size),
      barrier_(size),
      send_(static_cast<size_t>(size), nullptr),
      counts_(static_cast<size_t>(size), nullptr),
      recv_(static_cast<size_t>(size), nullptr) {
  assert(size >= 1);
}

void CpuGroup::barrier() { barrier_.arrive_and_wait(); }

// Every collective: publish, barrier, pull from the others, barrier. The
// second barrier keeps each input alive until every member has read it.
void CpuGroup::all_to_all(int m, std::span<const float> send, std::span<const int64_t> send_counts,
                          std::span<float> recv, std::span<const int64_t> recv_counts) {
  assert(static_cast<int>(send_counts.size()) == size_ &&
         static_cast<int>(recv_counts.size()) == size_);
  send_[static_cast<size_t>(m)] = send.data();
  counts_[static_cast<size_t>(m)] = send_counts.data();
  barrier();
  int64_t at = 0;
  for (int i = 0; i < size_; ++i) {
    const int64_t* their = counts_[static_cast<size_t>(i)];
    const int64_t n = their[m];
    assert(n == recv_counts[static_cast<size_t>(i)]);
    const float* src = send_[static_cast<size_t>(i)] + prefix(their, m);
    std::copy(src, src + n, recv.data() + at);
    at += recv_counts[static_cast<size_t>(i)];
  }
  barrier();
}

void CpuGroup::reduce_scatter(int m, std::span<const float> send, std::span<const int64_t> counts,
                              std::span<float> recv) {
  assert(static_cast<int>(counts.size()) == size_);
  send_[static_cast<size_t>(m)] = send.data();
  barrier();
  const int64_t offset = prefix(counts.data(), m);
  const int64_t n = counts[static_cast<size_t>(m)];
  float* out = recv.data();
  const float* first = send_[0] + offset;
  std::copy(first, first + n, out);
  for (int i = 1; i < size_; ++i) {
    const float* src = send_[static_cast<size_t>(i)] + offset;
    for (int64_t k = 0; k < n; ++k) out[k] = out[k] + src[k];
  }
  barrier();
}

void CpuGroup::all_gather(int m, std::span<const float> send, std::span<const int64_t> counts,
                          std::span<float> recv) {
  assert(static_cast<int>(counts.size()) == size_);
  send_[static_cast<size_t>(m)] = send.data();
  barrier();
  int64_t at = 0;
  for (int i = 0; i < size_; ++i) {
    const float* src = send_[static_cast<size_t>(i)];
    std::copy(src, src + counts[static_cast<size_t>(i)], recv.data() + at);
    at += counts[static_cast<size_t>(i)];
  }
  barrier();
}

// A reduce-scatter into a shared sum (member m adds up segment m), then every
// member copies the whole sum: each element is added in member order, as the
// header promises, and the work is spread over the members.
void CpuGroup::all_reduce(int m, std::span<float> data) {
  recv_[static_cast<size_t>(m)] = data.data();
  if (m == 0 && reduce_.size() < data.size()) reduce_.resize(data.size());
  barrier();
  const int64_t total = static_cast<int64_t>(data.size());
  const int64_t first = total * m / size_;
  const int64_t last = total * (m + 1) / size_;
  float* sum = reduce_.data();
  std::copy(recv_[0] + first, recv_[0] + last, sum + first);
  for (int i = 1; i < size_; ++i) {
    const float* src = recv_[static_cast<size_t>(i)];
    for (int64_t k = first; k < last; ++k) sum[k] = sum[k] + src[k];
  }
  barrier();
  std::copy_n(reduce_.begin(), data.size(), data.begin());
  barrier();
}

int64_t collective_floats(double bytes) {
  return bytes <= 0 ? 0 : static_cast<int64_t>(std::ceil(bytes / 4.0));
}

CollectiveBuffers collective_buffers(const sim::CollectiveSpec& spec, int m) {
  CollectiveBuffers b;
  const int n = static_cast<int>(spec.members.size());
  switch (spec.kind) {
    case sim::CollectiveKind::kAllToAll:
      b.send_counts.assign(static_cast<size_t>(n), 0);
      b.recv_counts.assign(static_cast<size_t>(n), 0);
      for (int j = 0; j < n; ++j) {
        if (j == m) continue;
        b.send_counts[static_cast<size_t>(j)] = collective_floats(
            spec.from_bytes[static_cast<size_t>(m)] + spec.to_bytes[static_cast<size_t>(j)]);
        b.recv_counts[static_cast<size_t>(j)] = collective_floats(
            spec.from_bytes[static_cast<size_t>(j)] + spec.to_bytes[static_cast<size_t>(m)]);
      }
      b.send_elements = std::accumulate(b.send_counts.begin(), b.send_counts.end(), int64_t{0});
      b.recv_elements = std::accumulate(b.recv_counts.begin(), b.recv_counts.end(), int64_t{0});
      break;
    case sim::CollectiveKind::kReduceScatter:
    case sim::CollectiveKind::kAllGather: {
      for (double c : spec.chunks) b.send_counts.push_back(collective_floats(c));
      const int64_t total = std::accumulate(b.send_counts.begin(), b.send_counts.end(), int64_t{0});
      const int64_t own = b.send_counts[static_cast<size_t>(m)];
      const bool rs = spec.kind == sim::CollectiveKind::kReduceScatter;
      b.send_elements = rs ? total : own;
      b.recv_elements = rs ? own : total;
      break;
    }
    case sim::CollectiveKind::kAllReduce:
      b.send_elements = b.recv_elements = collective_floats(spec.bytes);
      break;
    case sim::CollectiveKind::kEstimate:
      break;
  }
  return b;
}

sim::CollectiveSpec restrict_collective(const sim::CollectiveSpec& spec,
                                        const std::vector<int>& ranks) {
  sim::CollectiveSpec out;
  out.phase = spec.phase;
  out.kind = spec.kind;
  out.bytes = spec.bytes;
  for (size_t i = 0; i < spec.members.size(); ++i) {
    if (!std::binary_search(ranks.begin(), ranks.end(), spec.members[i])) continue;
    out.members.push_back(spec.members[i]);
    if (i < spec.from_bytes.size()) out.from_bytes.push_back(spec.from_bytes[i]);
    if (i < spec.to_bytes.size()) out.to_bytes.push_back(spec.to_bytes[i]);
    if (i < spec.chunks.size()) out.chunks.push_back(spec.chunks[i]);
    if (i < spec.durations_ms.size()) out.durations_ms.push_back(spec.durations_ms[i]);
  }
  out.to_total = std::accumulate(out.to_bytes.begin(), out.to_bytes.end(), 0.0);
  return out;
}

int member_index(const sim::CollectiveSpec& spec, int rank) {
  const auto at = std::find(spec.members.begin(), spec.members.end(), rank);
  return at == spec.members.end() ? -1 : static_cast<int>(at - spec.members.begin());
}

}  // namespace shardlab::kernels
