// Ring reduce-scatter, all-gather and all-reduce: every member sends one
// chunk per step to its successor on the ring members[0..n-1].
#include <algorithm>
#include <cassert>
#include <limits>

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
    if (network_.closed_form_exact()) {
      join_closed_form(member);
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

  // Every message runs at its route's bottleneck (closed_form_exact()), so
  // the schedule the flows would produce is a recurrence over the members'
  // join times, solved once the last member joins (every member's end
  // depends on every join). Member i's step-s message starts when try_send
  // would start it: at the latest of its own and its successor's joins for
  // step 0, later at the latest of its own step s-1 arrival and its
  // predecessor's. It arrives start + bytes / rate + latency, the flow
  // path's arithmetic in its order (an empty message at its start), and a
  // member is done at the latest of its last send's and last receive's
  // arrivals, plus the shape's base latency. Link bytes are accounted step
  // by step, member by member; the flows add them as each transmission ends,
  // which on a link only one member's route crosses is the same order, and
  // on a shared one (a host's uplink) adds the same values in another order:
  // equal chunks, or whole bytes, sum to the same double either way.
  void join_closed_form(int member) {
    const int n = size();
    if (joined_at_.empty()) joined_at_.resize(static_cast<size_t>(n), 0.0);
    joined_at_[member] = network_.queue().now();
    if (++joined_count_ < n) return;

    // Member i's message route to its successor, and its rate and latency
    // by message size (the shape depends on the size only through
    // small_bytes; infinite bytes are never small).
    struct Hop {
      FlowNetwork::ClosedFormMessage route;  // bytes set per message
      double rate[2];                        // [small]
      double latency[2];
    };
    std::vector<Hop> hops(static_cast<size_t>(n));
    const bool sized = shape_.small_bytes >= 0.0;
    for (int i = 0; i < n; ++i) {
      Hop& h = hops[i];
      const int src = members_[i];
      const int dst = members_[next(i)];
      network_.closed_form_message(src, dst, 1.0, &h.route);
      for (int small = 0; small < (sized ? 2 : 1); ++small) {
        const FlowShape f = shape_.flow(h.route.across, h.route.bottleneck,
                                        small ? shape_.small_bytes : kInfiniteBytes);
        h.rate[small] = std::min(h.route.bottleneck, f.rate_cap);
        h.latency[small] = f.latency_ms >= 0.0 ? f.latency_ms : h.route.latency_ms;
      }
    }

    std::vector<double> ready(static_cast<size_t>(n));  // when each member's step may start
    std::vector<double> arrival(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) ready[i] = std::max(joined_at_[i], joined_at_[next(i)]);
    for (int step = 0; step < steps_; ++step) {
      for (int i = 0; i < n; ++i) {
        Hop& h = hops[i];
        const double b = bytes(i, step);
        if (!(b > 0.0)) {
          arrival[i] = ready[i];
          continue;
        }
        h.route.bytes = b;
        network_.account_closed_form(h.route);
        if (!h.route.moves) {
          arrival[i] = ready[i];
          continue;
        }
        const int small = sized && b <= shape_.small_bytes ? 1 : 0;
        arrival[i] = ready[i] + b / h.rate[small] + h.latency[small];
      }
      // The next step of member i needs its own send and its predecessor's.
      ready[0] = std::max(arrival[0], arrival[n - 1]);
      for (int i = 1; i < n; ++i) ready[i] = std::max(arrival[i], arrival[i - 1]);
    }
    // After the last step, `ready` is when each member's last send and last
    // receive have arrived.
    for (int i = 0; i < n; ++i) network_.queue().schedule(ready[i] + shape_.base_ms, this, i);
  }

  static constexpr double kInfiniteBytes = std::numeric_limits<double>::infinity();

  RingKind kind_;
  std::vector<double> chunk_bytes_;
  int steps_ = 0;
  std::vector<char> joined_;
  std::vector<char> reported_;
  std::vector<int> started_;   // sends started
  std::vector<int> sent_;      // sends completed
  std::vector<int> received_;  // chunks received
  int joined_count_ = 0;       // closed form: members joined so far
  std::vector<double> joined_at_;
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
