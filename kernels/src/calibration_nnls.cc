// Lawson-Hanson active-set NNLS (Solving Least Squares Problems, 1974, ch. 23).
//
// Invariants of the loop: x is feasible (x >= 0) and zero outside the passive
// set P; each outer step moves the column with the largest positive gradient
// w = Aᵀ(b - A·x) into P, and the inner loop walks from x toward the
// unconstrained solution on P, dropping columns that would turn negative,
// until that solution is strictly positive on P.
#include "calibration_nnls.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "shardlab/kernels/calibration.h"

namespace shardlab::kernels {
namespace internal {
namespace {

// Least squares on the passive columns; zero elsewhere.
Eigen::VectorXd solve_passive(const Eigen::MatrixXd& a, const Eigen::VectorXd& b,
                              const std::vector<bool>& passive) {
  std::vector<Eigen::Index> cols;
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    if (passive[static_cast<size_t>(j)]) cols.push_back(j);
  }
  Eigen::MatrixXd ap(a.rows(), static_cast<Eigen::Index>(cols.size()));
  for (size_t k = 0; k < cols.size(); ++k) ap.col(static_cast<Eigen::Index>(k)) = a.col(cols[k]);
  const Eigen::VectorXd zp = ap.colPivHouseholderQr().solve(b);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(a.cols());
  for (size_t k = 0; k < cols.size(); ++k) z(cols[k]) = zp(static_cast<Eigen::Index>(k));
  return z;
}

}  // namespace

bool nnls_solve(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, Eigen::VectorXd* x_out) {
  const Eigen::Index n = a.cols();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<bool> passive(static_cast<size_t>(n), false);
  // Gradients below this count as zero: relative to the problem's own scale.
  double scale = 1.0;
  if (a.size() > 0) scale = std::max(scale, a.cwiseAbs().maxCoeff());
  if (b.size() > 0) scale = std::max(scale, b.cwiseAbs().maxCoeff());
  const double tol =
      1e-12 * scale * scale * static_cast<double>(std::max<Eigen::Index>(a.rows(), n));
  const int max_steps = 3 * static_cast<int>(n) + 30;
  int steps = 0;

  // A column that entered P and left it again at once without moving x
  // (rounding made its step non-positive) cannot improve this x: it waits
  // until x moves, so the loop cannot cycle on it.
  std::vector<bool> blocked(static_cast<size_t>(n), false);

  Eigen::VectorXd w = a.transpose() * (b - a * x);
  while (true) {
    Eigen::Index t = -1;
    for (Eigen::Index j = 0; j < n; ++j) {
      const auto u = static_cast<size_t>(j);
      if (!passive[u] && !blocked[u] && w(j) > tol && (t < 0 || w(j) > w(t))) t = j;
    }
    if (t < 0) break;  // Kuhn-Tucker conditions hold
    passive[static_cast<size_t>(t)] = true;
    while (true) {
      if (++steps > max_steps) {
        *x_out = x;
        return false;
      }
      const Eigen::VectorXd z = solve_passive(a, b, passive);
      bool positive = true;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[static_cast<size_t>(j)] && z(j) <= 0.0) positive = false;
      }
      if (positive) {
        if (z != x) std::fill(blocked.begin(), blocked.end(), false);
        x = z;
        break;
      }
      // Step from x toward z as far as feasibility allows (x >= 0 >= z on
      // these columns, so each ratio lies in [0, 1]).
      double alpha = 1.0;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[static_cast<size_t>(j)] && z(j) <= 0.0) {
          const double gap = x(j) - z(j);
          alpha = std::min(alpha, gap > 0.0 ? x(j) / gap : 0.0);
        }
      }
      if (alpha > 0.0) {
        x += alpha * (z - x);
        std::fill(blocked.begin(), blocked.end(), false);
      } else if (x(t) == 0.0 && z(t) <= 0.0) {
        blocked[static_cast<size_t>(t)] = true;
      }
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[static_cast<size_t>(j)] && x(j) <= 0.0) {
          passive[static_cast<size_t>(j)] = false;
          x(j) = 0.0;
        }
      }
      if (std::none_of(passive.begin(), passive.end(), [](bool p) { return p; })) break;
    }
    w = a.transpose() * (b - a * x);
  }
  *x_out = x;
  return true;
}

}  // namespace internal

Result<std::vector<double>> nnls(const std::vector<double>& a, int rows, int cols,
                                 const std::vector<double>& b) {
  if (rows < 0 || cols < 0 || a.size() != static_cast<size_t>(rows) * static_cast<size_t>(cols) ||
      b.size() != static_cast<size_t>(rows)) {
    return Status::invalid_argument("nnls: A has " + std::to_string(a.size()) + " values and b " +
                                    std::to_string(b.size()) + ", expected " +
                                    std::to_string(rows) + "x" + std::to_string(cols) + " and " +
                                    std::to_string(rows));
  }
  const auto finite = [](double v) { return std::isfinite(v); };
  if (!std::all_of(a.begin(), a.end(), finite) || !std::all_of(b.begin(), b.end(), finite)) {
    return Status::invalid_argument("nnls: A and b must be finite");
  }
  Eigen::MatrixXd am(rows, cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      am(i, j) = a[static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j)];
    }
  }
  const Eigen::VectorXd bv = Eigen::Map<const Eigen::VectorXd>(b.data(), rows);
  Eigen::VectorXd x;
  if (!internal::nnls_solve(am, bv, &x)) {
    return Status::internal("nnls: the active set did not settle within " +
                            std::to_string(3 * cols + 30) + " steps");
  }
  return std::vector<double>(x.data(), x.data() + x.size());
}

}  // namespace shardlab::kernels
