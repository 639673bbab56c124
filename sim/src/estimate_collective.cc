#include "estimate_collective.h"

namespace shardlab::sim::detail {
namespace {

class EstimateCollective final : public Collective, private EventHandler {
 public:
  EstimateCollective(FlowNetwork& network, EventQueue& queue, std::vector<int> members,
                     std::vector<double> durations_ms, CollectiveListener* listener, int64_t tag)
      : Collective(network, std::move(members), listener, tag),
        queue_(queue),
        durations_(std::move(durations_ms)) {}

  void join(int /*member*/) override {
    if (++joined_ < size()) return;
    // The last member to arrive releases everyone.
    for (int m = 0; m < size(); ++m) queue_.schedule(queue_.now() + durations_[m], this, m);
  }

 private:
  void on_event(int64_t member, int64_t) override {
    listener_->on_member_done(tag_, static_cast<int>(member));
  }

  EventQueue& queue_;
  std::vector<double> durations_;
  int joined_ = 0;
};

}  // namespace

std::unique_ptr<Collective> make_estimate_collective(FlowNetwork& network, EventQueue& queue,
                                                     std::vector<int> members,
                                                     std::vector<double> durations_ms,
                                                     CollectiveListener* listener, int64_t tag) {
  return std::make_unique<EstimateCollective>(network, queue, std::move(members),
                                              std::move(durations_ms), listener, tag);
}

}  // namespace shardlab::sim::detail
