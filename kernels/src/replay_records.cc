#include "replay_records.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>

#include "backend_common.h"

namespace shardlab::kernels {
namespace {

void set_timing(ReplayRecord& r, const TimingSummary& t) {
  r.median_ms = t.median_ms;
  r.p90_ms = t.p90_ms;
  r.min_ms = t.min_ms;
  r.samples = t.samples;
}

TimingSummary timing_of(const ReplayRecord& r) {
  return TimingSummary{.median_ms = r.median_ms,
                       .p90_ms = r.p90_ms,
                       .min_ms = r.min_ms,
                       .samples = static_cast<int>(r.samples)};
}

Status bad_record(const ReplayRecord& r, const std::string& what) {
  return Status::internal("replay record of rank " + std::to_string(r.rank) + " names " + what +
                          " " + std::to_string(r.index) + ", which the workload does not have");
}

}  // namespace

ReplayRecord lookup_record(int rank, int shard, bool forward, double bytes, int64_t wrong_elements,
                           const TimingSummary& t) {
  ReplayRecord r;
  r.kind = RecordKind::kLookup;
  r.rank = rank;
  r.index = shard;
  r.forward = forward ? 1 : 0;
  r.bytes = bytes;
  r.wrong_elements = wrong_elements;
  set_timing(r, t);
  return r;
}

ReplayRecord collective_record(int rank, int collective, int members, bool inter_host, double bytes,
                               const TimingSummary& t) {
  ReplayRecord r;
  r.kind = RecordKind::kCollective;
  r.rank = rank;
  r.index = collective;
  r.members = members;
  r.inter_host = inter_host ? 1 : 0;
  r.bytes = bytes;
  set_timing(r, t);
  return r;
}

ReplayRecord phase_record(int rank, int phase_index, const TimingSummary& t) {
  ReplayRecord r;
  r.kind = RecordKind::kPhase;
  r.rank = rank;
  r.index = phase_index;
  set_timing(r, t);
  return r;
}

void add_phase_records(int rank, const PhaseTotals& totals, std::vector<ReplayRecord>& out) {
  for (int i = 0; i < kNumReplayPhases; ++i) {
    const std::vector<double>& ms = totals.samples(i);
    if (!ms.empty()) out.push_back(phase_record(rank, i, summarize(ms)));
  }
}

std::vector<std::byte> encode_records(std::span<const ReplayRecord> records) {
  std::vector<std::byte> out(records.size_bytes());
  if (!records.empty()) std::memcpy(out.data(), records.data(), out.size());
  return out;
}

Result<std::vector<ReplayRecord>> decode_records(std::span<const std::byte> bytes) {
  if (bytes.size() % sizeof(ReplayRecord) != 0) {
    return Status::internal("replay records: " + std::to_string(bytes.size()) +
                            " bytes is not a multiple of " + std::to_string(sizeof(ReplayRecord)));
  }
  std::vector<ReplayRecord> records(bytes.size() / sizeof(ReplayRecord));
  if (!records.empty()) std::memcpy(records.data(), bytes.data(), bytes.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const auto kind = static_cast<uint32_t>(records[i].kind);
    if (kind > static_cast<uint32_t>(RecordKind::kPhase)) {
      return Status::internal("replay record " + std::to_string(i) + " has unknown kind " +
                              std::to_string(kind));
    }
  }
  return records;
}

Status assemble_records(const ReplayWorkload& workload, std::span<const ReplayRecord> records,
                        ReplayResult& result) {
  // Sort keys: (rank, backward, shard) for lookups, (collective, rank), (rank, phase).
  auto key = [](const ReplayRecord& r) {
    switch (r.kind) {
      case RecordKind::kLookup:
        return std::make_tuple(r.kind, r.rank, r.forward ? 0 : 1, r.index);
      case RecordKind::kCollective:
        return std::make_tuple(r.kind, r.index, r.rank, 0);
      case RecordKind::kPhase:
        break;
    }
    return std::make_tuple(r.kind, r.rank, r.index, 0);
  };
  std::vector<const ReplayRecord*> order;
  order.reserve(records.size());
  for (const ReplayRecord& r : records) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(),
                   [&](const ReplayRecord* a, const ReplayRecord* b) { return key(*a) < key(*b); });
  for (const ReplayRecord* r : order) {
    if (r->rank < 0 || r->rank >= static_cast<int>(workload.ranks.size()))
      return bad_record(*r, "its rank");
    switch (r->kind) {
      case RecordKind::kLookup: {
        const auto& shards = workload.ranks[static_cast<size_t>(r->rank)].shards;
        if (r->index < 0 || r->index >= static_cast<int>(shards.size()))
          return bad_record(*r, "shard");
        Measurement m =
            lookup_measurement(shards[static_cast<size_t>(r->index)], r->rank, r->forward != 0);
        m.bytes = r->bytes;
        m.wrong_elements = r->wrong_elements;
        m.timing = timing_of(*r);
        result.measurements.push_back(std::move(m));
        break;
      }
      case RecordKind::kCollective: {
        if (r->index < 0 || r->index >= static_cast<int>(workload.collectives.size())) {
          return bad_record(*r, "collective");
        }
        const sim::CollectiveSpec& spec = workload.collectives[static_cast<size_t>(r->index)];
        Measurement m;
        m.rank = r->rank;
        m.phase = spec.phase;
        m.collective = r->index;
        m.collective_kind = spec.kind;
        m.members = r->members;
        m.inter_host = r->inter_host != 0;
        m.bytes = r->bytes;
        m.model_bytes = r->bytes;
        m.timing = timing_of(*r);
        result.measurements.push_back(std::move(m));
        break;
      }
      case RecordKind::kPhase:
        if (r->index < 0 || r->index >= kNumReplayPhases) return bad_record(*r, "phase");
        result.phase_timings.push_back(
            PhaseTiming{r->rank, kReplayPhases[static_cast<size_t>(r->index)], timing_of(*r)});
        break;
    }
  }
  return Status::ok();
}

}  // namespace shardlab::kernels
