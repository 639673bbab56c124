#include "models/timeline_model.h"

#include <algorithm>

#include "models/model_roles.h"
#include "models/units.h"

namespace shardlab::gui {
namespace {

// Top-level rows carry this id; a phase's id is its lane + 1.
constexpr quintptr kLaneId = 0;

QString str(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// A measured lane as the timeline's: spans as phase records of the step.
TimelineLane measured_lane(const trace::MeasuredLane& m, int64_t step, int host) {
  TimelineLane lane{.rank = m.rank, .host = host, .stream = m.stream, .measured = true};
  lane.phases.reserve(m.spans.size());
  for (const trace::MeasuredSpan& s : m.spans) {
    lane.phases.push_back(
        TimelinePhase{.record = {.phase = s.phase.value_or(sim::Phase::kIterationOverhead),
                                 .stream = m.stream,
                                 .iteration = static_cast<int>(step),
                                 .start_ms = s.start_ms,
                                 .end_ms = s.end_ms},
                      .other = !s.phase.has_value(),
                      .events = s.events});
  }
  return lane;
}

}  // namespace

TimelineModel::TimelineModel(QObject* parent) : QAbstractItemModel(parent) {}

void TimelineModel::reset(const sim::SimResult& simulation,
                          const trace::MeasuredTimeline* measured) {
  beginResetModel();
  lanes_.clear();
  critical_phases_ = 0;
  measured_lanes_ = 0;
  total_ms_ = simulation.total_ms;
  iteration_ms_ = simulation.iteration_ms;
  const std::vector<std::vector<bool>> critical = sim::critical_phase_marks(simulation);
  for (size_t i = 0; i < simulation.ranks.size(); ++i) {
    const sim::RankResult& r = simulation.ranks[i];
    // The host lane (empty without a host model) above the GPU's streams.
    for (const sim::Stream stream :
         {sim::Stream::kHost, sim::Stream::kCompute, sim::Stream::kComm}) {
      TimelineLane lane{.rank = r.rank, .host = r.host, .stream = stream};
      for (size_t k = 0; k < r.phases.size(); ++k) {
        const sim::PhaseRecord& p = r.phases[k];
        if (p.stream != stream) continue;
        const bool on_path = critical[i][k];
        lane.phases.push_back(TimelinePhase{.record = p, .critical = on_path});
        lane.critical = lane.critical || on_path;
        critical_phases_ += on_path ? 1 : 0;
      }
      if (lane.phases.empty()) continue;
      std::stable_sort(lane.phases.begin(), lane.phases.end(),
                       [](const TimelinePhase& a, const TimelinePhase& b) {
                         return a.record.start_ms < b.record.start_ms;
                       });
      lanes_.push_back(std::move(lane));
    }
    if (!measured) continue;
    for (const trace::MeasuredLane& m : measured->lanes) {
      if (m.rank != r.rank) continue;
      lanes_.push_back(measured_lane(m, measured->step, r.host));
      ++measured_lanes_;
      total_ms_ = std::max(total_ms_, lanes_.back().phases.back().record.end_ms);
    }
  }
  endResetModel();
}

void TimelineModel::clear() {
  beginResetModel();
  lanes_.clear();
  total_ms_ = 0.0;
  iteration_ms_ = 0.0;
  critical_phases_ = 0;
  measured_lanes_ = 0;
  endResetModel();
}

QString lane_name(const TimelineLane& lane) {
  if (lane.measured) {
    return QStringLiteral("r%1 trace %2")
        .arg(lane.rank)
        .arg(lane.stream == sim::Stream::kComm ? QStringLiteral("nccl") : QStringLiteral("gpu"));
  }
  return QStringLiteral("r%1 %2").arg(lane.rank).arg(str(sim::to_string(lane.stream)));
}

int TimelineModel::lane_of(int rank, sim::Stream stream) const {
  for (size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].rank == rank && lanes_[i].stream == stream && !lanes_[i].measured)
      return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> TimelineModel::critical_lanes() const {
  std::vector<int> out;
  for (size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].critical) out.push_back(static_cast<int>(i));
  }
  return out;
}

QModelIndex TimelineModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) return {};
  if (!parent.isValid()) return createIndex(row, column, kLaneId);
  return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex TimelineModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kLaneId) return {};
  return createIndex(static_cast<int>(child.internalId() - 1), 0, kLaneId);
}

int TimelineModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(lanes_.size());
  if (parent.internalId() != kLaneId || parent.column() != 0) return 0;
  return static_cast<int>(lanes_[static_cast<size_t>(parent.row())].phases.size());
}

int TimelineModel::columnCount(const QModelIndex&) const { return kNumColumns; }

QVariant TimelineModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !checkIndex(index)) return {};
  if (index.internalId() == kLaneId) {
    const TimelineLane& lane = lanes_[static_cast<size_t>(index.row())];
    if (role == CriticalRole) return lane.critical;
    if (role == RawValueRole && index.column() == kName) return lane.rank;
    if (role != Qt::DisplayRole || index.column() != kName) return {};
    return lane_name(lane);
  }
  const TimelineLane& lane = lanes_[static_cast<size_t>(index.internalId() - 1)];
  const TimelinePhase& p = lane.phases[static_cast<size_t>(index.row())];
  const sim::PhaseRecord& r = p.record;
  if (role == CriticalRole) return p.critical;
  if (role == RawValueRole) {
    switch (index.column()) {
      case kName:
        return static_cast<int>(r.phase);
      case kIteration:
        return r.iteration;
      case kStart:
        return r.start_ms;
      case kEnd:
        return r.end_ms;
      case kDuration:
        return r.end_ms - r.start_ms;
      case kBytes:
        return r.bytes;
      case kTables:
        return r.tables;
      case kCritical:
        return p.critical;
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kName:
      return p.other ? QStringLiteral("other") : str(sim::to_string(r.phase));
    case kIteration:
      return r.iteration;
    case kStart:
      return QString::number(r.start_ms, 'f', 4);
    case kEnd:
      return QString::number(r.end_ms, 'f', 4);
    case kDuration:
      return QString::number(r.end_ms - r.start_ms, 'f', 4);
    case kBytes:
      return format_bytes(r.bytes);
    case kTables:
      return r.tables;
    case kCritical:
      return p.critical ? QStringLiteral("yes") : QString();
    default:
      return {};
  }
}

QVariant TimelineModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const kHeaders[] = {"Lane / phase",  "Iteration", "Start (ms)", "End (ms)",
                                         "Duration (ms)", "Bytes",     "Tables",     "Critical"};
  static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == kNumColumns);
  if (section < 0 || section >= kNumColumns) return {};
  return QString::fromLatin1(kHeaders[section]);
}

}  // namespace shardlab::gui
