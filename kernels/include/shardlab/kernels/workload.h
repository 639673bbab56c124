// What a replay executes: each rank's embedding shards, with the lookups one
// iteration asks of them, and the iteration's collectives with their message
// sizes. Built from a scenario and a placed plan; the same workload drives
// every backend, so their measurement records line up.
//
// Lookup counts follow the cost model's per-shard sizes (docs/cost-model.md §4):
// a table-wise or column-wise shard pools the global batch (B·W bags of L ids),
// a row-wise shard sees the same bags with L/W ids each (its share of the rows),
// a table-row-wise shard L/local_world_size ids, a data-parallel replica its
// rank's B bags of L ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shardlab/planner/scenario.h"
#include "shardlab/planner/sharding_option.h"
#include "shardlab/planner/status.h"
#include "shardlab/planner/types.h"
#include "shardlab/sim/iteration_traffic.h"

namespace shardlab::kernels {

enum class Precision { kFp32, kFp16 };
enum class PoolingMode { kSum, kMean, kNone };  // kNone: sequence (unpooled) lookups
enum class OptimizerKind { kSgd, kRowwiseAdagrad };

std::string_view to_string(Precision p);      // "fp32", "fp16"
std::string_view to_string(PoolingMode m);    // "sum", "mean", "none"
std::string_view to_string(OptimizerKind o);  // "sgd", "rowwise_adagrad"
// Bytes of one table element.
int element_bytes(Precision p);

// One shard's lookups on its rank, per iteration.
struct ShardWork {
  int option = -1;  // index into SearchSpace::options
  int shard = -1;   // shard index within the option
  std::string table;
  planner::ShardingType sharding_type = planner::ShardingType::kTableWise;
  planner::ComputeKernel compute_kernel = planner::ComputeKernel::kFused;
  int64_t rows = 0;       // the shard's rows in the plan
  int64_t rows_used = 0;  // rows allocated by the replay (<= rows; WorkloadOptions::max_rows)
  int64_t dim = 0;        // the shard's columns
  Precision precision = Precision::kFp32;
  PoolingMode pooling = PoolingMode::kSum;
  bool weighted = false;      // per-sample weights
  int64_t bags = 0;           // bags per iteration
  double pooling_factor = 0;  // mean ids per bag
  // TorchRec's estimates of this shard (docs/cost-model.md §4), ms.
  double estimated_fwd_ms = 0.0;
  double estimated_bwd_ms = 0.0;
  // Bytes TorchRec's forward formula charges this shard: index read + row
  // lookups + output write (before the block penalty). Calibration's feature.
  double model_fwd_bytes = 0.0;
};

struct RankWorkload {
  int rank = -1;
  std::vector<ShardWork> shards;  // plan order: options in proposal order, shards in shard order
};

struct ReplayWorkload {
  int world_size = 0;
  int local_world_size = 0;
  OptimizerKind optimizer = OptimizerKind::kSgd;
  // False for an inference scenario (planner.is_inference): forward only, no
  // backward lookups or backward collectives.
  bool training = true;
  std::vector<RankWorkload> ranks;  // world_size entries, ranks[r].rank == r
  // The iteration's collectives in issue order (sim/iteration_traffic.h), with
  // the simulator's message sizes.
  std::vector<sim::CollectiveSpec> collectives;
};

struct WorkloadOptions {
  // Rows allocated per shard at most (0: no cap). Lookups draw ids from the
  // allocated rows; the bytes moved per lookup do not depend on the row count.
  int64_t max_rows = 0;
};

// Fails when the plan leaves a shard unplaced or the table's data type has no
// replay kernel (only fp32 and fp16 tables replay; others are refused, naming
// the table).
Result<ReplayWorkload> build_workload(const planner::Scenario& scenario,
                                      const planner::SearchSpace& space,
                                      const planner::PartitionedPlan& plan,
                                      const WorkloadOptions& options = {});

}  // namespace shardlab::kernels
