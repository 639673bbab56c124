#include "shardlab/planner/deadline.h"

#include <algorithm>

namespace shardlab::planner {

Deadline::Deadline(double seconds, const std::atomic<bool>* cancel)
    : seconds_(seconds), cancel_(cancel), start_(Clock::now()) {
  if (flag() == nullptr) return;
  timer_ = std::jthread([this](std::stop_token stop) {
    while (!stop.stop_requested()) {
      if (seconds_ > 0.0 && used() >= seconds_) {
        passed_.store(true);
        set_.store(true);
        return;
      }
      if (cancel_ != nullptr && cancel_->load()) {
        set_.store(true);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
}

double Deadline::left() const {
  if (seconds_ <= 0.0) return 0.0;
  return std::max(seconds_ - used(), 1e-9);
}

}  // namespace shardlab::planner
