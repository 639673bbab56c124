// The planner loop (docs/cost-model.md §9.1).
#include "shardlab/planner/planner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <thread>
#include <unordered_map>

#include "enumerator.h"
#include "lazy_rating.h"
#include "partitioner.h"
#include "planner_messages.h"
#include "planning_memory.h"
#include "proposal_tracker.h"
#include "proposer.h"
#include "py_format.h"
#include "shardlab/planner/hugectr_layout.h"
#include "shardlab/planner/limits.h"
#include "shardlab/planner/memory_budget.h"

namespace shardlab::planner {
namespace {

struct CachedOutcome {
  bool partitionable = false;
  // The rating, or nullopt when the proposal did not partition or when its
  // exact rating was skipped (see cannot_beat).
  std::optional<double> rating;
};

// True when every perf component of every shard is non-negative, the
// premise of cannot_beat's error bound.
bool perfs_non_negative(const SearchSpace& space) {
  for (const ShardingOption& o : space.options) {
    const Perf& p = o.shard_perf;
    if (!(p.fwd_compute >= 0 && p.fwd_comms >= 0 && p.bwd_compute >= 0 && p.bwd_comms >= 0 &&
          p.prefetch_compute >= 0)) {
      return false;
    }
  }
  return true;
}

std::string gb(int64_t bytes) { return py_round(static_cast<double>(bytes) / (1 << 30), 3); }

std::string failure_message(const Scenario& scenario, const Topology& topology,
                            const ReservationResult& reserved, bool insufficient, int num_proposals,
                            const Storage& lowest, const Status& last_error) {
  Storage global_available;
  for (const Storage& d : reserved.devices) global_available += d;
  int64_t global_hbm = 0;
  for (const Device& d : topology.devices) global_hbm += d.storage.hbm;
  std::string m =
      insufficient ? "Unable to find a plan for this model because of insufficient storage. \n"
                   : "Unable to find a plan for this model because of the strict constraints. \n";
  m += "Planner evaluated " + std::to_string(num_proposals) + " proposals.\nPossible solutions:\n";
  m += "  1) Increase the number of devices (" + std::to_string(topology.world_size) + ")\n";
  m += "  2) Reduce the model size (\n\t  Global storage: " + gb(global_hbm) + " GB, \n";
  m += "\t  Per rank hardware memory: " + storage_gb(topology.devices.front().storage) + ", \n";
  m += "\t  Storage reservation percentage: " + py_float_repr(reserved.percentage) + ", \n";
  if (reserved.kind == ReservationKind::kHeuristical) {
    m += "\t  Per rank reservation for dense storage: " +
         storage_gb(reserved.dense.value_or(Storage{})) + ", \n";
    m += "\t  Per rank reservation for kjt storage: " +
         storage_gb(reserved.kjt.value_or(Storage{})) + ", \n";
  }
  m += "\t  Global storage available for model parallel: " + storage_gb(global_available) + ", \n";
  m += "\t  Global storage requirement for model parallel: " + storage_gb(lowest) + ")\n";
  m += "  3) Reduce local batch size (" + std::to_string(scenario.batch_size) + ")\n";
  m += "  4) Remove planner constraints that might be reducing search space or available storage\n";
  m += "Last planner error: \n\t" + last_error.message() + "\n";
  return m;
}

}  // namespace

void rate_plan(const SearchSpace& space, const PartitionedPlan& plan, int world_size,
               std::vector<double>* device_perf_total, double* rating) {
  device_perf_total->assign(static_cast<size_t>(world_size), 0.0);
  double* perf = device_perf_total->data();
  std::vector<int> in_order(static_cast<size_t>(world_size));
  std::iota(in_order.begin(), in_order.end(), 0);
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const double shard_total = space.options[plan.proposal[i]].shard_perf.total();
    const int* ranks = plan.ranks.data() + plan.first_shard[i];
    const int n = plan.first_shard[i + 1] - plan.first_shard[i];
    // Uniform options usually sit on ranks 0..W-1 in order: a contiguous
    // add, same additions in the same order per rank. The check is a
    // memcmp.
    const bool identity = n == world_size && std::equal(ranks, ranks + n, in_order.data());
    if (identity) {
      for (int r = 0; r < n; ++r) perf[r] += shard_total;
    } else {
      for (int j = 0; j < n; ++j) perf[ranks[j]] += shard_total;
    }
  }
  *rating = device_perf_total->empty()
                ? 0.0
                : *std::max_element(device_perf_total->begin(), device_perf_total->end());
}

namespace {

// The proposal loop (docs/cost-model.md §9.1): every proposer's proposals,
// partitioned once each (a repeat is served from the cache), rated, the
// best plan kept; the failure message when none partitions.
class ProposalLoop {
 public:
  ProposalLoop(const Scenario& scenario, const PlannerOptions& options,
               const Topology& reserved_topology, PlannerResult* result)
      : scenario_(scenario),
        options_(options),
        result_(*result),
        ss_(*result->search_space),
        reserved_topology_(reserved_topology),
        reserved_devices_(result->reserved->devices),
        tracker_(ss_),
        // Exact ratings can be skipped only for TorchRec's own model, whose
        // rating the partitioner's device totals bound.
        may_skip_ratings_(options.perf_model == nullptr && perfs_non_negative(ss_)),
        num_proposers_(static_cast<int>(scenario.planner.proposers.size())) {
    partitioner_ = make_partitioner(scenario.planner.partitioner, scenario.behaviour());
    partitioner_->set_detailed_errors(false);  // the reported failure is re-run with details
    partitioner_->set_fixed_topology(&reserved_topology_);  // unchanged from here on
  }

  // What ended planning early: a partition failure TorchRec raises as an
  // exception (is_fatal_partition_error); nullopt when cancelled.
  const std::optional<Status>& fatal() const { return fatal_; }

  // Runs `proposer` to its end. False when cancelled or ended (fatal()).
  bool run(int index, Proposer& proposer) {
    proposer_ = &proposer;
    proposer_start_ = std::chrono::steady_clock::now();
    proposer.load(ss_);
    partitioner_->set_table_order(proposer.table_order());
    if (options_.progress) report(index);
    // A proposer that reads neither plan nor rating gets neither built when
    // they cannot matter (lazy_rating.h).
    if (may_skip_ratings_ && !proposer.reads_plan_or_rating()) return run_lazy(index, proposer);
    return run_eager(index, proposer);
  }

  // After the last proposer: the best plan's per-rank sums, or the failure.
  void finish() {
    if (result_.best) {
      result_.perf_rating = best_rating_;
      if (best_order_ != nullptr) result_.table_order = *best_order_;
      if (best_sums_pending_) sum_best_plan();
      return;
    }
    fail();
  }

 private:
  // Proposals settled together by a lazy proposer: enough to keep two
  // threads busy between joins, few enough that the best rating they are
  // settled against is rarely stale.
  static constexpr int kLazyBatch = 64;

  struct Pending {
    internal::LazyItem* item;
    CachedOutcome* cached;  // its cache entry, filled on commit
    Storage storage;        // ProposalTracker::storage()
  };

  // Each proposal is partitioned, and rated exactly (this proposer reads
  // the plan and rating).
  bool run_eager(int index, Proposer& proposer) {
    for (auto proposal = proposer.propose(); proposal; proposal = proposer.propose()) {
      if (cancelled()) return false;
      tracker_.advance(*proposal);
      const ProposalKey key = tracker_.key();
      if (auto it = cache_.find(key); it != cache_.end()) {
        CachedOutcome& cached = it->second;
        if (cached.partitionable && !cached.rating) {
          // Its rating was skipped for an earlier proposer; this one reads
          // it. Partitioning is deterministic: redo it (still not counted).
          // It could not beat the best then, so it cannot now.
          (void)partitioner_->partition(ss_, *proposal, reserved_topology_, &candidate_);
          cached.rating = rate_candidate();
        }
        // Served from the cache: not partitioned again and not counted. The
        // cached plan itself is not kept (no proposer reads it on a repeat).
        proposer.feedback(cached.partitionable, nullptr, cached.rating, reserved_devices_);
        if (proposer_failed(proposer)) return false;
        continue;
      }
      count_proposal(index);
      if (Status st = partitioner_->partition(ss_, *proposal, reserved_topology_, &candidate_);
          st) {
        ++result_.num_plans;
        const double rating = rate_candidate();
        cache_.emplace(key, CachedOutcome{true, rating});
        log(index, *proposal, true, rating);
        proposer.feedback(true, &candidate_, rating, reserved_devices_);
      } else {
        if (is_fatal_partition_error(st)) {
          fatal_ = st;
          return false;
        }
        cache_.emplace(key, CachedOutcome{false, std::nullopt});
        log(index, *proposal, false, std::nullopt);
        proposer.feedback(false, nullptr, std::nullopt, reserved_devices_);
        note_failure(std::move(*proposal), tracker_.storage(), st);
      }
      if (proposer_failed(proposer)) return false;
    }
    return true;
  }

  // A proposer that cannot go on ends planning with its error (fatal()).
  bool proposer_failed(const Proposer& proposer) {
    if (Status st = proposer.failure(); !st.is_ok()) {
      fatal_ = std::move(st);
      return true;
    }
    return false;
  }

  // The proposer's walk ignores the outcomes, so proposals are taken in
  // batches and settled together, on two threads where there are two
  // (lazy_rating.h), then committed in order; one at a time on one thread.
  bool run_lazy(int index, Proposer& proposer) {
    const int threads = options_.threads > 0                       ? std::min(options_.threads, 2)
                        : std::thread::hardware_concurrency() >= 2 ? 2
                                                                   : 1;
    const int batch = threads == 1 ? 1 : kLazyBatch;
    if (!rater_) {
      rater_ = std::make_unique<internal::LazyRater>(scenario_, ss_, reserved_topology_, threads);
    }
    rater_->set_table_order(proposer.table_order());
    std::vector<internal::LazyItem> items(static_cast<size_t>(batch));
    std::vector<Pending> pending;
    std::vector<internal::LazyItem*> to_settle;
    bool more = true;
    bool failed = false;  // the proposer's feedback failed (Proposer::failure)
    while (more) {
      pending.clear();
      to_settle.clear();
      while (static_cast<int>(pending.size()) < batch) {
        if (cancelled()) return false;
        std::optional<Proposal> proposal = proposer.propose();
        if (!proposal) {
          more = false;
          break;
        }
        tracker_.advance(*proposal);
        // The walk moves on whatever the outcome (Proposer::reads_plan_or_rating).
        proposer.feedback(false, nullptr, std::nullopt, reserved_devices_);
        // A proposer that fails in its feedback does so after this proposal
        // was partitioned and rated, in TorchRec's order: settle it, then end.
        failed = !proposer.failure().is_ok();
        if (failed) more = false;
        // A repeat (of an earlier batch or of this one) is served from the
        // cache: nothing to do for a lazy proposer, and not counted.
        auto [it, fresh] = cache_.try_emplace(tracker_.key());
        if (fresh) {
          internal::LazyItem& item = items[pending.size()];
          item.proposal = std::move(*proposal);
          item.num_shards = tracker_.num_shards();
          pending.push_back(Pending{&item, &it->second, tracker_.storage()});
          to_settle.push_back(&item);
        }
        if (failed) break;
      }
      rater_->settle(to_settle, best_rating_);
      for (const Pending& p : pending) {
        if (cancelled() || !commit_lazy(index, p)) return false;
      }
      if (failed && proposer_failed(proposer)) return false;
    }
    return true;
  }

  // A settled proposal, in proposal order: counted, cached, logged, and kept
  // when it is the best. False when its failure ends planning (fatal()).
  bool commit_lazy(int index, const Pending& p) {
    internal::LazyItem& item = *p.item;
    count_proposal(index);
    if (!item.status) {
      if (is_fatal_partition_error(item.status)) {
        fatal_ = item.status;
        return false;
      }
      *p.cached = CachedOutcome{false, std::nullopt};
      log(index, item.proposal, false, std::nullopt);
      note_failure(std::move(item.proposal), p.storage, item.status);
      return true;
    }
    ++result_.num_plans;
    std::optional<double> rating = item.rating;
    // Settled against the best when the batch began; against the best now,
    // the bound may prove more. It proves exactly what it would have proven
    // one at a time: a placement stopped early reached a bound from which it
    // cannot beat any lower best, and a full placement's largest total is
    // the largest bound any placement of it gives. So the log records the
    // same skipped ratings.
    if (item.bound && internal::cannot_beat(*item.bound, item.num_shards, best_rating_)) {
      rating.reset();
    }
    if (rating && *rating < best_rating_) {  // strict: the first of equal ratings wins
      best_rating_ = *rating;
      if (!result_.best) result_.best.emplace();
      rater_->build(item.proposal, &*result_.best);  // deterministic: the plan rated
      best_order_ = proposer_->table_order();        // the best plan's table order
      best_sums_pending_ = true;
    }
    *p.cached = CachedOutcome{true, rating};
    log(index, item.proposal, true, rating);
    return true;
  }

  // Rates `candidate_` exactly; keeps it when it is the best so far.
  double rate_candidate() {
    double rating = 0.0;
    rate_plan(ss_, candidate_, result_.topology.world_size, &device_perf_, &rating);
    // rate_plan's max is TorchRec's rating; another model re-rates the plan.
    if (options_.perf_model != nullptr)
      rating = options_.perf_model->rate(ss_, candidate_, result_.topology, device_perf_);
    if (rating < best_rating_) {  // strict: the first of equal ratings wins
      best_rating_ = rating;
      result_.best = candidate_;
      result_.device_perf_total = device_perf_;
      best_order_ = proposer_->table_order();  // the best plan's table order
      best_sums_pending_ = false;
    }
    return rating;
  }

  // The best plan was rated from a few ranks: its per-rank sums, once.
  void sum_best_plan() {
    double rating = 0.0;
    rate_plan(ss_, *result_.best, result_.topology.world_size, &result_.device_perf_total, &rating);
    if (rating != best_rating_) {  // exact_rating's bound broken: a defect, never a plan
      result_.best.reset();
      result_.device_perf_total.clear();
      result_.error = Status::internal("the best plan's rating " + py_float_repr(rating) +
                                       " differs from the rating found while planning " +
                                       py_float_repr(best_rating_));
    }
  }

  // No proposal partitioned: TorchRec's message for the last failure.
  void fail() {
    // Partitioning is deterministic: re-running the last failed proposal
    // with detailed errors gives the same failure, now with TorchRec's
    // message.
    if (!last_proposal_.empty()) {
      partitioner_->set_detailed_errors(true);
      PartitionedPlan scratch;
      last_error_ = partitioner_->partition(ss_, last_proposal_, reserved_topology_, &scratch);
    }
    PartitionedPlan unplaced;
    init_partitioned_plan(ss_, last_proposal_, &unplaced);
    result_.last_proposal = std::move(unplaced);
    Storage global_available;
    for (const Storage& d : reserved_devices_) global_available += d;
    const bool insufficient = !lowest_storage_.fits_in(global_available);
    result_.error = Status::planner(
        insufficient ? PlannerErrorType::kInsufficientStorage
                     : PlannerErrorType::kStrictConstraints,
        failure_message(scenario_, result_.topology, *result_.reserved, insufficient,
                        result_.num_proposals, lowest_storage_, last_error_));
  }

  void count_proposal(int index) {
    ++result_.num_proposals;
    if (!options_.progress) return;
    // Every kProgressEvery proposals, and at least every kProgressInterval
    // when each takes long (a simulated rating), so the counts stay current.
    const auto now = std::chrono::steady_clock::now();
    if (result_.num_proposals % PlannerOptions::kProgressEvery == 0 ||
        now - last_report_ >= PlannerOptions::kProgressInterval) {
      report(index);
    }
  }

  void note_failure(Proposal proposal, const Storage& storage, const Status& error) {
    last_error_ = error;
    lowest_storage_ = std::min(lowest_storage_, storage);
    last_proposal_ = std::move(proposal);  // read once, at the end
  }

  // Logging records what the loop computes and changes none of it.
  void log(int index, const Proposal& proposal, bool partitionable, std::optional<double> rating) {
    if (options_.proposal_log != nullptr)
      options_.proposal_log->append(index, proposal, partitionable, rating);
  }

  void report(int index) {
    last_report_ = std::chrono::steady_clock::now();
    options_.progress(PlannerProgress{
        .proposer = index,
        .num_proposers = num_proposers_,
        .proposals = result_.num_proposals,
        .plans = result_.num_plans,
        .walked = proposer_->walked(),
        .proposer_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - proposer_start_)
                .count()});
  }

  bool cancelled() const {
    return options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed);
  }

  const Scenario& scenario_;
  const PlannerOptions& options_;
  PlannerResult& result_;
  const SearchSpace& ss_;
  const Topology& reserved_topology_;
  const std::vector<Storage>& reserved_devices_;
  ProposalTracker tracker_;
  const bool may_skip_ratings_;
  const int num_proposers_;
  const Proposer* proposer_ = nullptr;  // the running one
  std::chrono::steady_clock::time_point proposer_start_;
  std::chrono::steady_clock::time_point last_report_;
  std::unique_ptr<Partitioner> partitioner_;
  std::unique_ptr<internal::LazyRater> rater_;  // made for the first lazy proposer
  std::unordered_map<ProposalKey, CachedOutcome, ProposalKeyHash> cache_;
  double best_rating_ = static_cast<double>(std::numeric_limits<int64_t>::max());
  bool best_sums_pending_ = false;  // result_.device_perf_total not summed yet
  Storage lowest_storage_{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max()};
  Status last_error_;
  std::optional<Status> fatal_;  // fatal()
  // Proposer::table_order() of the proposer of the best plan (the proposers
  // outlive the loop); copied to the result at finish().
  const std::vector<int>* best_order_ = nullptr;
  Proposal last_proposal_;
  PartitionedPlan candidate_;
  std::vector<double> device_perf_;
};

PlannerResult plan_within_memory(const Scenario& scenario, const PlannerOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  PlannerResult result;
  if (options.proposal_log != nullptr) options.proposal_log->clear();
  auto finish = [&]() -> PlannerResult {
    result.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(result);
  };

  // Scenarios from the loader are inside the limits already; this guards
  // scenarios built in code (one pass over the tables).
  if (Status st = check_limits(scenario); !st) {
    result.error = st;
    return finish();
  }
  result.topology = make_topology(scenario);
  std::vector<ModuleInfo> modules = build_modules(scenario);
  auto reserved = reserve_storage(scenario, result.topology, modules);
  if (!reserved) {
    result.error = reserved.status();
    return finish();
  }
  result.reserved = std::move(reserved).value();
  // Refuse a run that would not fit in memory before building anything.
  const internal::PlanningMemory memory =
      internal::estimate_planning_memory(scenario, result.topology, modules, options);
  if (Status st = check_memory(
          (options.enumerate_only ? "enumerating " : "planning ") + memory.describe(),
          memory.total(), "plan fewer tables or ranks, or constrain the sharding types");
      !st) {
    result.error = st;
    return finish();
  }
  auto space =
      enumerate_options(scenario, result.topology, std::move(modules), options.calibration);
  if (!space) {
    result.error = space.status();
    return finish();
  }
  result.search_space = std::move(space).value();
  if (options.enumerate_only) return finish();

  // Every proposer is prepared before the first proposal (TorchRec 2026-08
  // loads them all up front; a failure there ends planning before any
  // proposal). Proposers may append the options they need to the space.
  ProposerShared shared;  // outlives the proposers
  std::vector<std::unique_ptr<Proposer>> proposers;
  {
    const OptionEstimator estimator(scenario, result.topology, options.calibration);
    for (const ProposerSpec& spec : scenario.planner.proposers) {
      proposers.push_back(make_proposer(spec, scenario.behaviour()));
      proposers.back()->set_shared(&shared);
      if (Status st = proposers.back()->prepare(&*result.search_space, estimator); !st) {
        result.error = st;
        return finish();
      }
    }
  }

  Topology reserved_topology = result.topology;
  for (size_t r = 0; r < reserved_topology.devices.size(); ++r) {
    reserved_topology.devices[r].storage = result.reserved->devices[r];
  }
  ProposalLoop loop(scenario, options, reserved_topology, &result);
  for (size_t index = 0; index < proposers.size(); ++index) {
    if (!loop.run(static_cast<int>(index), *proposers[index])) {
      result.best.reset();
      result.device_perf_total.clear();
      result.error = loop.fatal() ? *loop.fatal()
                                  : Status::planner(PlannerErrorType::kOther, "planning cancelled");
      return finish();
    }
  }
  loop.finish();
  return finish();
}

}  // namespace

PlannerResult rate_placement(const Scenario& scenario,
                             const std::function<Result<PartitionedPlan>(SearchSpace&)>& place,
                             const CostCalibration* calibration, PerfModel* perf_model) {
  const auto start = std::chrono::steady_clock::now();
  PlannerResult result =
      plan(scenario, PlannerOptions{.enumerate_only = true, .calibration = calibration});
  if (!result.search_space.has_value()) {
    if (result.error.is_ok())
      result.error = Status::internal("enumeration returned no search space");
    return result;
  }
  SearchSpace& space = *result.search_space;
  const size_t enumerated = space.options.size();
  Result<PartitionedPlan> placed = place(space);
  if (!placed.is_ok()) {
    result.error = placed.status();
    return result;
  }
  for (size_t i = enumerated; i < space.options.size(); ++i) {
    if (!space.options[i].hugectr_rows) continue;
    if (Status st =
            estimate_hugectr_rows(scenario, result.topology, calibration, &space.options[i]);
        !st) {
      result.error = st;
      return result;
    }
  }
  result.best = std::move(placed).value();
  result.num_proposals = 0;
  result.num_plans = 0;
  rate_plan(*result.search_space, *result.best, result.topology.world_size,
            &result.device_perf_total, &result.perf_rating);
  if (perf_model != nullptr) {
    result.perf_rating = perf_model->rate(*result.search_space, *result.best, result.topology,
                                          result.device_perf_total);
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

PlannerResult plan(const Scenario& scenario, const PlannerOptions& options) {
  try {
    PlannerResult result = plan_within_memory(scenario, options);
    // The plan's JSON is counted now that its shards are known; the
    // proposals' cache is freed by now.
    if (result.best) {
      const int64_t shards = static_cast<int64_t>(result.best->ranks.size());
      if (Status st = check_memory("writing the plan's " + std::to_string(shards) + " shards",
                                   internal::plan_json_bytes(shards),
                                   "plan fewer tables or ranks, or constrain the sharding types");
          !st) {
        result.best.reset();
        result.device_perf_total.clear();
        result.error = st;
      }
    }
    return result;
  } catch (const std::bad_alloc&) {
    // The estimate keeps this rare (memory taken by others meanwhile); the
    // run's structures are freed by now, so the message can be built.
    PlannerResult failed;
    failed.error = Status::invalid_argument(
        "planning ran out of memory (the memory budget is checked before enumerating, but the "
        "machine had less "
        "to give); plan fewer tables or ranks, or set " +
        std::string(kMemoryBudgetVariable));
    return failed;
  }
}

}  // namespace shardlab::planner
