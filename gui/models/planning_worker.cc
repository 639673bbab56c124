#include "models/planning_worker.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

namespace shardlab::gui {

PlanningWorker::PlanningWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<PlanOutcomePtr>();
  qRegisterMetaType<SimulationOutcomePtr>();
  qRegisterMetaType<CompareOutcomePtr>();
  // One thread per channel at most: a superseded job stops at its next
  // cancellation poll, so a new one rarely waits.
  pool_.setMaxThreadCount(kNumChannels);
}

PlanningWorker::~PlanningWorker() {
  for (Slot& s : slots_) {
    if (s.cancel) s.cancel->store(true);
    if (s.stop) s.stop->store(true);
  }
  pool_.waitForDone();
}

PlanningWorker::Slot& PlanningWorker::open(Channel c) {
  Slot& s = slots_[c];
  if (s.cancel) s.cancel->store(true);
  if (s.stop) s.stop->store(true);
  ++s.generation;
  s.cancel = std::make_shared<std::atomic<bool>>(false);
  s.stop.reset();
  return s;
}

void PlanningWorker::started(Channel c) {
  ++in_flight_[c];
  if (running_++ == 0) emit busyChanged(true);
}

void PlanningWorker::finished(Channel c) {
  --in_flight_[c];
  if (--running_ == 0) emit busyChanged(false);
}

uint64_t PlanningWorker::submit_plan(PlanJob job) {
  // The simulation channel's plan belongs to the old result: stop it.
  open(kSimulation);
  Slot& s = open(kPlan);
  const uint64_t generation = s.generation;
  std::shared_ptr<std::atomic<bool>> cancel = s.cancel;
  // The destructor waits for the pool, so `self` outlives every job.
  PlanningWorker* self = this;
  started(kPlan);
  (void)QtConcurrent::run(&pool_, [self, job = std::move(job), cancel, generation]() {
    ProgressFn progress = [self, generation](int percent, const std::string& stage) {
      const QString text = QString::fromStdString(stage);
      QMetaObject::invokeMethod(
          self,
          [self, generation, percent, text]() {
            if (self->current(kPlan, generation)) emit self->progress(percent, text);
          },
          Qt::QueuedConnection);
    };
    auto outcome = std::make_shared<const PlanOutcome>(run_plan_job(job, *cancel, progress));
    QMetaObject::invokeMethod(
        self,
        [self, outcome, generation]() {
          self->finished(kPlan);
          if (self->current(kPlan, generation) && !outcome->cancelled) emit self->planned(outcome);
        },
        Qt::QueuedConnection);
  });
  return generation;
}

uint64_t PlanningWorker::submit_simulation(PlanOutcomePtr base, planner::PartitionedPlan plan) {
  Slot& s = open(kSimulation);
  const uint64_t generation = s.generation;
  std::shared_ptr<std::atomic<bool>> cancel = s.cancel;
  PlanningWorker* self = this;
  started(kSimulation);
  (void)QtConcurrent::run(
      &pool_, [self, base = std::move(base), plan = std::move(plan), cancel, generation]() {
        auto outcome =
            std::make_shared<const SimulationOutcome>(run_simulation_job(*base, plan, *cancel));
        QMetaObject::invokeMethod(
            self,
            [self, outcome, generation]() {
              self->finished(kSimulation);
              if (self->current(kSimulation, generation) && !outcome->cancelled)
                emit self->simulated(outcome);
            },
            Qt::QueuedConnection);
      });
  return generation;
}

uint64_t PlanningWorker::submit_compare(ScenarioPtr scenario, PlanSettings settings,
                                        std::vector<sim::CompareConfig> grid) {
  return run_compare(
      open(kCompare),
      [scenario = std::move(scenario), settings = std::move(settings), grid = std::move(grid)](
          const std::atomic<bool>& cancel, const ProgressFn& progress,
          const ComparePartialFn& partial) {
        return run_compare_job(scenario, settings, grid, cancel, progress, partial);
      });
}

uint64_t PlanningWorker::submit_optimize(ScenarioPtr scenario, PlanSettings settings,
                                         CompareOutcomePtr previous, OptimizeRequest request) {
  Slot& s = open(kCompare);
  s.stop = std::make_shared<std::atomic<bool>>(false);
  return run_compare(s, [scenario = std::move(scenario), settings = std::move(settings),
                         previous = std::move(previous), request,
                         stop = s.stop](const std::atomic<bool>& cancel, const ProgressFn& progress,
                                        const ComparePartialFn& partial) {
    return run_optimize_job(scenario, settings, previous, request, cancel, *stop, progress,
                            partial);
  });
}

uint64_t PlanningWorker::run_compare(
    Slot& s, std::function<CompareOutcome(const std::atomic<bool>&, const ProgressFn&,
                                          const ComparePartialFn&)>
                 job) {
  const uint64_t generation = s.generation;
  std::shared_ptr<std::atomic<bool>> cancel = s.cancel;
  PlanningWorker* self = this;
  started(kCompare);
  (void)QtConcurrent::run(&pool_, [self, job = std::move(job), cancel, generation]() {
    ProgressFn progress = [self, generation](int percent, const std::string& stage) {
      const QString text = QString::fromStdString(stage);
      QMetaObject::invokeMethod(
          self,
          [self, generation, percent, text]() {
            if (self->current(kCompare, generation)) emit self->compareProgress(percent, text);
          },
          Qt::QueuedConnection);
    };
    ComparePartialFn partial = [self, generation](const CompareOutcome& so_far) {
      auto copy = std::make_shared<const CompareOutcome>(so_far);
      QMetaObject::invokeMethod(
          self,
          [self, copy, generation]() {
            if (self->current(kCompare, generation)) emit self->compared(copy);
          },
          Qt::QueuedConnection);
    };
    auto outcome = std::make_shared<const CompareOutcome>(job(*cancel, progress, partial));
    QMetaObject::invokeMethod(
        self,
        [self, outcome, generation]() {
          self->finished(kCompare);
          if (self->current(kCompare, generation) && !outcome->cancelled)
            emit self->compared(outcome);
        },
        Qt::QueuedConnection);
  });
  return generation;
}

bool PlanningWorker::stop_optimize() {
  if (!optimizing()) return false;
  slots_[kCompare].stop->store(true);
  return true;
}

void PlanningWorker::cancel(bool announce) {
  const bool any = announce && running_ > 0;
  const bool optimization = announce && stop_optimize();
  for (int c = 0; c < kNumChannels; ++c) {
    if (c != kCompare || !optimization) open(static_cast<Channel>(c));
  }
  if (any) emit cancelled();
}

void PlanningWorker::cancel_compare() {
  const bool any = in_flight_[kCompare] > 0;
  if (!stop_optimize()) open(kCompare);
  if (any) emit cancelled();
}

void PlanningWorker::wait_idle() {
  pool_.waitForDone();
  // Deliver the queued results of the finished jobs.
  while (running_ > 0) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
}

}  // namespace shardlab::gui
