#include "shardlab/sim/event_queue.h"

#include <algorithm>
#include <cassert>

namespace shardlab::sim {

void EventQueue::schedule(double time, EventHandler* handler, int64_t a, int64_t b) {
  // An event in the past would break causality; it is a caller bug, so clamp
  // in release builds rather than let time run backwards.
  assert(time >= now_ && "EventQueue::schedule: time earlier than now()");
  assert(handler != nullptr);
  if (!(time >= now_)) time = now_;
  heap_.push_back(Event{time, next_seq_++, handler, a, b});
  // A lambda, not &later: the heap algorithms inline it.
  std::push_heap(heap_.begin(), heap_.end(),
                 [](const Event& x, const Event& y) { return later(x, y); });
}

bool EventQueue::step() {
  if (heap_.empty()) return false;
  std::pop_heap(heap_.begin(), heap_.end(),
                [](const Event& x, const Event& y) { return later(x, y); });
  const Event e = heap_.back();
  heap_.pop_back();
  now_ = e.time;
  ++processed_;
  e.handler->on_event(e.a, e.b);
  return true;
}

bool EventQueue::run(const std::atomic<bool>* stop) {
  if (stop == nullptr) {
    while (step()) {
    }
    return true;
  }
  while (step()) {
    if (processed_ % kStopPollEvents == 0 && stop->load(std::memory_order_relaxed)) return false;
  }
  return true;
}

}  // namespace shardlab::sim
