// The planner loop (planner-model.md §9.1).
#include "shardlab/planner/planner.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>

#include "planner_messages.h"
#include "shardlab/planner/enumerator.h"
#include "shardlab/planner/partitioner.h"
#include "shardlab/planner/proposer.h"
#include "shardlab/planner/py_format.h"

namespace shardlab::planner {
namespace {

// Proposal de-duplication key. Within the search space an option index
// identifies its content (fqn, type, kernel are unique per option), and a
// proposal lists one option per fqn in fqn order, so the index vector is a
// canonical form of TorchRec's sorted fingerprint list. Two independent
// 64-bit hashes keep the cache small for tens of thousands of proposals.
struct ProposalKey {
  uint64_t a = 0;
  uint64_t b = 0;
  bool operator==(const ProposalKey&) const = default;
};

struct ProposalKeyHash {
  size_t operator()(const ProposalKey& k) const { return static_cast<size_t>(k.a ^ (k.b * 0x9E3779B97F4A7C15ULL)); }
};

ProposalKey key_of(const Proposal& p) {
  uint64_t a = 0xcbf29ce484222325ULL;  // FNV-1a
  uint64_t b = 0x84222325cbf29ce4ULL;  // splitmix-style accumulator
  for (int v : p) {
    a = (a ^ static_cast<uint64_t>(static_cast<uint32_t>(v))) * 0x100000001b3ULL;
    uint64_t z = b + static_cast<uint64_t>(static_cast<uint32_t>(v)) + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    b = z ^ (z >> 31);
  }
  return {a, b};
}

struct CachedOutcome {
  bool partitionable = false;
  std::optional<double> rating;
};

// Integer sums: adding option totals equals adding every shard. Totals are
// read from a compact copy; the options themselves are large.
Storage proposal_storage(const std::vector<Storage>& option_storage, const Proposal& p) {
  Storage s;
  for (int idx : p) s += option_storage[idx];
  return s;
}

std::string gb(int64_t bytes) { return py_round(static_cast<double>(bytes) / (1 << 30), 3); }

std::string failure_message(const Scenario& scenario, const Topology& topology, const ReservationResult& reserved,
                            bool insufficient, int num_proposals, const Storage& lowest, const Status& last_error) {
  Storage global_available;
  for (const Storage& d : reserved.devices) global_available += d;
  int64_t global_hbm = 0;
  for (const Device& d : topology.devices) global_hbm += d.storage.hbm;
  std::string m = insufficient ? "Unable to find a plan for this model because of insufficient storage. \n"
                               : "Unable to find a plan for this model because of the strict constraints. \n";
  m += "Planner evaluated " + std::to_string(num_proposals) + " proposals.\nPossible solutions:\n";
  m += "  1) Increase the number of devices (" + std::to_string(topology.world_size) + ")\n";
  m += "  2) Reduce the model size (\n\t  Global storage: " + gb(global_hbm) + " GB, \n";
  m += "\t  Per rank hardware memory: " + storage_gb(topology.devices.front().storage) + ", \n";
  m += "\t  Storage reservation percentage: " + py_float_repr(reserved.percentage) + ", \n";
  if (reserved.kind == ReservationKind::kHeuristical) {
    m += "\t  Per rank reservation for dense storage: " + storage_gb(reserved.dense.value_or(Storage{})) + ", \n";
    m += "\t  Per rank reservation for kjt storage: " + storage_gb(reserved.kjt.value_or(Storage{})) + ", \n";
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
  *rating = device_perf_total->empty() ? 0.0 : *std::max_element(device_perf_total->begin(), device_perf_total->end());
}

PlannerResult plan(const Scenario& scenario, const PlannerOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  PlannerResult result;
  auto finish = [&]() -> PlannerResult {
    result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(result);
  };

  result.topology = make_topology(scenario.topology);
  std::vector<ModuleInfo> modules = build_modules(scenario);
  auto reserved = reserve_storage(scenario, result.topology, modules);
  if (!reserved) {
    result.error = reserved.status();
    return finish();
  }
  result.reserved = std::move(reserved).value();
  auto space = enumerate_options(scenario, result.topology, std::move(modules));
  if (!space) {
    result.error = space.status();
    return finish();
  }
  result.search_space = std::move(space).value();
  if (options.enumerate_only) return finish();

  const SearchSpace& ss = *result.search_space;
  Topology reserved_topology = result.topology;
  for (size_t r = 0; r < reserved_topology.devices.size(); ++r) {
    reserved_topology.devices[r].storage = result.reserved->devices[r];
  }
  const std::vector<Storage>& reserved_devices = result.reserved->devices;

  std::unique_ptr<Partitioner> partitioner = make_partitioner(scenario.planner.partitioner);
  partitioner->set_detailed_errors(false);  // the reported failure is re-run with details
  std::unordered_map<ProposalKey, CachedOutcome, ProposalKeyHash> cache;
  double best_rating = static_cast<double>(std::numeric_limits<int64_t>::max());
  Storage lowest_storage{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max()};
  Status last_error;
  Proposal last_proposal;
  PartitionedPlan candidate;
  std::vector<double> device_perf;
  std::vector<Storage> option_storage;
  option_storage.reserve(ss.options.size());
  for (const ShardingOption& o : ss.options) option_storage.push_back(o.total_storage);

  for (const ProposerSpec& spec : scenario.planner.proposers) {
    std::unique_ptr<Proposer> proposer = make_proposer(spec);
    proposer->load(ss);
    for (auto proposal = proposer->propose(); proposal; proposal = proposer->propose()) {
      const ProposalKey key = key_of(*proposal);
      if (auto it = cache.find(key); it != cache.end()) {
        // Served from the cache: not partitioned again and not counted. The
        // cached plan itself is not kept (no proposer reads it on a repeat).
        proposer->feedback(it->second.partitionable, nullptr, it->second.rating, reserved_devices);
        continue;
      }
      ++result.num_proposals;
      if (Status st = partitioner->partition(ss, *proposal, reserved_topology, &candidate); st) {
        ++result.num_plans;
        double rating = 0.0;
        rate_plan(ss, candidate, result.topology.world_size, &device_perf, &rating);
        // rate_plan's max is TorchRec's rating; another model re-rates the plan.
        if (options.perf_model != nullptr) rating = options.perf_model->rate(ss, candidate, result.topology, device_perf);
        if (rating < best_rating) {  // strict: the first of equal ratings wins
          best_rating = rating;
          result.best = candidate;
          result.device_perf_total = device_perf;
        }
        cache.emplace(key, CachedOutcome{true, rating});
        proposer->feedback(true, &candidate, rating, reserved_devices);
      } else {
        last_error = st;
        last_proposal = *proposal;
        lowest_storage = std::min(lowest_storage, proposal_storage(option_storage, *proposal));
        cache.emplace(key, CachedOutcome{false, std::nullopt});
        proposer->feedback(false, nullptr, std::nullopt, reserved_devices);
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
      failure_message(scenario, result.topology, *result.reserved, insufficient, result.num_proposals,
                      lowest_storage, last_error));
  return finish();
}

}  // namespace shardlab::planner
