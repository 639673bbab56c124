// The simulated objective: sim::simulate's steady-state iteration time.
#include <memory>
#include <utility>

#include "phase_model.h"
#include "shardlab/search/objective.h"
#include "shardlab/sim/topology_graph.h"

namespace shardlab::search {
namespace {

class SimulatedObjective final : public Objective {
 public:
  SimulatedObjective(const Problem& problem, sim::SimOptions options)
      : problem_(problem), options_(options) {
    // Phases are recorded: the estimator fits its factors to them.
    options_.record_phases = true;
  }

  std::string_view name() const override { return "simulated"; }

  Result<Evaluation> evaluate(const planner::PartitionedPlan& plan) override {
    Result<sim::SimResult> r = sim::simulate(problem_.scenario(), problem_.space(), plan, options_);
    if (!r.is_ok()) return r.status();
    Evaluation e;
    e.value = r->iteration_ms;
    e.simulation = std::make_shared<const sim::SimResult>(std::move(r).value());
    return e;
  }

  Result<std::unique_ptr<Estimator>> make_estimator() override {
    auto model = detail::PhaseModel::create(problem_, options_);
    if (!model.is_ok()) return model.status();
    return std::unique_ptr<Estimator>(std::move(model).value());
  }

 private:
  const Problem& problem_;
  sim::SimOptions options_;
};

}  // namespace

Result<std::unique_ptr<Objective>> make_simulated_objective(const Problem& problem,
                                                            sim::SimOptions options) {
  // The simulator's own checks, up front: a plan search should not find out
  // on its first evaluation that no plan can be simulated.
  auto graph = sim::TopologyGraph::build(problem.scenario().topology, problem.scenario().fabric);
  if (!graph.is_ok()) return graph.status();
  if (options.iterations < 1) {
    return Status::invalid_argument("iterations: " + std::to_string(options.iterations) +
                                    " (expected >= 1)");
  }
  return std::unique_ptr<Objective>(new SimulatedObjective(problem, options));
}

}  // namespace shardlab::search
