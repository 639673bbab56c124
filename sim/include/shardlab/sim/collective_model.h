// The NCCL-like layer over the flow network: for each collective and message
// size, the algorithm and protocol NCCL would pick, and what that means for
// the flows (docs/simulation.md "Collectives"):
//
//   - every message is capped at a fraction of its route's line rate: the
//     bus bandwidth nccl-tests reaches at large sizes (GpuSpec::collectives),
//     times the protocol's efficiency (LL, LL128 relative to Simple);
//   - every message has the protocol's per-step latency over NVLink or the
//     network instead of the links' latencies, and each member's completion
//     pays the algorithm's base latency once.
//
// Choice, as NCCL's tuner makes it: the (algorithm, protocol) with the least
// predicted time, where the prediction is the lone collective's time under
// the rules above (so the choice and the simulated time agree):
//   all-reduce      ring (hierarchical over NVLink domains), tree (over
//                   domains only), NVLS (one domain with NVLink SHARP); over
//                   domains with fabric.sharp CollNet (rings inside the
//                   domains, the network's switches reduce across) and
//                   NVLS+SHARP; over domains with NVLS, NVLSTree (NVLS inside,
//                   a tree across); LL, LL128, Simple (the new ones Simple)
//   reduce-scatter, all-gather: ring; LL, LL128, Simple
//   all-to-all      pairwise; each message LL up to the p2p threshold, else
//                   Simple
// Calibrated communication parameters (a calibration profile's comm.intra_host
// / inter_host) replace the layer for their scope: messages capped at the
// calibrated bandwidth, the calibrated latency once per collective.
//
// Without a GPU preset and without calibrated communication the layer is
// inactive: collectives keep the plain flow model (line rate, link latencies).
#pragma once

#include <vector>

#include "shardlab/planner/cost_calibration.h"
#include "shardlab/planner/hardware_spec.h"
#include "shardlab/planner/scenario.h"
#include "shardlab/sim/collectives.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::sim {

struct CollectiveChoice {
  planner::CollAlgorithm algorithm = planner::CollAlgorithm::kRing;
  planner::CollProtocol protocol = planner::CollProtocol::kSimple;
  CollectiveShape shape;      // plain when the layer is inactive
  double predicted_ms = 0.0;  // the lone collective's time by the layer's rules; 0 when inactive
};

class CollectiveModel {
 public:
  // `calibration` may be null; both must outlive the model.
  CollectiveModel(const planner::Scenario& scenario, const planner::CostCalibration* calibration);

  bool active() const { return tuning_ != nullptr || calibrated_; }

  // `bytes` is nccl-tests' size: the all-reduce buffer, the reduce-scatter
  // input and all-gather output (the sum of the chunks), the all-to-all
  // send buffer of one rank. kEstimate collectives are never shaped.
  CollectiveChoice choose(CollectiveKind kind, double bytes, const std::vector<int>& members,
                          const TopologyGraph& graph) const;

 private:
  const planner::CollectiveTuning* tuning_ = nullptr;
  bool nvls_ = false;
  bool sharp_ = false;
  const planner::CostCalibration* calibration_ = nullptr;
  bool calibrated_ = false;
};

// Creates the collective `spec` describes with the model's choice for it
// (the plain flow model when the model is inactive or null).
std::unique_ptr<Collective> make_collective(FlowNetwork& network, const CollectiveSpec& spec,
                                            const CollectiveModel* model,
                                            CollectiveListener* listener, int64_t tag,
                                            CollectiveChoice* choice = nullptr);

// nccl-tests' size of a collective (see CollectiveModel::choose).
double nccl_size(const CollectiveSpec& spec);

// One row of an nccl-tests-style sweep: the collective alone on the
// scenario's cluster, every member joining at 0.
struct SweepPoint {
  double bytes = 0.0;    // nccl-tests' size
  double time_ms = 0.0;  // until the last member is done
  double algbw = 0.0;    // bytes / time, bytes per ms
  double busbw = 0.0;    // algbw times nccl-tests' bus factor
  planner::CollAlgorithm algorithm = planner::CollAlgorithm::kRing;
  planner::CollProtocol protocol = planner::CollProtocol::kSimple;
};

// nccl-tests' bus factor: all-reduce 2(n-1)/n; reduce-scatter, all-gather and
// all-to-all (n-1)/n.
double bus_factor(CollectiveKind kind, int ranks);

// Sweeps `kind` over `sizes` (bytes, nccl-tests' size) among all ranks of
// the scenario's topology. Fails on a fabric that does not fit the topology
// or a kind that is not a collective (kEstimate).
Result<std::vector<SweepPoint>> collective_sweep(
    const planner::Scenario& scenario, CollectiveKind kind, const std::vector<double>& sizes,
    const planner::CostCalibration* calibration = nullptr);

}  // namespace shardlab::sim
