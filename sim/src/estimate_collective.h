// CommModel::kEstimates: a collective that synchronises its members and then
// keeps each busy for that member's own estimated duration, as TorchRec's
// model charges every shard its own comm time.
#pragma once

#include <memory>
#include <vector>

#include "shardlab/sim/collectives.h"
#include "shardlab/sim/event_queue.h"

namespace shardlab::sim::detail {

std::unique_ptr<Collective> make_estimate_collective(FlowNetwork& network, EventQueue& queue,
                                                     std::vector<int> members,
                                                     std::vector<double> durations_ms,
                                                     CollectiveListener* listener, int64_t tag);

}  // namespace shardlab::sim::detail
