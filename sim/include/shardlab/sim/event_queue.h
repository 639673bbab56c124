// The discrete-event core: a time-ordered queue of events, nothing about
// embeddings or networks.
//
// Events at the same time run in the order they were scheduled (a sequence
// number breaks ties), so a simulation is deterministic. An event is a handler
// plus two integers, so scheduling never allocates per event.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace shardlab::sim {

class EventHandler {
 public:
  virtual void on_event(int64_t a, int64_t b) = 0;

 protected:
  ~EventHandler() = default;
};

class EventQueue {
 public:
  // Current simulated time in ms (the time of the event being run).
  double now() const { return now_; }

  // Runs handler->on_event(a, b) at `time` (>= now()).
  void schedule(double time, EventHandler* handler, int64_t a = 0, int64_t b = 0);

  // Runs the earliest event; false when the queue is empty.
  bool step();
  // Runs events until the queue is empty, or until `stop` (when not null)
  // reads true, polled every kStopPollEvents events; false when stopped.
  static constexpr uint64_t kStopPollEvents = 4096;
  bool run(const std::atomic<bool>* stop = nullptr);

  bool empty() const { return heap_.empty(); }
  uint64_t events_processed() const { return processed_; }

 private:
  struct Event {
    double time;
    uint64_t seq;
    EventHandler* handler;
    int64_t a;
    int64_t b;
  };
  static bool later(const Event& x, const Event& y) {
    return x.time > y.time || (x.time == y.time && x.seq > y.seq);
  }
  std::vector<Event> heap_;
  double now_ = 0.0;
  uint64_t next_seq_ = 0;
  uint64_t processed_ = 0;
};

}  // namespace shardlab::sim
