// A replay's records in transit: what one rank measured, as fixed-layout
// ReplayRecords that the CUDA backend's processes exchange as bytes under
// mpirun (every process gathers every process's records) and that both
// backends turn into a ReplayResult's measurements and phase timings in one
// order (assemble_records).
//
// Layout: a ReplayRecord is 72 bytes of plain integers and doubles, no
// padding, checked at compile time; encode_records writes them in host byte
// order, which is every process's (one launch, one architecture).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "backend_common.h"
#include "shardlab/kernels/measurement.h"
#include "shardlab/planner/status.h"

namespace shardlab::kernels {

enum class RecordKind : uint32_t {
  kLookup = 0,      // one shard's lookups in one direction on one rank
  kCollective = 1,  // one collective on one of its members
  kPhase = 2,       // one rank's time in one phase per iteration
};

struct ReplayRecord {
  RecordKind kind = RecordKind::kLookup;
  int32_t rank = -1;
  // kLookup: the shard's index within its rank (RankWorkload::shards);
  // kCollective: ReplayWorkload::collectives index; kPhase: kReplayPhases index.
  int32_t index = -1;
  int32_t members = 0;     // kCollective: ranks that took part
  uint8_t forward = 0;     // kLookup: 1 forward, 0 backward with the optimizer
  uint8_t inter_host = 0;  // kCollective: the members span hosts
  uint8_t unused[6] = {};  // zero
  double bytes = 0.0;  // kLookup: bytes per timed iteration; kCollective: bytes this member sent
  int64_t wrong_elements = 0;  // kLookup: elements the reference check found wrong
  // The timing summary, field by field (TimingSummary's own layout is not fixed).
  double median_ms = 0.0;
  double p90_ms = 0.0;
  double min_ms = 0.0;
  int64_t samples = 0;
};
static_assert(std::is_trivially_copyable_v<ReplayRecord> &&
              std::is_standard_layout_v<ReplayRecord>);
static_assert(sizeof(ReplayRecord) == 72,
              "ReplayRecord has padding or a new field: update encode/decode users");
static_assert(offsetof(ReplayRecord, rank) == 4 && offsetof(ReplayRecord, index) == 8 &&
              offsetof(ReplayRecord, members) == 12 && offsetof(ReplayRecord, forward) == 16 &&
              offsetof(ReplayRecord, bytes) == 24 && offsetof(ReplayRecord, wrong_elements) == 32 &&
              offsetof(ReplayRecord, median_ms) == 40 && offsetof(ReplayRecord, samples) == 64);

// Records of each kind (rank and index set by the caller's fields; timing from `t`).
ReplayRecord lookup_record(int rank, int shard, bool forward, double bytes, int64_t wrong_elements,
                           const TimingSummary& t);
ReplayRecord collective_record(int rank, int collective, int members, bool inter_host, double bytes,
                               const TimingSummary& t);
ReplayRecord phase_record(int rank, int phase_index, const TimingSummary& t);

// A record per phase `totals` measured on `rank`, in phase order.
void add_phase_records(int rank, const PhaseTotals& totals, std::vector<ReplayRecord>& out);

// The records as bytes, and back. decode_records fails (internal: the bytes
// did not come from encode_records) on a length that is not a whole number
// of records or an unknown kind.
std::vector<std::byte> encode_records(std::span<const ReplayRecord> records);
Result<std::vector<ReplayRecord>> decode_records(std::span<const std::byte> bytes);

// Adds `records` (any process's, any order) to `result` in the order every
// backend returns them: lookups by rank, forward before backward, shards in
// plan order; then collectives by index, members by rank; phase timings by
// rank and phase. Lookups take the shard's fields from `workload`. Fails
// (internal) on a record naming a rank, shard, collective or phase the
// workload does not have.
Status assemble_records(const ReplayWorkload& workload, std::span<const ReplayRecord> records,
                        ReplayResult& result);

}  // namespace shardlab::kernels
