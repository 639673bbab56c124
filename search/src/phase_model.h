// The estimator of the simulated objective: a steady-state iteration as a
// chain of phases, each as long as its slowest rank (docs/optimize.md "The
// phase model").
//
// What each table puts on each rank is taken from the simulator itself: the
// first time an option is used, the traffic of a plan holding only that
// option is built with sim::TrafficBuilder (compute per rank, every
// collective's per-member bytes), and the plan's traffic is the sum of its
// options' (build_traffic sums per sharding type, so this is exact). A shard
// of a separable option contributes the part of its option's traffic on its
// own rank, so moving it moves that part.
//
// From the summed traffic, per phase:
//   compute   prefetch + forward lookups, and backward, as the largest rank's
//             sum (exact: the simulator's compute durations are these sums);
//   dense     the workload's dense forward + backward, largest rank;
//   all-to-all  per member, the time to send and to receive its messages
//             one at a time at each route's bottleneck bandwidth plus its
//             latency; the collective takes the slowest member's time (a
//             lower bound on the pairwise exchange);
//   rings     (reduce-scatter, all-gather) the bytes each member forwards
//             over its ring link; all-reduce as reduce-scatter + cross-host
//             all-reduce + all-gather.
// With overlap (the simulator's default), an iteration is
//   compute_fwd + output_dist + dense + bwd_output_dist + compute_bwd
//     + dp_allreduce,
// with max(compute_fwd, input_dist) in place of compute_fwd when the last
// simulation had the input dist on its critical path (the simulator's
// steady-state iteration is its last, which issues no input dist of its
// own); without backward for inference, and the plain sum without overlap.
// Each communication phase carries a factor fitted to the simulator's own
// durations of that phase (observe()), so the estimate follows contention,
// the pairwise exchange's waits and whatever else the simulator adds.
#pragma once

#include <memory>
#include <vector>

#include "shardlab/planner/status.h"
#include "shardlab/search/estimator.h"
#include "shardlab/search/problem.h"
#include "shardlab/sim/iteration_traffic.h"
#include "shardlab/sim/simulation.h"
#include "shardlab/sim/traffic_builder.h"

namespace shardlab::search::detail {

class PhaseModel final : public Estimator {
 public:
  static Result<std::unique_ptr<PhaseModel>> create(const Problem& problem,
                                                    const sim::SimOptions& options);
  ~PhaseModel() override;

  void add(int option, const int* ranks, double sign) override;
  void add_shard(int option, int shard, int rank, double sign) override;
  double value() override;
  int busiest_rank(Rng& rng) override;
  void observe(const Evaluation& exact) override;
  void clear() override;
  Status failure() const override { return memory_error_; }
  void checkpoint() override { ++depth_; }
  void restore() override;
  void release() override;

 private:
  // A value added to one accumulator. slot < 0: compute channel -slot-1
  // (0 prefetch, 1 forward, 2 backward) of rank `member`.
  struct Entry {
    int slot = 0;
    int field = 0;   // Field
    int member = 0;  // member index in the slot; for relative entries unused
    double value = 0.0;
  };
  enum Field { kFrom, kTo, kChunk, kBytes, kDuration };
  // What one placement unit adds: a shard of a separable option (relative
  // entries land on the shard's rank), a table-row-wise option on one host,
  // or a uniform option.
  struct Contribution {
    std::vector<Entry> fixed;
    std::vector<Entry> relative;
    std::vector<int> touches;  // slots the unit takes part in
  };
  struct OptionProbe {
    bool done = false;
    std::vector<Contribution> shards;  // separable
    std::vector<Contribution> hosts;   // table-row-wise, by host (probed lazily)
    std::vector<char> host_done;
    Contribution whole;  // uniform
  };
  struct Slot;  // a collective of the iteration (phase_model.cc)
  enum Term {
    kFwdCompute,
    kBwdCompute,
    kInputDist,
    kOutputDist,
    kBwdOutputDist,
    kDpAllreduce,
    kNumTerms
  };

  PhaseModel(const Problem& problem, const sim::SimOptions& options, sim::TrafficBuilder builder);

  Status probe(int option);
  void probe_host(int option, int host);
  Result<sim::IterationTraffic> traffic_of(int option, const std::vector<int>& ranks);
  void to_entries(const sim::IterationTraffic& traffic, int group, std::vector<Entry>* entries,
                  std::vector<int>* touches);
  int slot_of(const sim::CollectiveSpec& c, int group, int ordinal);
  void apply(const Contribution& c, int rank, double sign);
  void apply_entry(const Entry& e, int member, double sign);
  double slot_time(Slot& s);
  static double lock_step(Slot& s);
  static void resort(const std::vector<double>& value, std::vector<int>* order,
                     std::vector<int>* pos, int m);
  void raw_terms(double* terms);  // unscaled terms; sets argmax_
  double chain(const double* terms) const;
  double balance();
  static double spread(double sum1, double sum2, int n);
  // Weight of balance() in value(): small beside the chain's terms.
  static constexpr double kBalanceWeight = 0.02;

  const Problem& problem_;
  sim::SimOptions options_;
  sim::TrafficBuilder builder_;
  bool training_ = true;
  int world_ = 1;
  std::vector<double> compute_[3];
  std::vector<double> dense_;  // per rank, constant
  bool dense_known_ = false;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<OptionProbe> probes_;
  double factor_[kNumTerms];
  bool fitted_[kNumTerms];
  double terms_[kNumTerms];
  int argmax_[kNumTerms];              // rank bounding each term, -1 when none
  double unevenness_[kNumTerms] = {};  // compute terms: spread() of the ranks' loads
  // Communication terms: Σ over all-to-alls of time · spread() (running sums).
  double balance_sum_[kNumTerms] = {};
  // Per communication term, each rank's time in it (running sums), and the
  // slots whose time may have changed since they were last added.
  std::vector<double> phase_rank_[kNumTerms];
  std::vector<int> touched_;
  void list(Slot& s);
  Status error_;                // the first probe failure (then the model reports +inf)
  Status memory_error_;         // a slot that would not fit the memory budget (failure())
  bool input_on_path_ = false;  // the input dist was on the last critical path
  // Trials: slot timings as they were at each open checkpoint.
  struct Saved;
  std::vector<Saved> saved_;
  int depth_ = 0;
  void save(Slot& s);
};

}  // namespace shardlab::search::detail
