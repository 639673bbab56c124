// Ring reduce-scatter, all-gather and all-reduce: every member sends one
// chunk per step to its successor on the ring members[0..n-1].
#include <cassert>

#include "collective_base.h"

namespace shardlab::sim {

namespace {

enum class RingKind { kReduceScatter, kAllGather, kAllReduce };

class Ring final : public detail::CollectiveBase {
 public:
  Ring(FlowNetwork& network, std::vector<int> members, std::vector<double> chunk_bytes,
       RingKind kind, CollectiveListener* listener, int64_t tag, const CollectiveShape& shape)
      : CollectiveBase(network, std::move(members), listener, tag, shape),
        kind_(kind),
        chunk_bytes_(std::move(chunk_bytes)) {
    const int n = size();
    assert(static_cast<int>(chunk_bytes_.size()) == n && "one chunk per member");
    steps_ = kind == RingKind::kAllReduce ? 2 * (n - 1) : n - 1;
    joined_.assign(n, 0);
    reported_.assign(n, 0);
    started_.assign(n, 0);
    sent_.assign(n, 0);
    received_.assign(n, 0);
  }

  void join(int member) override {
    assert(member >= 0 && member < size() && !joined_[member] && "each member joins exactly once");
    joined_[member] = 1;
    if (steps_ == 0) {
      reported_[member] = 1;
      report_done(member);
      return;
    }
    try_send(member);
    try_send(detail::wrap(member - 1, size()));  // its predecessor waited for it to join
    drain();
  }

 private:
  int next(int member) const { return detail::wrap(member + 1, size()); }

  // Bytes member i sends in `step`. Reduce-scatter step s forwards chunk
  // i-s-1, so member i ends holding chunk i reduced; all-gather step s
  // forwards chunk i-s, starting with its own. All-reduce runs one after the
  // other on the same ring.
  double bytes(int member, int step) const {
    const int n = size();
    const bool reduce =
        kind_ == RingKind::kReduceScatter || (kind_ == RingKind::kAllReduce && step < n - 1);
    if (reduce) return chunk_bytes_[((member - step - 1) % n + n) % n];
    const int gather_step = kind_ == RingKind::kAllReduce ? step - (n - 1) : step;
    return chunk_bytes_[((member - gather_step) % n + n) % n];
  }

  // Starts the member's next send when it has joined, its previous send is
  // done, it holds the previous step's chunk, and its successor has joined.
  void try_send(int member) {
    const int step = started_[member];
    if (step >= steps_ || !joined_[member] || sent_[member] != step || received_[member] < step)
      return;
    const int to = next(member);
    if (!joined_[to]) return;
    started_[member] = step + 1;
    send(member, to, bytes(member, step), member);
  }

  // One send in flight per member, so the token is the sender.
  void on_message_done(int64_t token) override {
    const int from = static_cast<int>(token);
    const int to = next(from);
    ++sent_[from];
    ++received_[to];
    check_done(from);
    check_done(to);
    try_send(from);
    try_send(to);
  }

  void check_done(int member) {
    if (reported_[member] || sent_[member] != steps_ || received_[member] != steps_) return;
    reported_[member] = 1;
    report_done(member);
  }

  RingKind kind_;
  std::vector<double> chunk_bytes_;
  int steps_ = 0;
  std::vector<char> joined_;
  std::vector<char> reported_;
  std::vector<int> started_;   // sends started
  std::vector<int> sent_;      // sends completed
  std::vector<int> received_;  // chunks received
};

}  // namespace

std::unique_ptr<Collective> make_ring_reduce_scatter(FlowNetwork& network, std::vector<int> members,
                                                     std::vector<double> chunk_bytes,
                                                     CollectiveListener* listener, int64_t tag,
                                                     const CollectiveShape& shape) {
  return std::make_unique<Ring>(network, std::move(members), std::move(chunk_bytes),
                                RingKind::kReduceScatter, listener, tag, shape);
}

std::unique_ptr<Collective> make_ring_all_gather(FlowNetwork& network, std::vector<int> members,
                                                 std::vector<double> chunk_bytes,
                                                 CollectiveListener* listener, int64_t tag,
                                                 const CollectiveShape& shape) {
  return std::make_unique<Ring>(network, std::move(members), std::move(chunk_bytes),
                                RingKind::kAllGather, listener, tag, shape);
}

std::unique_ptr<Collective> make_ring_all_reduce(FlowNetwork& network, std::vector<int> members,
                                                 double bytes, CollectiveListener* listener,
                                                 int64_t tag, const CollectiveShape& shape) {
  const size_t n = members.size();
  std::vector<double> chunks(n, n > 0 ? bytes / static_cast<double>(n) : 0.0);
  return std::make_unique<Ring>(network, std::move(members), std::move(chunks),
                                RingKind::kAllReduce, listener, tag, shape);
}

}  // namespace shardlab::sim
