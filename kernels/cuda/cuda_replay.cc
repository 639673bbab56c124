// The CUDA backend's replay (cuda_backend.h).
//
// Placement: the replayed ranks (ascending) run in waves of as many ranks as
// this process has GPUs; rank k of a wave runs on GPU k. Under mpirun there is
// one wave and each process drives the one rank its process index names.
// Collectives run among the wave's members of each collective (sizes from the
// plan, restricted to those members as the CPU backend restricts them to
// --ranks); a collective with fewer than two such members is not run.
//
// One host thread drives every local GPU. An iteration:
//   draw inputs (untimed) -> input dist -> forward lookups -> output dist ->
//   [training: backward output dist -> backward + optimizer -> DP all-reduce]
// All work of a GPU goes on its one stream, so its phases never overlap.
// Lookups are timed per shard with CUDA events on that stream. Before each
// collective the host waits for every local GPU (and, under mpirun, for every
// process), so a collective starts together on its members and its time is
// its own, not the members' skew (as the CPU backend's barrier); it is timed
// per member from its start to its completion on that member's stream.
//
// Order of records: lookups by rank, forward before backward, shards in plan
// order; then collectives in issue order, members by rank. Under mpirun every
// process gathers every record, so each returns the whole result.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "cuda_check.h"
#include "cuda_context.h"
#include "device_buffer.h"
#include "device_shard.h"
#include "nccl_check.h"
#include "shardlab/kernels/backend_common.h"
#include "shardlab/kernels/bytes.h"
#include "shardlab/kernels/cpu_collectives.h"

namespace shardlab::kernels::cuda {
namespace {

bool backward_phase(sim::Phase p) {
  return p == sim::Phase::kBwdOutputDist || p == sim::Phase::kBwdCompute || p == sim::Phase::kDpAllreduce;
}

// Shards a verification run checks at most this large: the CPU reference
// replays them too, so the check stays quick on any table.
constexpr int64_t kVerifyRows = 65536;
constexpr int64_t kVerifyBags = 2048;
constexpr int kVerifyIterations = 2;

// One collective of the wave, among its members in the wave.
struct WaveCollective {
  int index = -1;            // into ReplayWorkload::collectives
  sim::CollectiveSpec spec;  // restricted to the wave's ranks
  NcclGroup* group = nullptr;  // null: no participant in this process
  bool inter_host = false;
  std::vector<std::vector<int64_t>> counts;  // all-to-all: floats member i sends member j
  std::vector<int64_t> chunks;               // reduce-scatter / all-gather: floats per member
  int64_t elements = 0;                      // all-reduce: floats
};

struct SlotCollective {
  int collective = -1;  // into the wave's collectives
  int member = -1;      // index among the collective's members
  EventPair events;
  std::vector<double> ms;
};

struct ShardSlot {
  const ShardWork* work = nullptr;
  int index = -1;  // within the rank
  std::unique_ptr<DeviceShard> shard;
  EventPair fwd_events, bwd_events;
  std::vector<double> fwd_ms, bwd_ms;
  double fwd_bytes = 0.0, bwd_bytes = 0.0;  // summed over timed iterations
  int64_t wrong_fwd = 0, wrong_bwd = 0;
};

// One rank on one GPU of this process.
struct Slot {
  int rank = -1;
  int device = 0;
  Stream stream;
  std::vector<ShardSlot> shards;
  std::vector<SlotCollective> collectives;
  DeviceBuffer<float> send, recv;
  PhaseTotals phases;
};

// Records as plain numbers: what one process measured, gathered under mpirun.
enum class WireKind { kLookup = 0, kCollective = 1, kPhase = 2 };

void put_timing(std::vector<double>& out, const TimingSummary& t) {
  out.insert(out.end(), {t.median_ms, t.p90_ms, t.min_ms, static_cast<double>(t.samples)});
}

TimingSummary take_timing(const double* p) {
  return TimingSummary{.median_ms = p[0], .p90_ms = p[1], .min_ms = p[2], .samples = static_cast<int>(p[3])};
}

Measurement collective_record(const ReplayWorkload& w, int index, int rank) {
  Measurement m;
  m.rank = rank;
  m.phase = w.collectives[static_cast<size_t>(index)].phase;
  m.collective = index;
  m.collective_kind = w.collectives[static_cast<size_t>(index)].kind;
  return m;
}

Status check_options(const ReplayWorkload& w, const ReplayOptions& o) {
  SHARDLAB_RETURN_IF_ERROR(check_replay_options(w, o));
  if (static_cast<int>(w.ranks.size()) != w.world_size) {
    return Status::internal("workload with " + std::to_string(w.ranks.size()) + " ranks for world size " +
                            std::to_string(w.world_size));
  }
  return Status::ok();
}

// Everything one wave needs and measures.
class Wave {
 public:
  Wave(CudaContext& ctx, const ReplayWorkload& w, const ReplayOptions& o, std::vector<int> ranks)
      : ctx_(ctx), w_(w), o_(o), ranks_(std::move(ranks)) {}

  Status set_up();
  Status run(const ProgressFn& progress, int& done, int total);
  Status verify();
  // This process's records, as wire numbers (see WireKind).
  std::vector<double> wire_records() const;

 private:
  bool mpi() const { return ctx_.launch.size > 1; }
  Status set_up_collectives();
  Status draw_inputs(int iteration);
  Status run_lookups(bool forward);
  Status run_collectives(sim::Phase phase);
  Status run_collective(WaveCollective& c);
  Status synchronize_all();

  CudaContext& ctx_;
  const ReplayWorkload& w_;
  const ReplayOptions& o_;
  std::vector<int> ranks_;  // the wave's ranks, ascending
  std::vector<Slot> slots_; // the ranks this process drives
  std::vector<WaveCollective> collectives_;
  std::map<std::vector<int>, std::unique_ptr<NcclGroup>> groups_;  // by members (global ranks)
  InputDraw draw_;
};

Status Wave::set_up() {
  draw_ = InputDraw{.seed = o_.seed,
                    .zipf = o_.ids == IdDistribution::kZipf,
                    .alpha = o_.zipf_alpha,
                    .poisson = o_.pooling == PoolingDistribution::kPoisson};
  // Under mpirun this process drives rank ranks_[process]; else rank k of the wave runs on GPU k.
  std::vector<std::pair<int, int>> local;  // (rank, device)
  if (mpi()) {
    local.emplace_back(ranks_[static_cast<size_t>(ctx_.launch.rank)], ctx_.devices.front());
  } else {
    for (size_t k = 0; k < ranks_.size(); ++k) local.emplace_back(ranks_[k], ctx_.devices[k]);
  }
  slots_.resize(local.size());
  for (size_t k = 0; k < local.size(); ++k) {
    Slot& slot = slots_[k];
    slot.rank = local[k].first;
    slot.device = local[k].second;
    DeviceGuard guard(slot.device);
    if (!guard.ok()) return Status::internal("cannot select GPU " + std::to_string(slot.device));
    SHARDLAB_RETURN_IF_ERROR(slot.stream.create());
    const auto& works = w_.ranks[static_cast<size_t>(slot.rank)].shards;
    slot.shards.resize(works.size());
    for (size_t s = 0; s < works.size(); ++s) {
      ShardSlot& sh = slot.shards[s];
      sh.work = &works[s];
      sh.index = static_cast<int>(s);
      auto shard = DeviceShard::create(shape_of(works[s]), w_.optimizer);
      if (!shard) {
        return shard.status().with_context("rank " + std::to_string(slot.rank) + " shard " + std::to_string(s) +
                                           " (table " + works[s].table + ") on GPU " + std::to_string(slot.device) +
                                           "; cap the rows per shard (--max-rows) or replay fewer ranks (--ranks)");
      }
      sh.shard = std::move(*shard);
      SHARDLAB_RETURN_IF_ERROR(sh.shard->fill_table(o_.seed, table_key(static_cast<uint64_t>(slot.rank), s),
                                                    slot.stream.get()));
      SHARDLAB_RETURN_IF_ERROR(sh.fwd_events.create());
      SHARDLAB_RETURN_IF_ERROR(sh.bwd_events.create());
    }
  }
  return set_up_collectives();
}

Status Wave::set_up_collectives() {
  for (size_t c = 0; c < w_.collectives.size(); ++c) {
    const sim::CollectiveSpec& spec = w_.collectives[c];
    if (spec.kind == sim::CollectiveKind::kEstimate || replay_phase_index(spec.phase) < 0) continue;
    if (!w_.training && backward_phase(spec.phase)) continue;
    WaveCollective wc;
    wc.index = static_cast<int>(c);
    wc.spec = restrict_collective(spec, ranks_);
    const int n = static_cast<int>(wc.spec.members.size());
    if (n < 2) continue;
    for (int m = 0; m < n; ++m) {
      const CollectiveBuffers b = collective_buffers(wc.spec, m);
      if (spec.kind == sim::CollectiveKind::kAllToAll) wc.counts.push_back(b.send_counts);
      if (m == 0) {
        wc.chunks = b.send_counts;
        wc.elements = b.recv_elements;
      }
    }
    // Members as indices into the wave (= processes under mpirun).
    std::vector<int> in_wave;
    for (int r : wc.spec.members) {
      in_wave.push_back(static_cast<int>(std::lower_bound(ranks_.begin(), ranks_.end(), r) - ranks_.begin()));
    }
    if (mpi()) {
      for (int i : in_wave) {
        wc.inter_host |= ctx_.host_ids[static_cast<size_t>(i)] != ctx_.host_ids[static_cast<size_t>(in_wave.front())];
      }
    }
    auto found = groups_.find(wc.spec.members);
    if (found == groups_.end()) {
      std::unique_ptr<NcclGroup> group;
      if (mpi()) {
        // Every process calls this for the same collectives in the same order.
        auto sub = ctx_.world->subgroup(in_wave);
        if (!sub) return sub.status().with_context("NCCL communicator for collective " + std::to_string(c));
        group = std::move(*sub);
      } else {
        std::vector<int> devices;
        for (int i : in_wave) devices.push_back(slots_[static_cast<size_t>(i)].device);
        auto made = NcclGroup::create_local(devices);
        if (!made) return made.status().with_context("NCCL communicator for collective " + std::to_string(c));
        group = std::move(*made);
      }
      found = groups_.emplace(wc.spec.members, std::move(group)).first;
    }
    wc.group = found->second.get();
    collectives_.push_back(std::move(wc));
  }
  // Each slot's part in the collectives, and buffers for the largest.
  for (Slot& slot : slots_) {
    int64_t send = 1;
    int64_t recv = 1;
    for (size_t c = 0; c < collectives_.size(); ++c) {
      const auto& members = collectives_[c].spec.members;
      const auto at = std::find(members.begin(), members.end(), slot.rank);
      if (at == members.end()) continue;
      SlotCollective sc;
      sc.collective = static_cast<int>(c);
      sc.member = static_cast<int>(at - members.begin());
      const CollectiveBuffers b = collective_buffers(collectives_[c].spec, sc.member);
      send = std::max(send, b.send_elements);
      recv = std::max(recv, b.recv_elements);
      DeviceGuard guard(slot.device);
      SHARDLAB_RETURN_IF_ERROR(sc.events.create());
      slot.collectives.push_back(std::move(sc));
    }
    DeviceGuard guard(slot.device);
    if (Status st = slot.send.reserve(send); !st) return st.with_context("collective send buffer");
    if (Status st = slot.recv.reserve(recv); !st) return st.with_context("collective receive buffer");
    // Zeros: reductions of finite data, whatever was in the memory before.
    CUDA_CHECK(cudaMemsetAsync(slot.send.data(), 0, static_cast<size_t>(send) * sizeof(float), slot.stream.get()));
    CUDA_CHECK(cudaMemsetAsync(slot.recv.data(), 0, static_cast<size_t>(recv) * sizeof(float), slot.stream.get()));
  }
  return synchronize_all();
}

Status Wave::synchronize_all() {
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    CUDA_CHECK(cudaStreamSynchronize(slot.stream.get()));
  }
#if defined(SHARDLAB_HAVE_MPI)
  if (mpi()) SHARDLAB_RETURN_IF_ERROR(mpi_barrier());
#endif
  return Status::ok();
}

Status Wave::draw_inputs(int iteration) {
  const auto it = static_cast<uint64_t>(iteration);
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    for (ShardSlot& sh : slot.shards) {
      SHARDLAB_RETURN_IF_ERROR(sh.shard->draw_offsets(
          draw_, shard_key(static_cast<uint64_t>(slot.rank), static_cast<uint64_t>(sh.index), it), slot.stream.get()));
    }
  }
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    CUDA_CHECK(cudaStreamSynchronize(slot.stream.get()));
    for (ShardSlot& sh : slot.shards) {
      SHARDLAB_RETURN_IF_ERROR(sh.shard->draw_rest(
          draw_, shard_key(static_cast<uint64_t>(slot.rank), static_cast<uint64_t>(sh.index), it), w_.training,
          slot.stream.get()));
    }
  }
  return Status::ok();
}

// Enqueues every local shard's lookups; their events are read after the
// iteration's synchronisation.
Status Wave::run_lookups(bool forward) {
  const DeviceOptimizer optimizer{.kind = w_.optimizer, .learning_rate = o_.learning_rate};
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    cudaStream_t stream = slot.stream.get();
    for (ShardSlot& sh : slot.shards) {
      EventPair& events = forward ? sh.fwd_events : sh.bwd_events;
      SHARDLAB_RETURN_IF_ERROR(events.record_start(stream));
      SHARDLAB_RETURN_IF_ERROR(forward ? sh.shard->forward(stream) : sh.shard->backward(optimizer, stream));
      SHARDLAB_RETURN_IF_ERROR(events.record_stop(stream));
    }
  }
  return Status::ok();
}

Status Wave::run_collective(WaveCollective& c) {
  // Start together (the CPU backend's barrier): wait for every local GPU and,
  // under mpirun, every process, members or not (the barrier is MPI's world).
  SHARDLAB_RETURN_IF_ERROR(synchronize_all());
  if (c.group == nullptr) return Status::ok();  // mpirun: this process has no member in it
  std::vector<LocalBuffers> buffers(static_cast<size_t>(c.group->local_count()));
  std::vector<SlotCollective*> parts(buffers.size(), nullptr);
  std::vector<Slot*> owners(buffers.size(), nullptr);
  const int collective = static_cast<int>(&c - collectives_.data());
  for (Slot& slot : slots_) {
    for (SlotCollective& sc : slot.collectives) {
      if (sc.collective != collective) continue;
      const int l = c.group->local_of(sc.member);
      if (l < 0) continue;
      buffers[static_cast<size_t>(l)] = LocalBuffers{.send = slot.send.data(), .recv = slot.recv.data(),
                                                     .stream = slot.stream.get()};
      parts[static_cast<size_t>(l)] = &sc;
      owners[static_cast<size_t>(l)] = &slot;
    }
  }
  for (size_t l = 0; l < parts.size(); ++l) {
    if (parts[l] == nullptr) return Status::internal("collective member without a local GPU");
    DeviceGuard guard(owners[l]->device);
    SHARDLAB_RETURN_IF_ERROR(parts[l]->events.record_start(buffers[l].stream));
  }
  switch (c.spec.kind) {
    case sim::CollectiveKind::kAllToAll:
      SHARDLAB_RETURN_IF_ERROR(nccl_all_to_all(*c.group, c.counts, buffers));
      break;
    case sim::CollectiveKind::kReduceScatter:
      SHARDLAB_RETURN_IF_ERROR(nccl_reduce_scatter(*c.group, c.chunks, buffers));
      break;
    case sim::CollectiveKind::kAllGather:
      SHARDLAB_RETURN_IF_ERROR(nccl_all_gather(*c.group, c.chunks, buffers));
      break;
    case sim::CollectiveKind::kAllReduce:
      SHARDLAB_RETURN_IF_ERROR(nccl_all_reduce(*c.group, c.elements, buffers));
      break;
    case sim::CollectiveKind::kEstimate:
      break;
  }
  for (size_t l = 0; l < parts.size(); ++l) {
    DeviceGuard guard(owners[l]->device);
    SHARDLAB_RETURN_IF_ERROR(parts[l]->events.record_stop(buffers[l].stream));
  }
  return Status::ok();
}

Status Wave::run_collectives(sim::Phase phase) {
  for (WaveCollective& c : collectives_) {
    if (c.spec.phase == phase) SHARDLAB_RETURN_IF_ERROR(run_collective(c));
  }
  return Status::ok();
}

Status Wave::run(const ProgressFn& progress, int& done, int total) {
  const int iterations = o_.warmup + o_.iterations;
  for (int it = 0; it < iterations; ++it) {
    const bool timed = it >= o_.warmup;
    SHARDLAB_RETURN_IF_ERROR(draw_inputs(it));
    SHARDLAB_RETURN_IF_ERROR(run_collectives(sim::Phase::kInputDist));
    SHARDLAB_RETURN_IF_ERROR(run_lookups(true));
    SHARDLAB_RETURN_IF_ERROR(run_collectives(sim::Phase::kOutputDist));
    if (w_.training) {
      SHARDLAB_RETURN_IF_ERROR(run_collectives(sim::Phase::kBwdOutputDist));
      SHARDLAB_RETURN_IF_ERROR(run_lookups(false));
      SHARDLAB_RETURN_IF_ERROR(run_collectives(sim::Phase::kDpAllreduce));
    }
    SHARDLAB_RETURN_IF_ERROR(synchronize_all());
    if (timed) {
      for (Slot& slot : slots_) {
        for (ShardSlot& sh : slot.shards) {
          auto fwd = sh.fwd_events.elapsed_ms();
          if (!fwd) return fwd.status();
          sh.fwd_ms.push_back(*fwd);
          slot.phases.add(sim::Phase::kFwdCompute, *fwd);
          sh.fwd_bytes += forward_bytes(sh.shard->lookup_shape());
          if (!w_.training) continue;
          auto bwd = sh.bwd_events.elapsed_ms();
          if (!bwd) return bwd.status();
          sh.bwd_ms.push_back(*bwd);
          slot.phases.add(sim::Phase::kBwdCompute, *bwd);
          sh.bwd_bytes += backward_bytes(sh.shard->lookup_shape(), sh.shard->unique_rows(), w_.optimizer);
        }
        for (SlotCollective& sc : slot.collectives) {
          if (collectives_[static_cast<size_t>(sc.collective)].group == nullptr) continue;
          auto ms = sc.events.elapsed_ms();
          if (!ms) return ms.status();
          sc.ms.push_back(*ms);
          slot.phases.add(collectives_[static_cast<size_t>(sc.collective)].spec.phase, *ms);
        }
        slot.phases.end_iteration();
      }
    }
    ++done;
    if (progress) progress(done, total, iteration_progress(it, o_));
  }
  return Status::ok();
}

Status Wave::verify() {
  const OptimizerConfig optimizer{.kind = w_.optimizer, .learning_rate = o_.learning_rate};
  for (Slot& slot : slots_) {
    DeviceGuard guard(slot.device);
    for (ShardSlot& sh : slot.shards) {
      ShardShape shape = shape_of(*sh.work);
      shape.rows = std::min(shape.rows, kVerifyRows);
      shape.bags = std::min(shape.bags, kVerifyBags);
      auto device = run_shard_on_device(shape, draw_, optimizer, slot.rank, sh.index, kVerifyIterations);
      if (!device) return device.status().with_context("verifying table " + sh.work->table);
      const ShardRun reference = run_shard_on_cpu(shape, draw_, optimizer, slot.rank, sh.index, kVerifyIterations);
      const ShardDifferences d = compare_runs(*device, reference);
      sh.wrong_fwd = d.inputs + d.forward;
      sh.wrong_bwd = d.table + d.state;
    }
  }
  return Status::ok();
}

std::vector<double> Wave::wire_records() const {
  std::vector<double> out;
  for (const Slot& slot : slots_) {
    for (const ShardSlot& sh : slot.shards) {
      for (bool forward : {true, false}) {
        if (!forward && !w_.training) continue;
        const std::vector<double>& ms = forward ? sh.fwd_ms : sh.bwd_ms;
        out.insert(out.end(), {static_cast<double>(WireKind::kLookup), static_cast<double>(slot.rank),
                               static_cast<double>(sh.index), forward ? 1.0 : 0.0,
                               (forward ? sh.fwd_bytes : sh.bwd_bytes) / o_.iterations,
                               static_cast<double>(forward ? sh.wrong_fwd : sh.wrong_bwd)});
        put_timing(out, summarize(ms));
      }
    }
    for (const SlotCollective& sc : slot.collectives) {
      if (sc.ms.empty()) continue;
      const WaveCollective& c = collectives_[static_cast<size_t>(sc.collective)];
      out.insert(out.end(), {static_cast<double>(WireKind::kCollective), static_cast<double>(slot.rank),
                             static_cast<double>(c.index), static_cast<double>(c.spec.members.size()),
                             c.inter_host ? 1.0 : 0.0, c.spec.bytes_sent(sc.member)});
      put_timing(out, summarize(sc.ms));
    }
    for (int i = 0; i < kNumReplayPhases; ++i) {
      const std::vector<double>& ms = slot.phases.samples(i);
      if (ms.empty()) continue;
      out.insert(out.end(), {static_cast<double>(WireKind::kPhase), static_cast<double>(slot.rank),
                             static_cast<double>(i)});
      put_timing(out, summarize(ms));
    }
  }
  return out;
}

// Rebuilds records from wire numbers (any process's), in the result's order.
Status read_records(const ReplayWorkload& w, const std::vector<double>& wire, ReplayResult& result) {
  std::vector<std::tuple<int, int, int, Measurement>> lookups;      // (rank, backward, shard)
  std::vector<std::tuple<int, int, Measurement>> collectives;       // (collective, rank)
  std::vector<std::tuple<int, int, PhaseTiming>> phases;            // (rank, phase index)
  size_t i = 0;
  auto need = [&](size_t n) { return i + n <= wire.size(); };
  while (i < wire.size()) {
    const auto kind = static_cast<WireKind>(static_cast<int>(wire[i]));
    if (kind == WireKind::kLookup && need(10)) {
      const int rank = static_cast<int>(wire[i + 1]);
      const int shard = static_cast<int>(wire[i + 2]);
      const bool forward = wire[i + 3] != 0.0;
      Measurement m = lookup_measurement(w.ranks[static_cast<size_t>(rank)].shards[static_cast<size_t>(shard)], rank, forward);
      m.bytes = wire[i + 4];
      m.wrong_elements = static_cast<int64_t>(wire[i + 5]);
      m.timing = take_timing(&wire[i + 6]);
      lookups.emplace_back(rank, forward ? 0 : 1, shard, std::move(m));
      i += 10;
    } else if (kind == WireKind::kCollective && need(10)) {
      const int rank = static_cast<int>(wire[i + 1]);
      const int index = static_cast<int>(wire[i + 2]);
      Measurement m = collective_record(w, index, rank);
      m.members = static_cast<int>(wire[i + 3]);
      m.inter_host = wire[i + 4] != 0.0;
      m.bytes = wire[i + 5];
      m.model_bytes = m.bytes;
      m.timing = take_timing(&wire[i + 6]);
      collectives.emplace_back(index, rank, std::move(m));
      i += 10;
    } else if (kind == WireKind::kPhase && need(7)) {
      const int rank = static_cast<int>(wire[i + 1]);
      const int phase = static_cast<int>(wire[i + 2]);
      phases.emplace_back(rank, phase, PhaseTiming{rank, kReplayPhases[phase], take_timing(&wire[i + 3])});
      i += 7;
    } else {
      return Status::internal("malformed replay records at " + std::to_string(i));
    }
  }
  auto by_key = [](const auto& a, const auto& b) {
    return std::make_tuple(std::get<0>(a), std::get<1>(a)) < std::make_tuple(std::get<0>(b), std::get<1>(b));
  };
  std::stable_sort(lookups.begin(), lookups.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
           std::make_tuple(std::get<0>(b), std::get<1>(b), std::get<2>(b));
  });
  std::stable_sort(collectives.begin(), collectives.end(), by_key);
  std::stable_sort(phases.begin(), phases.end(), by_key);
  for (auto& l : lookups) result.measurements.push_back(std::move(std::get<3>(l)));
  for (auto& c : collectives) result.measurements.push_back(std::move(std::get<2>(c)));
  for (auto& p : phases) result.phase_timings.push_back(std::get<2>(p));
  return Status::ok();
}

#if defined(SHARDLAB_HAVE_MPI)
// The world communicator of an mpirun launch: id from process 0 over MPI.
Status ensure_world(CudaContext& ctx) {
  if (ctx.world) return Status::ok();
  ncclUniqueId id{};
  if (ctx.launch.rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  SHARDLAB_RETURN_IF_ERROR(mpi_broadcast(&id, sizeof id, 0));
  auto world = NcclGroup::create_from_id(id, ctx.launch.rank, ctx.launch.size, ctx.devices.front());
  if (!world) return world.status().with_context("NCCL bootstrap over MPI");
  ctx.world = std::move(*world);
  auto host = mpi_host_id();
  if (!host) return host.status();
  auto hosts = mpi_allgather({static_cast<double>(*host % (uint64_t{1} << 52))});
  if (!hosts) return hosts.status();
  ctx.host_ids.assign(hosts->begin(), hosts->end());
  return Status::ok();
}
#endif

}  // namespace

Result<ReplayResult> cuda_replay(CudaContext& ctx, const ReplayWorkload& workload, const ReplayOptions& options,
                                 const ProgressFn& progress) {
  if (Status st = check_options(workload, options); !st) return st;
  const std::vector<int> ranks = replayed_ranks(workload, options);
  if (ranks.empty()) return Status::invalid_scenario("no ranks to replay");

  std::vector<std::vector<int>> waves;
  if (ctx.launch.size > 1) {
    if (static_cast<int>(ranks.size()) != ctx.launch.size) {
      return Status::invalid_scenario("mpirun started " + std::to_string(ctx.launch.size) +
                                      " processes; the replay runs one per replayed rank (" +
                                      std::to_string(ranks.size()) + "): use mpirun -np " +
                                      std::to_string(ranks.size()) + " or --ranks");
    }
#if defined(SHARDLAB_HAVE_MPI)
    SHARDLAB_RETURN_IF_ERROR(ensure_world(ctx));
#endif
    waves.push_back(ranks);
  } else {
    const size_t per_wave = ctx.devices.size();
    for (size_t first = 0; first < ranks.size(); first += per_wave) {
      waves.emplace_back(ranks.begin() + static_cast<std::ptrdiff_t>(first),
                         ranks.begin() + static_cast<std::ptrdiff_t>(std::min(ranks.size(), first + per_wave)));
    }
  }

  std::vector<double> wire;
  int done = 0;
  const int total = static_cast<int>(waves.size()) * (options.warmup + options.iterations);
  for (const std::vector<int>& members : waves) {
    // Each wave's tables and communicators are freed before the next one's.
    Wave wave(ctx, workload, options, members);
    SHARDLAB_RETURN_IF_ERROR(wave.set_up());
    SHARDLAB_RETURN_IF_ERROR(wave.run(progress, done, total));
    if (options.verify) SHARDLAB_RETURN_IF_ERROR(wave.verify());
    const std::vector<double> records = wave.wire_records();
    wire.insert(wire.end(), records.begin(), records.end());
  }
#if defined(SHARDLAB_HAVE_MPI)
  if (ctx.launch.size > 1) {
    auto all = mpi_allgather(wire);
    if (!all) return all.status().with_context("gathering the records of every process");
    wire = std::move(*all);
  }
#endif

  ReplayResult result;
  result.backend = "cuda";
  result.device_name = ctx.device_name;
  result.world_size = workload.world_size;
  result.devices_used = ctx.launch.size > 1 ? ctx.launch.size
                                            : static_cast<int>(std::min(ranks.size(), ctx.devices.size()));
  result.warmup = options.warmup;
  result.iterations = options.iterations;
  SHARDLAB_RETURN_IF_ERROR(read_records(workload, wire, result));
  return result;
}

}  // namespace shardlab::kernels::cuda
