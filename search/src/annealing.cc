#include <algorithm>
#include <cmath>

#include "shardlab/search/acceptance.h"

namespace shardlab::search {
namespace {

class Annealing final : public AcceptanceRule {
 public:
  Annealing(double acceptance, double max_share) : acceptance_(acceptance), max_share_(max_share) {}
  std::string_view name() const override { return "annealing"; }
  void start_cycle(double value, double typical_rise) override {
    t0_ = std::min(-typical_rise / std::log(acceptance_), max_share_ * value);
  }
  bool accept(double before, double after, double progress, Rng& rng) override {
    if (after <= before) return true;
    const double left = 1.0 - progress;
    const double t = t0_ * left * left;
    if (!(t > 0.0)) return false;
    return rng.uniform() < std::exp(-(after - before) / t);
  }

 private:
  double acceptance_;
  double max_share_;
  double t0_ = 0.0;
};

}  // namespace

std::unique_ptr<AcceptanceRule> make_annealing(double start_acceptance, double max_share) {
  return std::make_unique<Annealing>(start_acceptance, max_share);
}

}  // namespace shardlab::search
