// A profiler trace of the job being planned (docs/traces.md), read off the UI
// thread, for the Timeline view: its measured lanes under the simulated ones
// and the `simulate --against` table (trace/against.h), both computed in the
// core from the same summary the command line reads.
//
// Threading: the object lives on the UI thread; load() reads on a pool
// thread and delivers on the UI thread. The newest load wins: an earlier
// read still running is dropped when it ends (reading cannot be
// interrupted, so the destructor waits for it).
#pragma once

#include <QObject>
#include <QThreadPool>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shardlab/planner/status.h"
#include "shardlab/sim/simulation.h"
#include "shardlab/trace/against.h"
#include "shardlab/trace/trace_summary.h"

namespace shardlab::gui {

using TraceSummaryPtr = std::shared_ptr<const trace::TraceSummary>;

// The trace beside one simulation: the lanes and the table, or why not.
struct TraceBeside {
  Result<trace::MeasuredTimeline> timeline = Status::invalid_argument("no trace");
  Result<std::vector<trace::Against>> rows = Status::invalid_argument("no trace");
};

class MeasuredTrace : public QObject {
  Q_OBJECT

 public:
  explicit MeasuredTrace(QObject* parent = nullptr);
  ~MeasuredTrace() override;

  // Reads `paths` (files or folders, as `shardlab trace summarize` does) with
  // each step's spans kept (trace::TraceOptions::spans); changed() when done.
  void load(std::vector<std::string> paths);
  // Forgets the trace; changed().
  void clear();

  // Waits for the read in flight and delivers it (a screenshot's first frame).
  void wait_idle();

  bool loading() const { return loading_; }
  // The last trace read; null before one, after clear(), or when it failed.
  const TraceSummaryPtr& summary() const { return summary_; }
  // Why the last read failed (the reader's message: the file and the byte
  // offset), or OK.
  const Status& status() const { return status_; }
  // What was read, for a header: the first path, and how many more.
  const std::string& source() const { return source_; }

  // The trace beside `simulated` (trace::measured_timeline and
  // trace::compare_with_simulation); "no trace" without one.
  TraceBeside beside(const sim::SimResult& simulated) const;

 signals:
  void changed();

 private:
  QThreadPool pool_;
  uint64_t generation_ = 0;
  bool loading_ = false;
  TraceSummaryPtr summary_;
  Status status_;
  std::string source_;
};

}  // namespace shardlab::gui
