// Acceptance rules: whether the search keeps a change, given the estimate
// before and after it and how far the current cycle has gone.
// A new rule is one implementation of this interface.
#pragma once

#include <memory>
#include <string_view>

#include "shardlab/search/rng.h"

namespace shardlab::search {

class AcceptanceRule {
 public:
  virtual ~AcceptanceRule() = default;
  virtual std::string_view name() const = 0;
  // A cycle starts from a plan whose estimate is `value`; `typical_rise` is
  // a typical rise of the estimate over moves sampled from that plan (0
  // when none rose).
  virtual void start_cycle(double value, double typical_rise) = 0;
  // Keep a change from `before` to `after`? `progress` in [0, 1) is the share
  // of the cycle's moves done. Draws from `rng` only when it needs to.
  virtual bool accept(double before, double after, double progress, Rng& rng) = 0;
};

// Simulated annealing: always keeps changes that do not raise the estimate,
// and a rise d with probability exp(-d / T), T falling quadratically over
// the cycle to 0 from the temperature at which a typical rise is kept with
// probability `start_acceptance` (at most `max_share` of the estimate).
std::unique_ptr<AcceptanceRule> make_annealing(double start_acceptance = 0.05,
                                               double max_share = 0.003);

// Keeps only changes that do not raise the estimate (hill climbing).
std::unique_ptr<AcceptanceRule> make_descent();

}  // namespace shardlab::search
