// The simulated iteration as lanes (one per rank and stream that ran a
// phase) of phases, with the critical path marked, for the Timeline view;
// with a trace of the job, each rank's measured lanes (trace/against.h
// measured_timeline: one traced step laid from the last iteration's start)
// right under its simulated ones.
//
// As an item model it is a two-level tree: lanes at the top ("r3 comm"),
// their phases as children (phase, iteration, start, end, duration, bytes,
// tables, critical). The timeline painter reads lanes() directly: phases of a
// lane are sorted by start, so it can find the visible ones by binary search.
#pragma once

#include <QAbstractItemModel>
#include <vector>

#include "shardlab/sim/simulation.h"
#include "shardlab/trace/against.h"

namespace shardlab::gui {

struct TimelinePhase {
  sim::PhaseRecord record;
  bool critical = false;  // on the simulation's critical path
  // Measured lanes only: no rule of docs/traces.md "Phases" placed it
  // (record.phase is then meaningless), and the GPU events it holds.
  bool other = false;
  int events = 0;
};

struct TimelineLane {
  int rank = 0;
  int host = 0;
  sim::Stream stream = sim::Stream::kCompute;
  std::vector<TimelinePhase> phases;  // sorted by start
  bool critical = false;              // holds a critical phase
  bool measured = false;              // a traced step's lane (record.iteration: the step)
};

// A lane's label: "r3 compute", "r3 comm"; measured, "r3 trace gpu" (the
// GPU's other work) and "r3 trace nccl" (its NCCL kernels).
QString lane_name(const TimelineLane& lane);

class TimelineModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column {
    kName,
    kIteration,
    kStart,
    kEnd,
    kDuration,
    kBytes,
    kTables,
    kCritical,
    kNumColumns
  };

  explicit TimelineModel(QObject* parent = nullptr);

  // `measured`: the trace's lanes beside this simulation, or null.
  void reset(const sim::SimResult& simulation, const trace::MeasuredTimeline* measured = nullptr);
  void clear();

  const std::vector<TimelineLane>& lanes() const { return lanes_; }
  double total_ms() const { return total_ms_; }
  double iteration_ms() const { return iteration_ms_; }
  // Simulated lane of (rank, stream), or -1.
  int lane_of(int rank, sim::Stream stream) const;
  // Lanes holding a critical phase, ascending.
  std::vector<int> critical_lanes() const;
  int critical_phase_count() const { return critical_phases_; }
  int measured_lanes() const { return measured_lanes_; }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<TimelineLane> lanes_;
  double total_ms_ = 0.0;
  double iteration_ms_ = 0.0;
  int critical_phases_ = 0;
  int measured_lanes_ = 0;
};

}  // namespace shardlab::gui
