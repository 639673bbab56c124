#include "phase_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "shardlab/planner/memory_budget.h"
#include "shardlab/search/objective.h"

namespace shardlab::search::detail {

using sim::CollectiveKind;
using sim::Phase;

struct PhaseModel::Slot {
  int group = 0;  // sharding type of the options that issue it
  Phase phase = Phase::kInputDist;
  CollectiveKind kind = CollectiveKind::kAllToAll;
  std::vector<int> members;  // global ranks
  bool identity = false;     // members are 0..world-1 in order
  int count = 0;             // placement units taking part; absent when 0
  // Accumulated traffic.
  std::vector<double> from, to, chunk, duration;
  double chunk_total = 0.0;
  double bytes = 0.0;
  // All-to-all, per step k (row k of n): 1 / bw and latency of the message
  // member i sends (send_*[k n + i], to i+k) and member j receives
  // (recv_*[k n + j], from j-k); their largest per step.
  std::vector<double> send_inv, send_lat, recv_inv, recv_lat, step_inv_max, step_lat_max;
  // Members by from (to) bytes, largest first, and each member's position.
  std::vector<int> from_order, from_pos, to_order, to_pos;
  std::vector<double> credit;  // per member: step maxima it set (scratch)
  // Rings: the link from member i to i+1 (1 / bw, latency). All-reduce: time
  // per byte and fixed latency.
  std::vector<double> ring_inv, ring_lat;
  double per_byte = 0.0;
  double fixed = 0.0;
  bool dirty = true;
  double time = 0.0;
  int busiest = -1;     // member bounding the time (all-to-all), else -1
  int saved_depth = 0;  // deepest checkpoint holding this slot's timing
  int id = 0;           // index in slots_
  // The time last added to its members' phase sums (phase_rank_), and
  // whether it is listed for raw_terms() to bring them up to date.
  double applied = 0.0;
  bool listed = false;
  // Σ and Σ² over members of from + to: how unevenly the bytes spread, and
  // the share of balance() last added for this slot.
  double sum1 = 0.0;
  double sum2 = 0.0;
  double balance_applied = 0.0;
  // All-to-all with one side only (floor_side): bytes a member's message on
  // that side may have without changing any step's slowest; -1 unknown.
  double floor = -1.0;
  int floor_side = 0;
};

struct PhaseModel::Saved {
  int slot;
  int depth;
  int previous_depth;
  bool dirty;
  double time;
  int busiest;
  double floor;
};

// Called before a slot changes: keeps its timing for the innermost open
// checkpoint, once per checkpoint.
void PhaseModel::save(Slot& s) {
  if (depth_ == 0 || s.saved_depth >= depth_) return;
  saved_.push_back(Saved{s.id, depth_, s.saved_depth, s.dirty, s.time, s.busiest, s.floor});
  s.saved_depth = depth_;
}

void PhaseModel::list(Slot& s) {
  if (s.listed) return;
  s.listed = true;
  touched_.push_back(s.id);
}

void PhaseModel::release() {
  // Entries of this checkpoint become the enclosing one's where it has none
  // for their slot (they hold the timing from before both).
  size_t keep = saved_.size();
  while (keep > 0 && saved_[keep - 1].depth == depth_) --keep;
  size_t out = keep;
  for (size_t i = keep; i < saved_.size(); ++i) {
    Saved v = saved_[i];
    Slot& s = *slots_[v.slot];
    if (depth_ > 1 && v.previous_depth < depth_ - 1) {
      v.depth = depth_ - 1;
      s.saved_depth = depth_ - 1;
      saved_[out++] = v;
    } else {
      s.saved_depth = v.previous_depth;
    }
  }
  saved_.resize(out);
  --depth_;
}

void PhaseModel::restore() {
  while (!saved_.empty() && saved_.back().depth == depth_) {
    const Saved& v = saved_.back();
    Slot& s = *slots_[v.slot];
    s.dirty = v.dirty;
    s.time = v.time;
    s.busiest = v.busiest;
    s.floor = v.floor;
    s.saved_depth = v.previous_depth;
    list(s);
    saved_.pop_back();
  }
  --depth_;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

int term_of(Phase p) {
  switch (p) {
    case Phase::kInputDist:
      return 2;
    case Phase::kOutputDist:
      return 3;
    case Phase::kBwdOutputDist:
      return 4;
    case Phase::kDpAllreduce:
      return 5;
    default:
      return -1;
  }
}

}  // namespace

PhaseModel::PhaseModel(const Problem& problem, const sim::SimOptions& options,
                       sim::TrafficBuilder builder)
    : problem_(problem), options_(options), builder_(std::move(builder)) {
  training_ = !problem.scenario().planner.is_inference;
  world_ = problem.world_size();
  for (std::vector<double>& c : compute_) c.assign(world_, 0.0);
  for (std::vector<double>& p : phase_rank_) p.assign(world_, 0.0);
  dense_.assign(world_, 0.0);
  probes_.resize(problem.space().options.size());
  for (int t = 0; t < kNumTerms; ++t) {
    factor_[t] = 1.0;
    fitted_[t] = false;
    terms_[t] = 0.0;
    argmax_[t] = -1;
  }
}

PhaseModel::~PhaseModel() = default;

Result<std::unique_ptr<PhaseModel>> PhaseModel::create(const Problem& problem,
                                                       const sim::SimOptions& options) {
  Result<sim::TrafficBuilder> builder =
      sim::TrafficBuilder::create(problem.scenario(), options.calibration);
  if (!builder.is_ok()) return builder.status();
  return std::unique_ptr<PhaseModel>(new PhaseModel(problem, options, std::move(builder).value()));
}

Result<sim::IterationTraffic> PhaseModel::traffic_of(int option, const std::vector<int>& ranks) {
  planner::PartitionedPlan plan;
  plan.proposal = {option};
  plan.first_shard = {0, static_cast<int>(ranks.size())};
  plan.ranks = ranks;
  return builder_.build(problem_.space(), plan);
}

int PhaseModel::slot_of(const sim::CollectiveSpec& c, int group, int ordinal) {
  // The ordinal-th slot equal in phase, kind, members and sharding type: the
  // simulator issues a type's equal collectives one after the other, so a
  // probe's n-th equal collective is the plan's n-th. A linear scan: slots
  // number a few per sharding type, and probing happens once per option.
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = *slots_[i];
    if (s.group == group && s.phase == c.phase && s.kind == c.kind && s.members == c.members) {
      if (ordinal == 0) return static_cast<int>(i);
      --ordinal;
    }
  }
  const int64_t n_members = static_cast<int64_t>(c.members.size());
  if (c.kind == CollectiveKind::kAllToAll && memory_error_.is_ok()) {
    // Four members x members tables of doubles (below): 8 GiB for one
    // all-to-all over 16,384 ranks. Checked before they are made.
    const int64_t need = 4 * n_members * n_members * static_cast<int64_t>(sizeof(double));
    memory_error_ = planner::check_memory(
        "the search's model of an all-to-all over " + std::to_string(n_members) + " ranks", need,
        "optimize with --objective torchrec, or fewer ranks");
  }
  if (!memory_error_.is_ok()) return -1;
  auto s = std::make_unique<Slot>();
  s->id = static_cast<int>(slots_.size());
  s->group = group;
  s->phase = c.phase;
  s->kind = c.kind;
  s->members = c.members;
  const int n = static_cast<int>(c.members.size());
  s->identity = n == world_;
  for (int i = 0; i < n && s->identity; ++i) s->identity = c.members[i] == i;
  s->from.assign(n, 0.0);
  s->to.assign(n, 0.0);
  s->chunk.assign(n, 0.0);
  s->duration.assign(n, 0.0);
  // Read from the graph's route halves, pair by pair: no ranks x ranks
  // table (16,384 ranks would make it 4 GiB). 1 / bottleneck is 0 on the
  // diagonal (an empty route's bottleneck is infinite), as is its latency.
  const sim::TopologyGraph& g = builder_.graph();
  auto inv = [&](int a, int b) { return 1.0 / g.route_bottleneck(c.members[a], c.members[b]); };
  auto lat = [&](int a, int b) { return g.route_latency(c.members[a], c.members[b]); };
  if (c.kind == CollectiveKind::kAllToAll) {
    const size_t nn = static_cast<size_t>(n) * n;
    s->send_inv.assign(nn, 0.0);
    s->send_lat.assign(nn, 0.0);
    s->recv_inv.assign(nn, 0.0);
    s->recv_lat.assign(nn, 0.0);
    s->step_inv_max.assign(n, 0.0);
    s->step_lat_max.assign(n, 0.0);
    for (int k = 1; k < n; ++k) {
      for (int i = 0; i < n; ++i) {
        const int j = (i + k) % n;
        const size_t row = static_cast<size_t>(k) * n;
        s->send_inv[row + i] = s->recv_inv[row + j] = inv(i, j);
        s->send_lat[row + i] = s->recv_lat[row + j] = lat(i, j);
        s->step_inv_max[k] = std::max(s->step_inv_max[k], inv(i, j));
        s->step_lat_max[k] = std::max(s->step_lat_max[k], lat(i, j));
      }
    }
    for (std::vector<int>* v : {&s->from_order, &s->from_pos, &s->to_order, &s->to_pos}) {
      v->resize(n);
      for (int i = 0; i < n; ++i) (*v)[i] = i;
    }
    s->credit.assign(n, 0.0);
  } else if (n > 1) {
    s->ring_inv.assign(n, 0.0);
    s->ring_lat.assign(n, 0.0);
    for (int i = 0; i < n; ++i) {
      s->ring_inv[i] = inv(i, (i + 1) % n);
      s->ring_lat[i] = lat(i, (i + 1) % n);
    }
    if (c.kind == CollectiveKind::kAllReduce) {
      // Members grouped by NVLink domain (the simulator's hosts of a
      // hierarchical all-reduce): reduce-scatter and all-gather inside each
      // domain, all-reduce of each 1/L share across them, one after the other
      // (the simulator pipelines large ones: this screening estimate is the
      // upper bound of its time).
      const sim::TopologyGraph& g = builder_.graph();
      std::map<int, std::vector<int>> by_host;
      for (int i = 0; i < n; ++i) by_host[g.domain_of(c.members[i])].push_back(i);
      const double hosts = static_cast<double>(by_host.size());
      double local = 1.0, intra_inv = 0.0, intra_lat = 0.0, inter_inv = 0.0, inter_lat = 0.0;
      for (const auto& [h, idx] : by_host) {
        local = std::max(local, static_cast<double>(idx.size()));
        for (size_t k = 0; k < idx.size() && idx.size() > 1; ++k) {
          intra_inv = std::max(intra_inv, inv(idx[k], idx[(k + 1) % idx.size()]));
          intra_lat = std::max(intra_lat, lat(idx[k], idx[(k + 1) % idx.size()]));
        }
      }
      if (by_host.size() > 1) {
        std::vector<int> firsts;
        for (const auto& [h, idx] : by_host) firsts.push_back(idx.front());
        for (size_t k = 0; k < firsts.size(); ++k) {
          inter_inv = std::max(inter_inv, inv(firsts[k], firsts[(k + 1) % firsts.size()]));
          inter_lat = std::max(inter_lat, lat(firsts[k], firsts[(k + 1) % firsts.size()]));
        }
      }
      s->per_byte =
          2.0 * (local - 1.0) / local * intra_inv + 2.0 * (hosts - 1.0) / hosts / local * inter_inv;
      s->fixed = 2.0 * (local - 1.0) * intra_lat + 2.0 * (hosts - 1.0) * inter_lat;
    }
  }
  slots_.push_back(std::move(s));
  return static_cast<int>(slots_.size()) - 1;
}

void PhaseModel::to_entries(const sim::IterationTraffic& traffic, int group,
                            std::vector<Entry>* entries, std::vector<int>* touches) {
  for (int r = 0; r < static_cast<int>(traffic.ranks.size()); ++r) {
    const sim::RankWork& w = traffic.ranks[r];
    const double values[3] = {w.prefetch_ms, w.fwd_ms, w.bwd_ms};
    for (int ch = 0; ch < 3; ++ch) {
      if (values[ch] != 0.0) entries->push_back(Entry{-ch - 1, 0, r, values[ch]});
    }
    if (!dense_known_) dense_[r] = w.dense_fwd_ms + (training_ ? w.dense_bwd_ms : 0.0);
  }
  dense_known_ = true;
  for (size_t i = 0; i < traffic.collectives.size(); ++i) {
    const sim::CollectiveSpec& c = traffic.collectives[i];
    int ordinal = 0;
    for (size_t k = 0; k < i; ++k) {
      const sim::CollectiveSpec& e = traffic.collectives[k];
      if (e.phase == c.phase && e.kind == c.kind && e.members == c.members) ++ordinal;
    }
    const int slot = slot_of(c, group, ordinal);
    if (slot < 0) return;  // failure() says why; the search stops
    touches->push_back(slot);
    const int n = static_cast<int>(c.members.size());
    auto add = [&](const std::vector<double>& v, Field f) {
      for (int m = 0; m < static_cast<int>(v.size()) && m < n; ++m) {
        if (v[m] != 0.0) entries->push_back(Entry{slot, f, m, v[m]});
      }
    };
    add(c.from_bytes, kFrom);
    add(c.to_bytes, kTo);
    add(c.chunks, kChunk);
    add(c.durations_ms, kDuration);
    if (c.bytes != 0.0) entries->push_back(Entry{slot, kBytes, 0, c.bytes});
  }
}

Status PhaseModel::probe(int option) {
  OptionProbe& p = probes_[option];
  if (p.done) return Status::ok();
  const planner::ShardingOption& o = problem_.option(option);
  const int n = o.num_shards();
  const int lw = problem_.group_size();
  const int group = static_cast<int>(o.sharding_type);
  p.done = true;
  if (problem_.separable(option)) {
    // Shard s on rank s (table-column-wise: inside host 0), so that each
    // shard's part sits on a rank of its own where the ranks suffice.
    const int span = o.sharding_type == planner::ShardingType::kTableColumnWise ? lw : world_;
    std::vector<int> ranks(n);
    for (int s = 0; s < n; ++s) ranks[s] = s % span;
    Result<sim::IterationTraffic> t = traffic_of(option, ranks);
    if (!t.is_ok()) return t.status();
    std::vector<Entry> entries;
    p.shards.assign(n, Contribution{});
    to_entries(*t, group, &entries, &p.shards[0].touches);
    for (int s = 1; s < n; ++s) p.shards[s].touches = p.shards[0].touches;
    std::vector<int> on_rank(world_, 0);
    for (int s = 0; s < n; ++s) ++on_rank[ranks[s]];
    for (const Entry& e : entries) {
      // A rank's value split evenly among the shards there (the shards of an
      // option are equal); values on other members, or in collectives that
      // are not over every rank, belong to the option and go with shard 0.
      const bool on_rank_entry =
          e.slot < 0 || (slots_[e.slot]->identity && e.field != kBytes && e.field != kChunk);
      if (on_rank_entry && on_rank[e.member] > 0) {
        const double share = e.value / on_rank[e.member];
        for (int s = 0; s < n; ++s) {
          if (ranks[s] == e.member)
            p.shards[s].relative.push_back(Entry{e.slot, e.field, 0, share});
        }
      } else {
        p.shards[0].fixed.push_back(e);
      }
    }
    return Status::ok();
  }
  if (o.partition_by == planner::PartitionBy::kHost) {
    p.hosts.assign(problem_.num_groups(), Contribution{});
    p.host_done.assign(problem_.num_groups(), 0);
    return Status::ok();  // hosts are probed when first used
  }
  std::vector<int> ranks(n);
  for (int s = 0; s < n; ++s) ranks[s] = s;
  if (o.partition_by == planner::PartitionBy::kMultiHost) {
    // Grid: probed once, column block b on group b mod groups; the estimate
    // does not follow where the blocks go (the exact evaluations do).
    const int size = problem_.group_size();
    const int groups = std::max(1, problem_.num_groups());
    for (int s = 0; s < n; ++s) ranks[s] = s / size % groups * size + s % size;
  }
  Result<sim::IterationTraffic> t = traffic_of(option, ranks);
  if (!t.is_ok()) return t.status();
  to_entries(*t, group, &p.whole.fixed, &p.whole.touches);
  return Status::ok();
}

void PhaseModel::probe_host(int option, int host) {
  OptionProbe& p = probes_[option];
  if (p.host_done[host]) return;
  p.host_done[host] = 1;
  const planner::ShardingOption& o = problem_.option(option);
  std::vector<int> ranks(o.num_shards());
  for (int s = 0; s < o.num_shards(); ++s) ranks[s] = host * problem_.group_size() + s;
  Result<sim::IterationTraffic> t = traffic_of(option, ranks);
  if (!t.is_ok()) {
    if (error_.is_ok()) error_ = t.status();
    return;
  }
  to_entries(*t, static_cast<int>(o.sharding_type), &p.hosts[host].fixed, &p.hosts[host].touches);
}

void PhaseModel::apply_entry(const Entry& e, int member, double sign) {
  const double v = sign * e.value;
  if (e.slot < 0) {
    compute_[-e.slot - 1][member] += v;
    return;
  }
  Slot& s = *slots_[e.slot];
  save(s);
  list(s);
  switch (e.field) {
    case kFrom:
    case kTo: {
      std::vector<double>& side = e.field == kFrom ? s.from : s.to;
      const double before = s.from[member] + s.to[member];
      const double side_before = side[member];
      side[member] += v;
      const double after = s.from[member] + s.to[member];
      s.sum1 += v;
      s.sum2 += after * after - before * before;
      // An all-to-all's time changes only when some step's slowest message
      // may: not when the member's bytes stay below what any step's slowest
      // already needs (floor).
      const bool below = s.kind == CollectiveKind::kAllToAll && !s.dirty && s.floor >= 0.0 &&
                         e.field == s.floor_side && side_before < s.floor && side[member] < s.floor;
      if (!below) s.dirty = true;
      if (s.kind == CollectiveKind::kAllToAll) {
        if (e.field == kFrom) {
          resort(s.from, &s.from_order, &s.from_pos, member);
        } else {
          resort(s.to, &s.to_order, &s.to_pos, member);
        }
      }
      break;
    }
    case kChunk:
      s.dirty = true;
      s.chunk[member] += v;
      s.chunk_total += v;
      break;
    case kBytes:
      s.dirty = true;
      s.bytes += v;
      break;
    case kDuration:
      s.dirty = true;
      s.duration[member] += v;
      break;
  }
}

void PhaseModel::apply(const Contribution& c, int rank, double sign) {
  for (const Entry& e : c.fixed) apply_entry(e, e.member, sign);
  for (const Entry& e : c.relative) apply_entry(e, rank, sign);
  for (const int slot : c.touches) {
    Slot& s = *slots_[slot];
    save(s);
    s.count += sign > 0 ? 1 : -1;
    // Only a collective's coming or going changes its time by itself.
    if (s.count == 0 || (s.count == 1 && sign > 0)) s.dirty = true;
    list(s);
  }
}

void PhaseModel::add(int option, const int* ranks, double sign) {
  if (!probes_[option].done) {
    if (Status st = probe(option); !st.is_ok() && error_.is_ok()) error_ = st;
  }
  OptionProbe& p = probes_[option];
  if (problem_.separable(option)) {
    for (int s = 0; s < static_cast<int>(p.shards.size()); ++s) apply(p.shards[s], ranks[s], sign);
    return;
  }
  if (!p.hosts.empty()) {
    const int host = ranks[0] / problem_.group_size();
    probe_host(option, host);
    apply(p.hosts[host], 0, sign);
    return;
  }
  apply(p.whole, 0, sign);
}

void PhaseModel::add_shard(int option, int shard, int rank, double sign) {
  if (!probes_[option].done) {
    if (Status st = probe(option); !st.is_ok() && error_.is_ok()) error_ = st;
  }
  apply(probes_[option].shards[shard], rank, sign);
}

void PhaseModel::clear() {
  saved_.clear();
  depth_ = 0;
  for (std::vector<double>& c : compute_) std::fill(c.begin(), c.end(), 0.0);
  for (std::unique_ptr<Slot>& s : slots_) {
    std::fill(s->from.begin(), s->from.end(), 0.0);
    std::fill(s->to.begin(), s->to.end(), 0.0);
    std::fill(s->chunk.begin(), s->chunk.end(), 0.0);
    std::fill(s->duration.begin(), s->duration.end(), 0.0);
    s->chunk_total = 0.0;
    s->bytes = 0.0;
    s->sum1 = 0.0;
    s->sum2 = 0.0;
    s->balance_applied = 0.0;
    s->floor = -1.0;
    s->count = 0;
    s->dirty = true;
    s->saved_depth = 0;
    s->applied = 0.0;
    s->listed = false;
  }
  touched_.clear();
  for (std::vector<double>& p : phase_rank_) std::fill(p.begin(), p.end(), 0.0);
  for (double& b : balance_sum_) b = 0.0;
}

// Moves member m to its place in `order` (largest value first) after its
// value changed; `pos` is the inverse of `order`.
void PhaseModel::resort(const std::vector<double>& value, std::vector<int>* order,
                        std::vector<int>* pos, int m) {
  int p = (*pos)[m];
  const int n = static_cast<int>(order->size());
  while (p > 0 && value[(*order)[p - 1]] < value[m]) {
    (*order)[p] = (*order)[p - 1];
    (*pos)[(*order)[p]] = p;
    --p;
  }
  while (p + 1 < n && value[(*order)[p + 1]] > value[m]) {
    (*order)[p] = (*order)[p + 1];
    (*pos)[(*order)[p]] = p;
    ++p;
  }
  (*order)[p] = m;
  (*pos)[m] = p;
}

// The pairwise exchange (docs/simulation.md) in lock step: step k lasts as
// long as its slowest message, member i sending from_i + to_{i+k} bytes to
// i+k at the route's bottleneck bandwidth plus its latency (empty messages
// take no time). This bounds the exchange from above (a member may start
// its next step before the slowest message of the step ends) and is within
// a few percent of it on the scenarios of docs/optimize.md. When only one of
// from and to is non-zero (every collective of the simulator's traffic),
// a step's slowest message is found among the members with the most bytes
// first, usually after one or two.
double PhaseModel::lock_step(Slot& s) {
  const int n = static_cast<int>(s.members.size());
  constexpr double kEmpty = 0.5;  // bytes below this are rounding residue
  const bool has_from = s.from[s.from_order[0]] > kEmpty;
  const bool has_to = s.to[s.to_order[0]] > kEmpty;
  std::fill(s.credit.begin(), s.credit.end(), 0.0);
  double total = 0.0;
  const bool one_sided = has_from != has_to;
  s.floor = one_sided ? std::numeric_limits<double>::infinity() : -1.0;
  s.floor_side = has_from ? kFrom : kTo;
  for (int k = 1; k < n; ++k) {
    const size_t row = static_cast<size_t>(k) * n;
    double best = 0.0;
    int arg = -1;
    if (one_sided) {
      const std::vector<double>& b = has_from ? s.from : s.to;
      const std::vector<int>& order = has_from ? s.from_order : s.to_order;
      const double* inv = (has_from ? s.send_inv : s.recv_inv).data() + row;
      const double* lat = (has_from ? s.send_lat : s.recv_lat).data() + row;
      for (int p = 0; p < n; ++p) {
        const int m = order[p];
        if (b[m] <= kEmpty || b[m] * s.step_inv_max[k] + s.step_lat_max[k] <= best) break;
        const double t = b[m] * inv[m] + lat[m];
        if (t > best) {
          best = t;
          arg = m;
        }
      }
    } else if (has_from) {
      for (int i = 0, j = k; i < n; ++i, j = j + 1 == n ? 0 : j + 1) {
        const double bytes = s.from[i] + s.to[j];
        if (bytes <= kEmpty) continue;
        const double t = bytes * s.send_inv[row + i] + s.send_lat[row + i];
        if (t > best) {
          best = t;
          arg = s.from[i] >= s.to[j] ? i : j;
        }
      }
    }
    total += best;
    if (arg >= 0) s.credit[arg] += best;
    if (one_sided && s.step_inv_max[k] > 0.0) {
      s.floor = std::min(s.floor, (best - s.step_lat_max[k]) / s.step_inv_max[k]);
    }
  }
  // A margin for the rounding of the division; no member is safely below
  // a floor of less than one byte.
  s.floor *= 1.0 - 1e-9;
  if (!(s.floor >= kEmpty)) s.floor = -1.0;
  s.busiest =
      static_cast<int>(std::max_element(s.credit.begin(), s.credit.end()) - s.credit.begin());
  if (!(s.credit[s.busiest] > 0.0)) s.busiest = -1;
  return total;
}

double PhaseModel::slot_time(Slot& s) {
  if (!s.dirty) return s.time;
  s.dirty = false;
  s.busiest = -1;
  s.floor = -1.0;
  s.time = 0.0;
  const int n = static_cast<int>(s.members.size());
  if (s.count <= 0 || n <= 1) return s.time;
  switch (s.kind) {
    case CollectiveKind::kAllToAll:
      s.time = lock_step(s);
      break;
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllGather: {
      const bool gather = s.kind == CollectiveKind::kAllGather;
      for (int i = 0; i < n; ++i) {
        const double forwarded = s.chunk_total - s.chunk[gather ? (i + 1) % n : i];
        s.time = std::max(s.time, forwarded * s.ring_inv[i] + (n - 1) * s.ring_lat[i]);
      }
      break;
    }
    case CollectiveKind::kAllReduce:
      s.time = s.bytes > 0.0 ? s.bytes * s.per_byte + s.fixed : 0.0;
      break;
    case CollectiveKind::kEstimate:
      for (int i = 0; i < n; ++i) {
        if (s.duration[i] > s.time) {
          s.time = s.duration[i];
          s.busiest = i;
        }
      }
      break;
  }
  return s.time;
}

void PhaseModel::raw_terms(double* t) {
  for (int k = 0; k < kNumTerms; ++k) t[k] = 0.0;
  double fwd = 0.0, bwd = 0.0;
  double fwd1 = 0.0, fwd2 = 0.0, bwd1 = 0.0, bwd2 = 0.0;
  argmax_[kFwdCompute] = argmax_[kBwdCompute] = -1;
  for (int r = 0; r < world_; ++r) {
    const double f = compute_[0][r] + compute_[1][r];
    fwd1 += f;
    fwd2 += f * f;
    bwd1 += compute_[2][r];
    bwd2 += compute_[2][r] * compute_[2][r];
    if (f > fwd) {
      fwd = f;
      argmax_[kFwdCompute] = r;
    }
    if (compute_[2][r] > bwd) {
      bwd = compute_[2][r];
      argmax_[kBwdCompute] = r;
    }
  }
  t[kFwdCompute] = fwd;
  t[kBwdCompute] = training_ ? bwd : 0.0;
  unevenness_[kFwdCompute] = spread(fwd1, fwd2, world_);
  unevenness_[kBwdCompute] = spread(bwd1, bwd2, world_);
  // A rank runs the collectives of a phase it takes part in one after the
  // other; collectives over disjoint ranks (one per host, one per local
  // index) run side by side. A phase lasts as long as its busiest rank's.
  // Each rank's time per phase is kept as a running sum, updated for the
  // slots whose time changed.
  for (const int id : touched_) {
    Slot& s = *slots_[id];
    s.listed = false;
    const double time = slot_time(s);
    const int k = term_of(s.phase);
    if (k < 0) continue;
    if (s.kind == CollectiveKind::kAllToAll) {
      const double b =
          s.count > 0 ? time * spread(s.sum1, s.sum2, static_cast<int>(s.members.size())) : 0.0;
      balance_sum_[k] += b - s.balance_applied;
      s.balance_applied = b;
    }
    if (time == s.applied) continue;
    const double delta = time - s.applied;
    s.applied = time;
    double* per_rank = phase_rank_[k].data();
    for (const int m : s.members) per_rank[m] += delta;
  }
  touched_.clear();
  for (int k = kInputDist; k < kNumTerms; ++k) {
    const std::vector<double>& per_rank = phase_rank_[k];
    const auto top = std::max_element(per_rank.begin(), per_rank.end());
    t[k] = *top > 0.0 ? *top : 0.0;
    argmax_[k] = t[k] > 0.0 ? static_cast<int>(top - per_rank.begin()) : -1;
  }
}

double PhaseModel::chain(const double* terms) const {
  double dense = 0.0;
  for (const double d : dense_) dense = std::max(dense, d);
  double t[kNumTerms];
  for (int k = 0; k < kNumTerms; ++k) t[k] = terms[k] * factor_[k];
  if (!options_.overlap) {
    double sum = dense;
    for (const double v : t) sum += v;
    return sum;
  }
  const double first = input_on_path_ ? std::max(t[kFwdCompute], t[kInputDist]) : t[kFwdCompute];
  return first + t[kOutputDist] + dense + t[kBwdOutputDist] + t[kBwdCompute] + t[kDpAllreduce];
}

double PhaseModel::value() {
  if (!error_.is_ok()) return kInf;
  raw_terms(terms_);
  return chain(terms_) + kBalanceWeight * balance();
}

// How unevenly the loads x_1..x_n spread: n Σx² / (Σx)² - 1 from Σx and Σx²,
// 0 when all are equal (or all 0).
double PhaseModel::spread(double sum1, double sum2, int n) {
  if (!(sum1 > 0.0)) return 0.0;
  return std::max(0.0, n * sum2 / (sum1 * sum1) - 1.0);
}

// Each term of the chain, weighted by how unevenly its load spreads over
// the ranks (compute) or members (all-to-alls). A move that evens out ranks
// below the busiest does not change the chain's maxima; this term still
// rewards it, so the search can walk across such plateaus towards moves
// that do.
double PhaseModel::balance() {
  double b = factor_[kFwdCompute] * terms_[kFwdCompute] * unevenness_[kFwdCompute] +
             factor_[kBwdCompute] * terms_[kBwdCompute] * unevenness_[kBwdCompute];
  for (int k = kInputDist; k < kNumTerms; ++k) {
    if (k != kInputDist || input_on_path_) b += factor_[k] * balance_sum_[k];
  }
  return b;
}

int PhaseModel::busiest_rank(Rng& rng) {
  (void)value();
  // For communication terms: the busiest member of the term's longest
  // all-to-all, when it has one (all members of a collective spend its
  // time in it; its busiest member sets the time).
  const Slot* longest[kNumTerms] = {};
  for (const std::unique_ptr<Slot>& s : slots_) {
    const int k = term_of(s->phase);
    if (k < 0 || s->busiest < 0 || s->count <= 0) continue;
    if (longest[k] == nullptr || s->time > longest[k]->time) longest[k] = s.get();
  }
  int rank_of[kNumTerms];
  for (int k = 0; k < kNumTerms; ++k) {
    rank_of[k] = longest[k] != nullptr ? longest[k]->members[longest[k]->busiest] : argmax_[k];
  }
  double weights[kNumTerms];
  double total = 0.0;
  for (int k = 0; k < kNumTerms; ++k) {
    weights[k] = argmax_[k] >= 0 ? terms_[k] * factor_[k] : 0.0;
    total += weights[k];
  }
  if (!(total > 0.0)) return rng.below(world_);
  double pick = rng.uniform() * total;
  for (int k = 0; k < kNumTerms; ++k) {
    if (weights[k] <= 0.0) continue;
    if (pick < weights[k]) return rank_of[k];
    pick -= weights[k];
  }
  for (int k = kNumTerms - 1; k >= 0; --k) {
    if (weights[k] > 0.0) return rank_of[k];
  }
  return rng.below(world_);
}

void PhaseModel::observe(const Evaluation& exact) {
  if (exact.simulation == nullptr || !error_.is_ok()) return;
  const sim::SimResult& r = *exact.simulation;
  const int last = r.iterations - 1;
  // Whether the input dist bounds the measured iteration: the simulator
  // measures the last iteration, whose own input dist ran during the one
  // before and which issues none for a next one.
  input_on_path_ = false;
  for (const sim::CriticalStep& step : r.critical_path) {
    input_on_path_ = input_on_path_ || step.phase == Phase::kInputDist;
  }
  // Per communication phase of the last iteration: from the last rank to
  // start it to the last rank to finish it (a collective's transfer time).
  double start[kNumTerms], end[kNumTerms];
  bool seen[kNumTerms] = {};
  for (int k = 0; k < kNumTerms; ++k) start[k] = end[k] = 0.0;
  for (const sim::RankResult& rank : r.ranks) {
    for (const sim::PhaseRecord& p : rank.phases) {
      const int k = term_of(p.phase);
      if (k < 0 || p.iteration != last) continue;
      start[k] = seen[k] ? std::max(start[k], p.start_ms) : p.start_ms;
      end[k] = seen[k] ? std::max(end[k], p.end_ms) : p.end_ms;
      seen[k] = true;
    }
  }
  double raw[kNumTerms];
  raw_terms(raw);
  for (int k = kInputDist; k < kNumTerms; ++k) {
    if (!seen[k] || !(raw[k] > 0.0)) continue;
    const double measured = end[k] - start[k];
    if (!(measured > 0.0)) continue;
    const double ratio = std::clamp(measured / raw[k], 0.25, 4.0);
    factor_[k] = fitted_[k] ? 0.5 * (factor_[k] + ratio) : ratio;
    fitted_[k] = true;
  }
}

}  // namespace shardlab::search::detail
