// The CPU backend's replay (cpu_backend.h): threads as ranks.
//
// Threading: the calling thread sets everything up (tables, buffers, groups)
// and joins; one worker per replayed rank then owns that rank's state
// (RankState) alone. Workers share only the CpuGroups, whose calls synchronise
// them, and the per-rank result slots, each written by its own worker and read
// after the join.

#include "cpu_replay.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <new>
#include <string>
#include <thread>

#include "backend_common.h"
#include "cpu_backend.h"
#include "replay_records.h"
#include "shardlab/kernels/bytes.h"
#include "shardlab/kernels/cpu_collectives.h"
#include "shardlab/kernels/embedding_bag.h"
#include "shardlab/planner/memory_budget.h"

namespace shardlab::kernels::detail {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One collective of the iteration among the replayed ranks.
struct ReplayCollective {
  int index = -1;            // into ReplayWorkload::collectives
  sim::CollectiveSpec spec;  // restricted to the replayed ranks
  std::unique_ptr<CpuGroup> group;
  bool inter_host = false;
};

// What one shard does on its rank, with its buffers.
struct ShardState {
  const ShardWork* work = nullptr;
  EmbeddingTable table;
  BagBatch batch;
  std::vector<float> out;
  std::vector<float> grad;
  RowGradients scratch;
  std::vector<double> fwd_ms, bwd_ms;
  double fwd_bytes = 0.0, bwd_bytes = 0.0;  // summed over timed iterations
};

struct CollectiveSlot {
  int collective = -1;  // into the replay's collective list
  int member = -1;      // this rank's index among its members
  CollectiveBuffers sizes;
  std::vector<float> send, recv;
  std::vector<double> ms;
};

struct RankState {
  int rank = -1;
  std::vector<ShardState> shards;
  std::vector<CollectiveSlot> collectives;  // issue order, only those this rank is in
  PhaseTotals phases;
  std::string failure;  // what stopped this rank's own work (empty: nothing)
};

// Runs `work` for the rank unless it has failed already. An exception (out of
// memory drawing a batch) marks the rank failed instead of escaping its
// thread; the rank still takes part in every barrier and collective, with
// the buffers allocated before the threads started, so no other rank waits
// for it forever, and the replay reports the failure once all have joined.
template <typename Work>
void guarded(RankState& st, Work&& work) {
  if (!st.failure.empty()) return;
  try {
    work();
  } catch (const std::bad_alloc&) {
    st.failure = "out of memory";
  } catch (const std::exception& e) {
    st.failure = e.what();
  } catch (...) {
    st.failure = "an unknown exception";
  }
}

void fill_send(std::vector<float>& v, uint64_t seed, uint64_t key) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = draw_value(seed, key, i, 1.0f);
}

// Runs the collectives of `phase` this rank takes part in, in issue order.
void run_collectives(RankState& st, std::vector<ReplayCollective>& colls, sim::Phase phase,
                     bool timed) {
  for (CollectiveSlot& slot : st.collectives) {
    ReplayCollective& c = colls[static_cast<size_t>(slot.collective)];
    if (c.spec.phase != phase) continue;
    CpuGroup& g = *c.group;
    g.barrier();  // start together: the time is the collective's, not the members' skew
    const auto start = Clock::now();
    switch (c.spec.kind) {
      case sim::CollectiveKind::kAllToAll:
        g.all_to_all(slot.member, slot.send, slot.sizes.send_counts, slot.recv,
                     slot.sizes.recv_counts);
        break;
      case sim::CollectiveKind::kReduceScatter:
        g.reduce_scatter(slot.member, slot.send, slot.sizes.send_counts, slot.recv);
        break;
      case sim::CollectiveKind::kAllGather:
        g.all_gather(slot.member, slot.send, slot.sizes.send_counts, slot.recv);
        break;
      case sim::CollectiveKind::kAllReduce:
        g.all_reduce(slot.member, slot.recv);
        break;
      case sim::CollectiveKind::kEstimate:
        break;
    }
    if (!timed) continue;
    const double ms = ms_since(start);
    guarded(st, [&] {
      slot.ms.push_back(ms);
      st.phases.add(phase, ms);
    });
  }
}

LookupShape shape_of(const ShardWork& w, const BagBatch& b) {
  return LookupShape{.ids = b.num_ids(),
                     .bags = b.bags(),
                     .dim = w.dim,
                     .precision = w.precision,
                     .pooling = w.pooling,
                     .weighted = w.weighted};
}

void run_rank(RankState& st, std::vector<ReplayCollective>& colls, CpuGroup& all,
              const ReplayWorkload& w, const ReplayOptions& o, const ProgressFn& progress,
              bool reports) {
  const InputDraw draw{.seed = o.seed,
                       .zipf = o.ids == IdDistribution::kZipf,
                       .alpha = o.zipf_alpha,
                       .poisson = o.pooling == PoolingDistribution::kPoisson};
  const OptimizerConfig opt{.kind = w.optimizer, .learning_rate = o.learning_rate};
  const auto rank = static_cast<uint64_t>(st.rank);
  guarded(st, [&] {
    for (size_t s = 0; s < st.shards.size(); ++s)
      st.shards[s].table.fill_initial(o.seed, table_key(rank, s));
  });
  const int total = o.warmup + o.iterations;
  for (int it = 0; it < total; ++it) {
    const bool timed = it >= o.warmup;
    guarded(st, [&] {
      for (size_t s = 0; s < st.shards.size(); ++s) {
        ShardState& sh = st.shards[s];
        const ShardWork& wk = *sh.work;
        const uint64_t key = shard_key(rank, s, static_cast<uint64_t>(it));
        draw_batch(draw, key, wk.bags, wk.pooling_factor, std::max<int64_t>(wk.rows_used, 1),
                   wk.weighted, sh.batch);
        const int64_t out_rows = output_rows(sh.batch, wk.pooling);
        sh.out.resize(static_cast<size_t>(out_rows * wk.dim));
        if (w.training) draw_gradient(o.seed, key, out_rows, wk.dim, sh.grad);
      }
    });
    for (const ReplayStep& step : kReplaySteps) {
      if (!runs_step(step, w.training)) continue;
      all.barrier();
      if (!step.lookups) {
        run_collectives(st, colls, step.phase, timed);
      } else if (step.forward()) {
        guarded(st, [&] {
          for (ShardState& sh : st.shards) {
            const auto start = Clock::now();
            embedding_bag_forward(sh.table, sh.batch, sh.work->pooling, sh.out);
            const double ms = ms_since(start);
            if (!timed) continue;
            sh.fwd_ms.push_back(ms);
            st.phases.add(step.phase, ms);
            sh.fwd_bytes += forward_bytes(shape_of(*sh.work, sh.batch));
          }
        });
      } else {
        guarded(st, [&] {
          for (ShardState& sh : st.shards) {
            const auto start = Clock::now();
            const int64_t unique = embedding_bag_backward(sh.table, sh.batch, sh.work->pooling,
                                                          sh.grad, opt, sh.scratch);
            const double ms = ms_since(start);
            if (!timed) continue;
            sh.bwd_ms.push_back(ms);
            st.phases.add(step.phase, ms);
            sh.bwd_bytes += backward_bytes(shape_of(*sh.work, sh.batch), unique, w.optimizer);
          }
        });
      }
    }
    if (timed) guarded(st, [&] { st.phases.end_iteration(); });
    all.barrier();
    if (reports && progress)
      guarded(st, [&] { progress(it + 1, total, iteration_progress(it, o)); });
  }
}

// What one rank measured, as records (replay_records.h).
void add_records(const RankState& st, const std::vector<ReplayCollective>& colls, bool training,
                 int iterations, std::vector<ReplayRecord>& out) {
  for (size_t s = 0; s < st.shards.size(); ++s) {
    const ShardState& sh = st.shards[s];
    out.push_back(lookup_record(st.rank, static_cast<int>(s), true, sh.fwd_bytes / iterations, 0,
                                summarize(sh.fwd_ms)));
    if (!training) continue;
    out.push_back(lookup_record(st.rank, static_cast<int>(s), false, sh.bwd_bytes / iterations, 0,
                                summarize(sh.bwd_ms)));
  }
  for (const CollectiveSlot& slot : st.collectives) {
    const ReplayCollective& rc = colls[static_cast<size_t>(slot.collective)];
    out.push_back(collective_record(st.rank, rc.index, static_cast<int>(rc.spec.members.size()),
                                    rc.inter_host, rc.spec.bytes_sent(slot.member),
                                    summarize(slot.ms)));
  }
  add_phase_records(st.rank, st.phases, out);
}

// What the replay of `ranks` allocates, in bytes (docs/replay.md "Memory"):
// per shard its table (with row-wise Adagrad's state), its batch (offsets,
// ids, weights), its output, and in training the output's gradient and the
// backward's scratch (the unique rows' gradients, the sorted (id, position)
// pairs, each position's bag); per slot of `collectives` (the replay's own
// list) its send and receive buffers. Batches are sized at their mean: Poisson bag lengths vary by
// a few per cent at the sizes where memory matters.
double replay_bytes(const ReplayWorkload& workload, const std::vector<int>& ranks,
                    const std::vector<ReplayedCollective>& collectives) {
  constexpr double kFloat = 4.0;
  constexpr double kIndex = 8.0;
  double bytes = 0.0;
  for (int r : ranks) {
    for (const ShardWork& s : workload.ranks[static_cast<size_t>(r)].shards) {
      const auto rows = static_cast<double>(std::max<int64_t>(s.rows_used, 1));
      const auto dim = static_cast<double>(std::max<int64_t>(s.dim, 1));
      const auto bags = static_cast<double>(s.bags);
      const double ids = bags * s.pooling_factor;
      const double out_rows = s.pooling == PoolingMode::kNone ? ids : bags;
      bytes += rows * dim * element_bytes(s.precision);
      if (workload.optimizer == OptimizerKind::kRowwiseAdagrad) bytes += rows * kFloat;
      bytes += (bags + 1.0) * kIndex + ids * (kIndex + (s.weighted ? kFloat : 0.0));
      bytes += out_rows * dim * kFloat;
      if (!workload.training) continue;
      const double unique = std::min(ids, rows);
      bytes += out_rows * dim * kFloat + unique * (kIndex + dim * kFloat) + ids * 3.0 * kIndex;
    }
  }
  for (const ReplayedCollective& c : collectives) {
    for (size_t m = 0; m < c.spec.members.size(); ++m) {
      const CollectiveBuffers b = collective_buffers(c.spec, static_cast<int>(m));
      bytes += static_cast<double>(b.send_elements + b.recv_elements) * kFloat;
      // An all-reduce's shared sum (CpuGroup::reserve_all_reduce).
      if (m == 0 && c.spec.kind == sim::CollectiveKind::kAllReduce)
        bytes += static_cast<double>(b.recv_elements) * kFloat;
    }
  }
  return bytes;
}

}  // namespace

Result<ReplayResult> cpu_replay(const ReplayWorkload& workload, const ReplayOptions& options,
                                const ProgressFn& progress) {
  if (Status st = check_replay_options(workload, options); !st) return st;
  const std::vector<int> ranks = replayed_ranks(workload, options);
  if (ranks.empty()) return Status::invalid_argument("no ranks to replay");

  // Memory first: a replay too large for this process is an error, not a crash.
  std::vector<ReplayedCollective> replayed_list =
      replayed_collectives(workload.collectives, workload.training, ranks);
  if (Status st = check_fits_in_memory(replay_bytes(workload, ranks, replayed_list),
                                       "the replay of these ranks' tables, batches and buffers",
                                       "replay fewer ranks (--ranks), cap the rows replayed per "
                                       "shard (--max-rows), or lower the scenario's batch_size");
      !st) {
    return st;
  }

  std::vector<ReplayCollective> colls;
  std::vector<RankState> states(ranks.size());
  const int local = std::max(1, workload.local_world_size);
  try {
    for (ReplayedCollective& replayed : replayed_list) {
      ReplayCollective rc;
      rc.index = replayed.index;
      rc.spec = std::move(replayed.spec);
      for (int m : rc.spec.members) rc.inter_host |= m / local != rc.spec.members.front() / local;
      rc.group = std::make_unique<CpuGroup>(static_cast<int>(rc.spec.members.size()));
      if (rc.spec.kind == sim::CollectiveKind::kAllReduce) {
        rc.group->reserve_all_reduce(
            static_cast<size_t>(collective_buffers(rc.spec, 0).recv_elements));
      }
      colls.push_back(std::move(rc));
    }
    for (size_t k = 0; k < ranks.size(); ++k) {
      RankState& st = states[k];
      st.rank = ranks[k];
      for (const ShardWork& s : workload.ranks[static_cast<size_t>(st.rank)].shards) {
        ShardState sh;
        sh.work = &s;
        sh.fwd_ms.reserve(static_cast<size_t>(options.iterations));
        sh.bwd_ms.reserve(static_cast<size_t>(options.iterations));
        sh.table = EmbeddingTable(s.rows_used, std::max<int64_t>(s.dim, 1), s.precision);
        st.shards.push_back(std::move(sh));
      }
      for (size_t c = 0; c < colls.size(); ++c) {
        const int member = member_index(colls[c].spec, st.rank);
        if (member < 0) continue;
        CollectiveSlot slot;
        slot.collective = static_cast<int>(c);
        slot.member = member;
        slot.sizes = collective_buffers(colls[c].spec, slot.member);
        slot.ms.reserve(static_cast<size_t>(options.iterations));
        slot.send.resize(static_cast<size_t>(slot.sizes.send_elements));
        slot.recv.resize(static_cast<size_t>(slot.sizes.recv_elements));
        fill_send(
            colls[c].spec.kind == sim::CollectiveKind::kAllReduce ? slot.recv : slot.send,
            options.seed,
            mix64(static_cast<uint64_t>(colls[c].index) * 1024 + static_cast<uint64_t>(st.rank)));
        st.collectives.push_back(std::move(slot));
      }
    }
  } catch (const std::bad_alloc&) {
    return Status::internal(
        "out of memory allocating the replay's tables and buffers; cap the rows replayed per "
        "shard or replay fewer ranks");
  }

  CpuGroup all(static_cast<int>(ranks.size()));
  {
    std::vector<std::jthread> workers;
    for (size_t k = 0; k < ranks.size(); ++k) {
      workers.emplace_back(
          [&, k] { run_rank(states[k], colls, all, workload, options, progress, k == 0); });
    }
  }

  for (const RankState& st : states) {
    if (st.failure.empty()) continue;
    return Status::invalid_argument(
        "the replay stopped on rank " + std::to_string(st.rank) + ": " + st.failure +
        " (the memory estimate fit; the system may hold less than the budget says); cap the rows "
        "replayed per shard or replay fewer ranks");
  }

  ReplayResult result;
  result.backend = "cpu";
  result.device_name = cpu_device_name();
  result.world_size = workload.world_size;
  result.devices_used = static_cast<int>(ranks.size());
  result.warmup = options.warmup;
  result.iterations = options.iterations;
  std::vector<ReplayRecord> records;
  for (const RankState& st : states)
    add_records(st, colls, workload.training, options.iterations, records);
  if (Status st = assemble_records(workload, records, result); !st) return st;
  return result;
}

Status check_fits_in_memory(double bytes, const std::string& what, const std::string& advice) {
  // Beyond int64_t is beyond any budget: clamped, the check still refuses it.
  const double clamped = std::min(bytes, 0x1p62);
  return planner::check_memory(what, static_cast<int64_t>(std::max(clamped, 0.0)), advice);
}

}  // namespace shardlab::kernels::detail
