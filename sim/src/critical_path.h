// The critical path of the last iteration (docs/simulation.md "Reading the
// summary"): one chain of steps, in time order, that tiles the window from
// the end of the previous iteration (0 with one iteration) to the end of the
// last one. Shortening a step shortens the iteration unless another chain
// takes over; shortening anything off the path does not.
//
// The walk starts at the task that ends last (ties: the lowest rank, then the
// earliest task) and goes back in time. A step covers the interval from what
// let it run to where the step after it needed it:
//  - A compute phase runs from its start to its end, or only up to the point
//    where the next step could begin: the dense backward makes DDP's buckets
//    and, with workload.dense, the embedding gradients ready partway through.
//  - A comm phase is walked back one collective at a time from the end of the
//    rank's part. When a peer joined that collective later than this rank,
//    the step moves to the peer: the collective is listed once, as the late
//    peer's part, from when the peer joined. Otherwise it runs from when this
//    rank joined. A join came after the rank's previous collective of the
//    phase, after the bucket became ready within the anchor (the path goes on
//    to the anchor), or when the phase started.
//  - What let a phase start: the later-ending of its stream's previous phase
//    and its inputs (ties: the stream's previous phase, then the first input),
//    or the start of the phase it is anchored at, if that came later.
// Adjacent parts on the same rank and phase form one step. Each step starts
// where the one before it ended, the first at the start of the window (a
// phase that began earlier, such as an input dist run under the previous
// iteration, is cut there) and the last at the end of the iteration, so the
// steps' durations add up to the window. Zero-length parts are walked
// through, not listed. Deterministic: the same simulation gives the same path.
#pragma once

#include <vector>

#include "executor.h"
#include "schedule.h"
#include "shardlab/sim/simulation.h"

namespace shardlab::sim::detail {

// `window_start`: the end of the iteration before `last_iteration` (0 for the
// first). The executor keeps the joins of the last iteration only.
std::vector<CriticalStep> critical_path(const Schedule& schedule, const Executor& executor,
                                        int ranks, int last_iteration, double window_start);

}  // namespace shardlab::sim::detail
