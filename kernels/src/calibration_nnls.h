// Lawson and Hanson's non-negative least squares on Eigen matrices, for the
// calibration fit (calibration_fit.cc) and the public nnls(). Private to the
// kernels library: Eigen stays out of its headers.
#pragma once

#include <Eigen/Dense>

namespace shardlab::kernels::internal {

// The x >= 0 minimising ||a·x - b||₂. Returns false when the active set has
// not settled within 3·cols + 30 steps (x then holds the last feasible point).
// REQUIRES: a.rows() == b.size(); every value finite.
bool nnls_solve(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, Eigen::VectorXd* x);

}  // namespace shardlab::kernels::internal
