#include "shardlab/sim/event_queue.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace shardlab::sim {
namespace {

// Records (time, a, b) of every event it handles.
class Recorder : public EventHandler {
 public:
  explicit Recorder(EventQueue& queue) : queue_(queue) {}
  void on_event(int64_t a, int64_t b) override { seen.push_back({queue_.now(), a, b}); }

  struct Seen {
    double time;
    int64_t a;
    int64_t b;
  };
  std::vector<Seen> seen;

 private:
  EventQueue& queue_;
};

TEST(EventQueueTest, RunsEventsInTimeOrder) {
  EventQueue queue;
  Recorder rec(queue);
  queue.schedule(3.0, &rec, 3);
  queue.schedule(1.0, &rec, 1);
  queue.schedule(2.5, &rec, 2);
  queue.schedule(0.0, &rec, 0);
  queue.run();
  ASSERT_EQ(rec.seen.size(), 4u);
  const double times[] = {0.0, 1.0, 2.5, 3.0};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(rec.seen[i].a, i);
    EXPECT_EQ(rec.seen[i].time, times[i]);
  }
  EXPECT_EQ(queue.now(), 3.0);
  EXPECT_TRUE(queue.empty());
}

TEST(EventQueueTest, EqualTimesRunInSchedulingOrder) {
  EventQueue queue;
  Recorder rec(queue);
  for (int i = 0; i < 50; ++i) queue.schedule(i % 2 == 0 ? 1.0 : 2.0, &rec, i, -i);
  queue.run();
  ASSERT_EQ(rec.seen.size(), 50u);
  // All even ids (time 1) in increasing order, then all odd ids (time 2).
  for (int i = 0; i < 25; ++i) {
    EXPECT_EQ(rec.seen[i].a, 2 * i);
    EXPECT_EQ(rec.seen[i].b, -2 * i);
    EXPECT_EQ(rec.seen[25 + i].a, 2 * i + 1);
  }
}

// Schedules a follow-up from inside its handler: at now() (runs after the
// events already queued for now) and later.
class Chain : public EventHandler {
 public:
  explicit Chain(EventQueue& queue) : queue_(queue) {}
  void on_event(int64_t a, int64_t b) override {
    order.push_back({queue_.now(), a});
    if (a < 3) queue_.schedule(queue_.now() + b, this, a + 1, b);
  }
  std::vector<std::pair<double, int64_t>> order;

 private:
  EventQueue& queue_;
};

TEST(EventQueueTest, HandlersScheduleMoreEvents) {
  EventQueue queue;
  Chain chain(queue);
  Recorder rec(queue);
  queue.schedule(1.0, &chain, 0, 2);  // 0 at 1, 1 at 3, 2 at 5, 3 at 7
  queue.schedule(3.0, &rec, 100);     // scheduled before chain's event at 3: runs first
  queue.schedule(10.0, &chain, 10, 0);
  queue.run();
  ASSERT_EQ(chain.order.size(), 5u);
  EXPECT_EQ(chain.order[0], (std::pair<double, int64_t>{1.0, 0}));
  EXPECT_EQ(chain.order[1], (std::pair<double, int64_t>{3.0, 1}));
  EXPECT_EQ(chain.order[2], (std::pair<double, int64_t>{5.0, 2}));
  EXPECT_EQ(chain.order[3], (std::pair<double, int64_t>{7.0, 3}));
  EXPECT_EQ(chain.order[4], (std::pair<double, int64_t>{10.0, 10}));
  ASSERT_EQ(rec.seen.size(), 1u);
  EXPECT_EQ(rec.seen[0].time, 3.0);
  EXPECT_EQ(queue.events_processed(), 6u);
}

TEST(EventQueueTest, SameTimeEventFromHandlerRunsAfterQueuedOnes) {
  EventQueue queue;
  Chain chain(queue);
  Recorder rec(queue);
  queue.schedule(1.0, &chain, 0, 0);  // reschedules itself at now() three times
  queue.schedule(1.0, &rec, 7);
  queue.run();
  ASSERT_EQ(rec.seen.size(), 1u);
  ASSERT_EQ(chain.order.size(), 4u);
  EXPECT_EQ(chain.order[3].first, 1.0);
  EXPECT_EQ(queue.events_processed(), 5u);
}

TEST(EventQueueTest, StepRunsOneEventAndCounts) {
  EventQueue queue;
  Recorder rec(queue);
  EXPECT_FALSE(queue.step());
  EXPECT_EQ(queue.events_processed(), 0u);
  queue.schedule(2.0, &rec, 1);
  queue.schedule(4.0, &rec, 2);
  EXPECT_TRUE(queue.step());
  EXPECT_EQ(queue.now(), 2.0);
  EXPECT_EQ(queue.events_processed(), 1u);
  EXPECT_FALSE(queue.empty());
  EXPECT_TRUE(queue.step());
  EXPECT_EQ(queue.now(), 4.0);
  EXPECT_FALSE(queue.step());
  EXPECT_EQ(queue.events_processed(), 2u);
  EXPECT_EQ(queue.now(), 4.0);
}

}  // namespace
}  // namespace shardlab::sim
