#include "models/measured_trace.h"

#include <QCoreApplication>
#include <QEvent>
#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

namespace shardlab::gui {

MeasuredTrace::MeasuredTrace(QObject* parent) : QObject(parent) { pool_.setMaxThreadCount(1); }

MeasuredTrace::~MeasuredTrace() { pool_.waitForDone(); }

void MeasuredTrace::load(std::vector<std::string> paths) {
  const uint64_t generation = ++generation_;
  loading_ = true;
  source_ =
      paths.empty()
          ? std::string()
          : paths.front() + (paths.size() > 1 ? " and " + std::to_string(paths.size() - 1) + " more"
                                              : std::string());
  emit changed();
  // The destructor waits for the read, so `this` outlives it; the delivery
  // is queued to this object and dropped with it.
  (void)QtConcurrent::run(&pool_, [this, generation, paths = std::move(paths)]() {
    auto read = std::make_shared<Result<trace::TraceSummary>>(
        trace::summarize_traces(paths, trace::TraceOptions{.spans = true}));
    QMetaObject::invokeMethod(
        this,
        [this, generation, read]() {
          if (generation != generation_) return;  // superseded
          loading_ = false;
          if (read->is_ok()) {
            summary_ = std::make_shared<const trace::TraceSummary>(std::move(*read).value());
            status_ = Status::ok();
          } else {
            summary_.reset();
            status_ = read->status();
          }
          emit changed();
        },
        Qt::QueuedConnection);
  });
}

void MeasuredTrace::wait_idle() {
  pool_.waitForDone();
  QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

void MeasuredTrace::clear() {
  ++generation_;
  loading_ = false;
  summary_.reset();
  status_ = Status::ok();
  source_.clear();
  emit changed();
}

TraceBeside MeasuredTrace::beside(const sim::SimResult& simulated) const {
  TraceBeside out;
  if (!summary_) return out;
  out.timeline = trace::measured_timeline(*summary_, simulated);
  out.rows = trace::compare_with_simulation(*summary_, simulated);
  return out;
}

}  // namespace shardlab::gui
