// A fast, incremental guide to an objective: the search asks it how a move
// changes the cost of a plan (thousands of times per second) and asks the
// objective itself only for the plans worth the full price.
//
// An estimator holds the contributions of the tables added to it. Adding a
// table and removing it again (sign -1) leaves it as it was, up to rounding.
// Estimates need not equal the objective; the search never reports one.
#pragma once

#include "shardlab/planner/status.h"
#include "shardlab/search/rng.h"

namespace shardlab::search {

struct Evaluation;

class Estimator {
 public:
  virtual ~Estimator() = default;

  // Adds (sign +1) or removes (sign -1) option `option` with its shards on
  // `ranks` (one per shard).
  virtual void add(int option, const int* ranks, double sign) = 0;

  // The same for one shard of a separable option (Problem::separable).
  virtual void add_shard(int option, int shard, int rank, double sign) = 0;

  // The estimated cost of the tables added so far.
  virtual double value() = 0;

  // A rank whose load sets part of value(): moving work off it may lower the
  // estimate. Drawn with `rng` among the ranks that bound its terms.
  virtual int busiest_rank(Rng& rng) = 0;

  // Trials: checkpoint(), then adds and removes, then either restore() (once
  // the caller has removed everything it added since: back to the estimate
  // of the checkpoint without recomputing it) or release() (keep the changes,
  // forget the checkpoint). Checkpoints nest. Optional: an estimator may
  // ignore all three.
  virtual void checkpoint() {}
  virtual void restore() {}
  virtual void release() {}

  // The objective's exact evaluation of the plan the estimator holds now;
  // an estimator may adjust itself to agree better (calibration).
  virtual void observe(const Evaluation& exact) { (void)exact; }

  // Removes every table (the search re-adds a plan's tables to shed the
  // rounding that many additions and removals accumulate).
  virtual void clear() = 0;

  // Set once the estimator cannot go on, its estimates meaningless from
  // then on: invalid_argument when a structure it needs would not fit the
  // memory budget (planner/memory_budget.h). The search stops with it.
  virtual Status failure() const { return Status::ok(); }
};

}  // namespace shardlab::search
