// A time limit and a caller's cancel flag as one flag that long work polls
// (PlannerOptions::cancel, sim::CompareOptions::cancel, the optimizer's set-up):
// a timer thread sets it once the limit passes or the caller's flag reads
// true, checking every 5 ms. Without a limit and a flag there is no thread
// and no flag. Used where a front end's --time-limit bounds a whole run.
//
// Thread safety: flag() may be polled from any thread; the rest is for the
// owner's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

namespace shardlab::planner {

class Deadline {
 public:
  // `seconds` <= 0: no time limit. `cancel` may be null; not owned, read
  // while the deadline lives.
  explicit Deadline(double seconds, const std::atomic<bool>* cancel = nullptr);
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  ~Deadline() = default;  // the jthread stops and joins the timer

  // The combined flag, or null when there is neither a limit nor a caller's flag.
  const std::atomic<bool>* flag() const {
    return seconds_ > 0.0 || cancel_ != nullptr ? &set_ : nullptr;
  }
  // The time limit passed (not the caller's cancel), by the clock itself (the
  // flag follows within 5 ms).
  bool passed() const { return passed_.load() || (seconds_ > 0.0 && used() >= seconds_); }
  // Seconds left of the limit: 0 without one, else at least a nanosecond.
  double left() const;

 private:
  using Clock = std::chrono::steady_clock;
  double used() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double seconds_;
  const std::atomic<bool>* cancel_;
  Clock::time_point start_;
  std::atomic<bool> set_{false};
  std::atomic<bool> passed_{false};
  std::jthread timer_;  // last: stops before the members it reads go
};

}  // namespace shardlab::planner
