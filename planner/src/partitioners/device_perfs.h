// Accumulated perf of every device, one array per Perf component. Private to
// the partitioners.
//
// The host strategy adds the same shard perf to a whole host's devices,
// hundreds of thousands of times per plan; with one array per component
// those additions (and the totals after them) are element-wise loops the
// compiler turns into vector instructions. Every device still sees exactly
// Perf's additions in the same order, so the sums are bit-identical.
#pragma once

#include <vector>

#include "shardlab/planner/types.h"

namespace shardlab::planner {

class DevicePerfs {
 public:
  // n devices, each holding `p`.
  void assign(int n, const Perf& p) {
    fwd_compute_.assign(n, p.fwd_compute);
    fwd_comms_.assign(n, p.fwd_comms);
    bwd_compute_.assign(n, p.bwd_compute);
    bwd_comms_.assign(n, p.bwd_comms);
    prefetch_compute_.assign(n, p.prefetch_compute);
  }

  int size() const { return static_cast<int>(fwd_compute_.size()); }

  Perf get(int r) const {
    return Perf{fwd_compute_[r], fwd_comms_[r], bwd_compute_[r], bwd_comms_[r],
                prefetch_compute_[r]};
  }

  // Perf::total() of device r.
  double total(int r) const {
    return (((fwd_compute_[r] + bwd_compute_[r]) + fwd_comms_[r]) + bwd_comms_[r]) +
           prefetch_compute_[r];
  }

  // Adds `p` to devices [begin, begin + n) and writes their new totals to
  // totals[begin .. begin + n).
  void add(int begin, int n, const Perf& p, double* totals) {
    add_kernel(fwd_compute_.data() + begin, fwd_comms_.data() + begin, bwd_compute_.data() + begin,
               bwd_comms_.data() + begin, prefetch_compute_.data() + begin, totals + begin, n,
               p.fwd_compute, p.fwd_comms, p.bwd_compute, p.bwd_comms, p.prefetch_compute);
  }

 private:
  // GCC honours `restrict` on parameters (not on local pointers): with it
  // the loop vectorizes. The perf components come by value since a Perf
  // reference could alias the arrays.
  static void add_kernel(double* __restrict fc, double* __restrict fm, double* __restrict bc,
                         double* __restrict bm, double* __restrict pc, double* __restrict t, int n,
                         double pfc, double pfm, double pbc, double pbm, double ppc) {
    for (int i = 0; i < n; ++i) {
      const double a = fc[i] + pfc, b = fm[i] + pfm, c = bc[i] + pbc, d = bm[i] + pbm,
                   e = pc[i] + ppc;
      fc[i] = a;
      fm[i] = b;
      bc[i] = c;
      bm[i] = d;
      pc[i] = e;
      t[i] = (((a + c) + b) + d) + e;  // Perf::total()'s order
    }
  }

  std::vector<double> fwd_compute_;
  std::vector<double> fwd_comms_;
  std::vector<double> bwd_compute_;
  std::vector<double> bwd_comms_;
  std::vector<double> prefetch_compute_;
};

}  // namespace shardlab::planner
