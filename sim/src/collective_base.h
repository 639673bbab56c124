// Plumbing shared by the collectives (internal to the sim library): flow
// completions come in through FlowListener, member completions go out through
// the event queue, and zero-byte messages complete through a work list.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "shardlab/sim/collectives.h"

namespace shardlab::sim::detail {

class CollectiveBase : public Collective, protected FlowListener, protected EventHandler {
 protected:
  using Collective::Collective;

  // Runs listener->on_member_done(tag, member) from its own event at now():
  // never inside join() or a flow callback, and nothing of this collective
  // runs after the last member's report, so the listener may destroy it then.
  // The shape's base latency is added here, once per member.
  void report_done(int member) {
    network_.queue().schedule(network_.queue().now() + shape_.base_ms, this, member);
  }

  // A message whose sender is `token` completed (a flow arrived, or it was
  // empty); drain() hands each to on_message_done in order. The work list
  // replaces recursion: a chain of empty messages cannot grow the stack.
  void message_done(int64_t token) { completed_.push_back(token); }
  void drain() {
    for (size_t next = 0; next < completed_.size(); ++next) on_message_done(completed_[next]);
    completed_.clear();
  }
  virtual void on_message_done(int64_t token) = 0;

  // Sends `bytes` from member `from` to member `to`; an empty message skips
  // the network and completes on the work list.
  void send(int from, int to, double bytes, int64_t token) {
    if (bytes > 0.0) {
      network_.start_flow(members_[from], members_[to], bytes, this, token,
                          plain_
                              ? FlowShape{}
                              : shape_.flow(network_.graph(), members_[from], members_[to], bytes));
    } else {
      message_done(token);
    }
  }

 private:
  void on_flow_done(int64_t token) override {
    message_done(token);
    drain();
  }
  void on_event(int64_t member, int64_t /*unused*/) override {
    listener_->on_member_done(tag_, static_cast<int>(member));
  }

  std::vector<int64_t> completed_;
};

// i mod n for any i > -n.
inline int wrap(int i, int n) { return i < 0 ? i + n : (i >= n ? i - n : i); }

}  // namespace shardlab::sim::detail
