#include "shardlab/search/acceptance.h"

namespace shardlab::search {
namespace {

class Descent final : public AcceptanceRule {
 public:
  std::string_view name() const override { return "descent"; }
  void start_cycle(double, double) override {}
  bool accept(double before, double after, double, Rng&) override { return after <= before; }
};

}  // namespace

std::unique_ptr<AcceptanceRule> make_descent() { return std::make_unique<Descent>(); }

}  // namespace shardlab::search
