// The planner loop (docs/cost-model.md §9.1).
#include "shardlab/planner/planner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <unordered_map>

#include "enumerator.h"
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

// The relative margin of cannot_beat for a plan of `num_shards` shards.
double rating_margin(int64_t num_shards) { return static_cast<double>(num_shards + 16) * 0x1p-50; }

// Proves that a plan's NoopPerfModel rating is not below `best` from the
// partitioner's max_device_perf(), without building the plan or the
// per-shard rating pass. Both numbers sum the same non-negative shard perfs
// per device, in different orders (e.g. per component then total, vs per
// shard total, docs/cost-model.md O27). Each is within a relative (k + 4)·2^-53 (first order)
// of the exact sum over a device's k shards, so rating >= partitioner_max ·
// (1 - 2(k + 4)·2^-53). The margin below uses k = every shard of the plan
// and is twice that, which also covers the rounding of the product and
// difference. The result equals `!(rating < best)` whenever it returns true.
bool cannot_beat(double partitioner_max, int64_t num_shards, double best) {
  const double margin = rating_margin(num_shards);
  return partitioner_max - partitioner_max * margin >= best;
}

// A device total from which cannot_beat holds: the partitioner may stop a
// lazy placement there (Partitioner::set_early_stop). cannot_beat is
// monotone in partitioner_max (with a margin below 1/4, so x - x·margin
// grows with x even after rounding), so a placement whose largest total
// reaches this value cannot beat `best`, however it ends; +infinity where
// no such value is found.
double cannot_beat_from(int64_t num_shards, double best) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double margin = rating_margin(num_shards);
  if (!(margin < 0.25)) return kInf;
  double x = best + 2 * margin * best;
  for (int step = 0; step < 4 && x < kInf; ++step) {
    if (cannot_beat(x, num_shards, best)) return x;
    x = std::nextafter(x, kInf);
  }
  return kInf;
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
  for (size_t i = 0; i < plan.proposal.size(); ++i) {
    const double shard_total = space.options[plan.proposal[i]].shard_perf.total();
    const int* ranks = plan.ranks.data() + plan.first_shard[i];
    const int n = plan.first_shard[i + 1] - plan.first_shard[i];
    // Uniform options usually sit on ranks 0..W-1 in order: a contiguous
    // add, same additions in the same order per rank.
    bool identity = n == world_size;
    for (int j = 0; j < n && identity; ++j) identity = ranks[j] == j;
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

  const SearchSpace& ss = *result.search_space;
  Topology reserved_topology = result.topology;
  for (size_t r = 0; r < reserved_topology.devices.size(); ++r) {
    reserved_topology.devices[r].storage = result.reserved->devices[r];
  }
  const std::vector<Storage>& reserved_devices = result.reserved->devices;

  std::unique_ptr<Partitioner> partitioner =
      make_partitioner(scenario.planner.partitioner, scenario.behaviour());
  partitioner->set_detailed_errors(false);  // the reported failure is re-run with details
  partitioner->set_fixed_topology(&reserved_topology);  // unchanged from here on
  std::unordered_map<ProposalKey, CachedOutcome, ProposalKeyHash> cache;
  double best_rating = static_cast<double>(std::numeric_limits<int64_t>::max());
  Storage lowest_storage{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max()};
  Status last_error;
  Proposal last_proposal;
  PartitionedPlan candidate;
  std::vector<double> device_perf;
  ProposalTracker tracker(ss);
  // Exact ratings can be skipped only for TorchRec's own model, whose rating
  // the partitioner's device totals bound, and not when the log wants them.
  // Logging records what the loop computes and changes none of it.
  const bool may_skip_ratings = options.perf_model == nullptr && perfs_non_negative(ss);
  ProposalLog* const log = options.proposal_log;
  const int num_proposers = static_cast<int>(scenario.planner.proposers.size());
  const auto report = [&](int proposer_index) {
    options.progress(PlannerProgress{.proposer = proposer_index,
                                     .num_proposers = num_proposers,
                                     .proposals = result.num_proposals,
                                     .plans = result.num_plans});
  };
  const auto cancelled = [&options]() {
    return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
  };

  // Rates `candidate` exactly; keeps it when it is the best so far.
  auto rate_candidate = [&]() -> double {
    double rating = 0.0;
    rate_plan(ss, candidate, result.topology.world_size, &device_perf, &rating);
    // rate_plan's max is TorchRec's rating; another model re-rates the plan.
    if (options.perf_model != nullptr)
      rating = options.perf_model->rate(ss, candidate, result.topology, device_perf);
    if (rating < best_rating) {  // strict: the first of equal ratings wins
      best_rating = rating;
      result.best = candidate;
      result.device_perf_total = device_perf;
    }
    return rating;
  };

  for (size_t proposer_index = 0; proposer_index < scenario.planner.proposers.size();
       ++proposer_index) {
    if (options.progress) report(static_cast<int>(proposer_index));
    Proposer* proposer = proposers[proposer_index].get();
    proposer->load(ss);
    // Lazy mode: partition without building the plan, and build and rate it
    // only when it might be the best; the proposer does not miss it.
    const bool lazy = may_skip_ratings && !proposer->reads_plan_or_rating();
    for (auto proposal = proposer->propose(); proposal; proposal = proposer->propose()) {
      if (cancelled()) {
        result.best.reset();
        result.device_perf_total.clear();
        result.error = Status::planner(PlannerErrorType::kOther, "planning cancelled");
        return finish();
      }
      tracker.advance(*proposal);
      const ProposalKey key = tracker.key();
      if (auto it = cache.find(key); it != cache.end()) {
        CachedOutcome& cached = it->second;
        if (cached.partitionable && !cached.rating && !lazy) {
          // Its rating was skipped for an earlier proposer; this one reads
          // it. Partitioning is deterministic: redo it (still not counted).
          // It could not beat the best then, so it cannot now.
          (void)partitioner->partition(ss, *proposal, reserved_topology, &candidate);
          cached.rating = rate_candidate();
        }
        // Served from the cache: not partitioned again and not counted. The
        // cached plan itself is not kept (no proposer reads it on a repeat).
        proposer->feedback(cached.partitionable, nullptr, cached.rating, reserved_devices);
        continue;
      }
      ++result.num_proposals;
      if (options.progress && result.num_proposals % PlannerOptions::kProgressEvery == 0) {
        report(static_cast<int>(proposer_index));
      }
      if (lazy) partitioner->set_early_stop(cannot_beat_from(tracker.num_shards(), best_rating));
      if (Status st =
              partitioner->partition(ss, *proposal, reserved_topology, lazy ? nullptr : &candidate);
          st) {
        ++result.num_plans;
        std::optional<double> rating;
        const PartitionedPlan* plan = &candidate;
        const std::optional<double> bound = lazy ? partitioner->max_device_perf() : std::nullopt;
        if (bound && cannot_beat(*bound, tracker.num_shards(), best_rating)) {
          plan = nullptr;
        } else {
          // Deterministic: the same plan as the lazy partition found.
          if (lazy) (void)partitioner->partition(ss, *proposal, reserved_topology, &candidate);
          rating = rate_candidate();
        }
        cache.emplace(key, CachedOutcome{true, rating});
        if (log != nullptr) log->append(static_cast<int>(proposer_index), *proposal, true, rating);
        proposer->feedback(true, plan, rating, reserved_devices);
      } else {
        last_error = st;
        lowest_storage = std::min(lowest_storage, tracker.storage());
        cache.emplace(key, CachedOutcome{false, std::nullopt});
        if (log != nullptr)
          log->append(static_cast<int>(proposer_index), *proposal, false, std::nullopt);
        proposer->feedback(false, nullptr, std::nullopt, reserved_devices);
        last_proposal = std::move(*proposal);  // read once, at the end: no copy
      }
    }
  }

  if (result.best) {
    result.perf_rating = best_rating;
    return finish();
  }

  // Partitioning is deterministic: re-running the last failed proposal with
  // detailed errors gives the same failure, now with TorchRec's message.
  if (!last_proposal.empty()) {
    partitioner->set_detailed_errors(true);
    PartitionedPlan scratch;
    last_error = partitioner->partition(ss, last_proposal, reserved_topology, &scratch);
  }
  PartitionedPlan unplaced;
  init_partitioned_plan(ss, last_proposal, &unplaced);
  result.last_proposal = std::move(unplaced);
  Storage global_available;
  for (const Storage& d : reserved_devices) global_available += d;
  const bool insufficient = !lowest_storage.fits_in(global_available);
  result.error = Status::planner(
      insufficient ? PlannerErrorType::kInsufficientStorage : PlannerErrorType::kStrictConstraints,
      failure_message(scenario, result.topology, *result.reserved, insufficient,
                      result.num_proposals, lowest_storage, last_error));
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
