// Pairwise-exchange all-to-all (NCCL's alltoall as a sequence of send/recv
// steps): in step k = 1..n-1 member i sends to i+k and receives from i-k.
#include <algorithm>
#include <cassert>

#include "collective_base.h"

namespace shardlab::sim {

namespace {

class AllToAll final : public detail::CollectiveBase {
 public:
  AllToAll(FlowNetwork& network, std::vector<int> members, SplitFn split, std::vector<double> from,
           std::vector<double> to, CollectiveListener* listener, int64_t tag,
           const CollectiveShape& shape)
      : CollectiveBase(network, std::move(members), listener, tag, shape),
        split_(std::move(split)),
        from_(std::move(from)),
        to_(std::move(to)) {
    assert((split_ || (from_.size() == members_.size() && to_.size() == members_.size())) &&
           "a split function, or one from and to value per member");
    const size_t n = members_.size();
    progress_.assign(n, -1);
    started_.assign(n, 0);
    sent_.assign(n, 0);
    received_.assign(n, 0);
  }

  void join(int member) override {
    assert(member >= 0 && member < size() && progress_[member] == -1 &&
           "each member joins exactly once");
    const int n = size();
    progress_[member] = 0;
    if (n == 1) {
      report_done(member);
      return;
    }
    if (network_.closed_form_exact()) {
      join_closed_form(member);
      return;
    }
    try_start(member, 1);
    try_start(detail::wrap(member - 1, n), 1);
    drain();
  }

 private:
  // Starts the step-`step` message of `sender` once both ends finished the
  // step before (step 0 = joined) and it has not started yet.
  void try_start(int sender, int step) {
    const int n = size();
    if (step > n - 1 || started_[sender] != step - 1 || progress_[sender] != step - 1) return;
    const int receiver = detail::wrap(sender + step, n);
    if (progress_[receiver] < step - 1) return;
    started_[sender] = step;
    send(sender, receiver, bytes(sender, receiver), sender);
  }

  // Each member has at most one message in flight, so the token is its sender.
  void on_message_done(int64_t token) override {
    const int sender = static_cast<int>(token);
    const int step = started_[sender];
    const int receiver = detail::wrap(sender + step, size());
    sent_[sender] = step;
    received_[receiver] = step;
    advance(sender);
    advance(receiver);
  }

  // Moves `member` to its next step when both its send and receive are done.
  void advance(int member) {
    const int step = progress_[member] + 1;
    if (sent_[member] < step || received_[member] < step) return;
    progress_[member] = step;
    const int n = size();
    if (step == n - 1) {
      report_done(member);
      return;
    }
    try_start(member, step + 1);                                // its own next send
    try_start(detail::wrap(member - (step + 1), n), step + 1);  // the next message it receives
  }

  // Every message runs at its route's bottleneck, so the step schedule the
  // flows would produce is a recurrence over the members' join times, solved
  // once the last member joins (each member's end depends on every join).
  // Same arithmetic, same order as the flow path: start + bytes / bottleneck,
  // then + latency; empty messages complete at their start. Messages are
  // accounted step by step, member by member, so a link that one member's
  // messages cross adds them in the flow path's order (and one that several
  // members' cross, in an order whose sums equal the flows' for whole bytes).
  void join_closed_form(int member) {
    joined_at_.resize(members_.size(), 0.0);
    joined_at_[member] = network_.queue().now();
    if (++joined_ < size()) return;
    const int n = size();
    std::vector<double> ready = joined_at_;  // end of the member's previous step
    std::vector<double> arrival(static_cast<size_t>(n));
    // One step's messages: member i to member i + step.
    std::vector<int> to(static_cast<size_t>(n));
    std::vector<double> sizes(static_cast<size_t>(n));
    std::vector<FlowNetwork::ClosedFormMessage> messages(static_cast<size_t>(n));
    for (int step = 1; step < n; ++step) {
      for (int i = 0; i < n; ++i) {
        const int j = detail::wrap(i + step, n);
        to[i] = members_[j];
        sizes[i] = bytes(i, j);
      }
      network_.send_closed_form(members_, to, sizes, messages);
      for (int i = 0; i < n; ++i) {
        const FlowNetwork::ClosedFormMessage& m = messages[i];
        const double start = std::max(ready[i], ready[detail::wrap(i + step, n)]);
        if (!m.moves) {
          arrival[i] = start;
        } else if (plain_) {
          arrival[i] = start + m.bytes / m.bottleneck + m.latency_ms;
        } else {
          // The flow path's arithmetic with the message's shape.
          const FlowShape f = shape_.flow(m.across, m.bottleneck, m.bytes);
          const double rate = std::min(m.bottleneck, f.rate_cap);
          const double latency = f.latency_ms >= 0.0 ? f.latency_ms : m.latency_ms;
          arrival[i] = start + m.bytes / rate + latency;
        }
      }
      for (int i = 0; i < n; ++i)
        ready[i] = std::max(arrival[i], arrival[detail::wrap(i - step, n)]);
    }
    for (int i = 0; i < n; ++i) network_.queue().schedule(ready[i] + shape_.base_ms, this, i);
  }

  double bytes(int from, int to) const { return split_ ? split_(from, to) : from_[from] + to_[to]; }

  SplitFn split_;  // or, when empty, from_[i] + to_[j]
  std::vector<double> from_;
  std::vector<double> to_;
  int joined_ = 0;
  std::vector<double> joined_at_;
  std::vector<int> progress_;  // last step finished (send and receive); -1 before joining
  std::vector<int> started_;   // last step whose send started
  std::vector<int> sent_;      // last step whose send completed
  std::vector<int> received_;  // last step whose receive completed
};

}  // namespace

std::unique_ptr<Collective> make_all_to_all(FlowNetwork& network, std::vector<int> members,
                                            SplitFn bytes, CollectiveListener* listener,
                                            int64_t tag, const CollectiveShape& shape) {
  return std::make_unique<AllToAll>(network, std::move(members), std::move(bytes),
                                    std::vector<double>{}, std::vector<double>{}, listener, tag,
                                    shape);
}

std::unique_ptr<Collective> make_all_to_all(FlowNetwork& network, std::vector<int> members,
                                            std::vector<double> from_bytes,
                                            std::vector<double> to_bytes,
                                            CollectiveListener* listener, int64_t tag,
                                            const CollectiveShape& shape) {
  return std::make_unique<AllToAll>(network, std::move(members), SplitFn{}, std::move(from_bytes),
                                    std::move(to_bytes), listener, tag, shape);
}

}  // namespace shardlab::sim
