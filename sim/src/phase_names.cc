#include "shardlab/sim/simulation.h"

namespace shardlab::sim {

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::kInputDist:
      return "input_dist";
    case Phase::kFwdCompute:
      return "fwd_compute";
    case Phase::kOutputDist:
      return "output_dist";
    case Phase::kDenseFwd:
      return "dense_fwd";
    case Phase::kDenseBwd:
      return "dense_bwd";
    case Phase::kBwdOutputDist:
      return "bwd_output_dist";
    case Phase::kBwdCompute:
      return "bwd_compute";
    case Phase::kDpAllreduce:
      return "dp_allreduce";
    case Phase::kPrefetch:
      return "prefetch";
    case Phase::kIterationOverhead:
      return "iteration_overhead";
    case Phase::kDdpAllreduce:
      return "ddp_allreduce";
    case Phase::kDenseOptimizer:
      return "dense_optimizer";
    case Phase::kHostSync:
      return "host_sync";
  }
  return "unknown";
}

std::string_view to_string(Stream s) {
  switch (s) {
    case Stream::kCompute:
      return "compute";
    case Stream::kComm:
      return "comm";
    case Stream::kHost:
      return "host";
  }
  return "unknown";
}

}  // namespace shardlab::sim
