// Runs the planning jobs (planning_job.h) off the UI thread.
//
// Three channels: plan (plan + simulate the best plan), simulation (simulate
// a chosen plan) and compare (partial outcomes as rows finish, then the
// complete one; also the optimizer's row, run_optimize_job). In each channel the newest request
// wins: a new request cancels the one in flight and results of superseded requests are dropped,
// never delivered. A plan request also supersedes the simulation channel (the plan it would
// simulate is gone).
//
// Threading: the worker lives on the UI thread; jobs run on its own
// QThreadPool, and results come back as queued signals on the worker's
// thread. The destructor cancels and waits for running jobs.
#pragma once

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "models/planning_job.h"

namespace shardlab::gui {

using PlanOutcomePtr = std::shared_ptr<const PlanOutcome>;
using SimulationOutcomePtr = std::shared_ptr<const SimulationOutcome>;
using CompareOutcomePtr = std::shared_ptr<const CompareOutcome>;

class PlanningWorker : public QObject {
  Q_OBJECT

 public:
  explicit PlanningWorker(QObject* parent = nullptr);
  ~PlanningWorker() override;

  // Each returns the request's generation (increasing per channel).
  uint64_t submit_plan(PlanJob job);
  uint64_t submit_simulation(PlanOutcomePtr base, planner::PartitionedPlan plan);
  uint64_t submit_compare(ScenarioPtr scenario, PlanSettings settings,
                          std::vector<sim::CompareConfig> grid);
  // The optimizer's row added to `previous` (run_optimize_job), in the
  // compare channel.
  uint64_t submit_optimize(ScenarioPtr scenario, PlanSettings settings, CompareOutcomePtr previous,
                           OptimizeRequest request);

  // Cancels every request in flight; none of them will be delivered, except
  // a running optimization: its search stops and its best plan so far is
  // delivered as its row (as Ctrl-C does to `shardlab optimize`).
  // `announce`: emit cancelled() (a user's cancel) or not (superseded).
  void cancel(bool announce = true);
  // Cancels the comparison only (its partial rows stay delivered); stops an
  // optimization as cancel() does.
  void cancel_compare();

  bool busy() const { return running_ > 0; }
  // A request of the plan (plan or simulation) or compare channel is in flight.
  bool planning() const { return in_flight_[kPlan] > 0 || in_flight_[kSimulation] > 0; }
  bool comparing() const { return in_flight_[kCompare] > 0; }
  // The compare channel's request in flight is an optimization.
  bool optimizing() const { return comparing() && slots_[kCompare].stop != nullptr; }

  // Blocks until no job runs (tests, benchmarks, --screenshot).
  void wait_idle();

 signals:
  void planned(shardlab::gui::PlanOutcomePtr outcome);
  void simulated(shardlab::gui::SimulationOutcomePtr outcome);
  // The comparison so far (outcome->complete false) and at the end.
  void compared(shardlab::gui::CompareOutcomePtr outcome);
  // Progress of the plan channel and of the compare channel.
  void progress(int percent, const QString& stage);
  void compareProgress(int percent, const QString& stage);
  void busyChanged(bool busy);
  // A request was cancelled by cancel() (not by a newer request).
  void cancelled();

 private:
  enum Channel { kPlan, kSimulation, kCompare, kNumChannels };
  struct Slot {
    uint64_t generation = 0;
    std::shared_ptr<std::atomic<bool>> cancel;
    // An optimization's: ends its search, keeping the result (null otherwise).
    std::shared_ptr<std::atomic<bool>> stop;
  };

  // Cancels the channel's request in flight and opens a new one.
  Slot& open(Channel c);
  // Stops the compare channel's optimization; false when none runs.
  bool stop_optimize();
  // Runs `job` in the compare channel of the slot just opened.
  uint64_t run_compare(Slot& slot,
                       std::function<CompareOutcome(const std::atomic<bool>& cancel,
                                                    const ProgressFn&, const ComparePartialFn&)>
                           job);
  bool current(Channel c, uint64_t generation) const { return slots_[c].generation == generation; }
  void started(Channel c);
  void finished(Channel c);

  Slot slots_[kNumChannels];
  int running_ = 0;
  int in_flight_[kNumChannels] = {};
  QThreadPool pool_;
};

}  // namespace shardlab::gui

Q_DECLARE_METATYPE(shardlab::gui::PlanOutcomePtr)
Q_DECLARE_METATYPE(shardlab::gui::SimulationOutcomePtr)
Q_DECLARE_METATYPE(shardlab::gui::CompareOutcomePtr)
