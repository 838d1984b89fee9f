// CPU classical Gram-Schmidt with reorthogonalization (CGS2) of a new node against Q.
//
// The first projection h1 = Q^T phi is already known for an unused candidate: the scoring
// passes computed z_c = q_j^T phi_c for every basis vector and kept them in the history Z.
// The rest runs over cache-sized row blocks of Q, in parallel: u_b = phi_b - Q_b h1 and the
// block's share of h2 = Q^T u in the same visit (Q_b is still in cache), then u -= Q h2.
// So Q is read from memory twice per node instead of four times. Block partial sums are
// added in block order, so the result does not depend on the thread count.
#include <algorithm>
#include <cmath>

#include "cpu/eigen_backend.hpp"

namespace rbf::cpu {

namespace {
// Rows per block: 256 rows of up to a few hundred basis vectors stay in L2.
constexpr Eigen::Index kOrthoRows = 256;
}  // namespace

template <typename T>
double EigenBackend<T>::orthogonalize(std::size_t c, const Vector& phi, double tol, std::vector<double>& h) {
  const auto t1 = static_cast<Eigen::Index>(basis_);
  const auto n = static_cast<Eigen::Index>(n_);
  const Eigen::Index blocks = (n + kOrthoRows - 1) / kOrthoRows;
  const auto q = q_.leftCols(t1);
  Matrix partial(t1, blocks);  // per-block shares of a projection, summed in block order

  Vector h1(t1);
  if (c != kNoCandidate && z_columns_ == basis_) {
    h1 = z_history_.row(static_cast<Eigen::Index>(c)).head(t1).transpose();
  } else {
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (Eigen::Index b = 0; b < blocks; ++b) {
      const Eigen::Index r0 = b * kOrthoRows, rows = std::min(kOrthoRows, n - r0);
      partial.col(b).noalias() = q.middleRows(r0, rows).transpose() * phi.segment(r0, rows);
    }
    h1 = partial.rowwise().sum();
  }

  Vector u(n);
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (Eigen::Index b = 0; b < blocks; ++b) {
    const Eigen::Index r0 = b * kOrthoRows, rows = std::min(kOrthoRows, n - r0);
    const auto qb = q.middleRows(r0, rows);
    auto ub = u.segment(r0, rows);
    ub = phi.segment(r0, rows);
    ub.noalias() -= qb * h1;
    partial.col(b).noalias() = qb.transpose() * ub;
  }
  Vector h2 = Vector::Zero(t1);
  for (Eigen::Index b = 0; b < blocks; ++b) h2 += partial.col(b);

  std::vector<double> norm_parts(static_cast<std::size_t>(blocks)), phi_parts(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static) num_threads(threads_)
  for (Eigen::Index b = 0; b < blocks; ++b) {
    const Eigen::Index r0 = b * kOrthoRows, rows = std::min(kOrthoRows, n - r0);
    auto ub = u.segment(r0, rows);
    ub.noalias() -= q.middleRows(r0, rows) * h2;
    norm_parts[static_cast<std::size_t>(b)] = static_cast<double>(ub.squaredNorm());
    phi_parts[static_cast<std::size_t>(b)] = static_cast<double>(phi.segment(r0, rows).squaredNorm());
  }
  double norm2 = 0, phi2 = 0;
  for (Eigen::Index b = 0; b < blocks; ++b) {
    norm2 += norm_parts[static_cast<std::size_t>(b)];
    phi2 += phi_parts[static_cast<std::size_t>(b)];
  }

  if (c != kNoCandidate) used_[c] = 1;
  h.assign(static_cast<std::size_t>(t1), 0.0);
  if (!(norm2 > tol * phi2)) return 0.0;  // dependent on the model: Q unchanged

  for (Eigen::Index j = 0; j < t1; ++j) h[static_cast<std::size_t>(j)] = static_cast<double>(h1(j) + h2(j));
  ensure_basis_capacity(basis_ + 1);
  const double norm = std::sqrt(norm2);
  q_.col(t1) = u / static_cast<T>(norm);
  ++basis_;
  return norm;
}

template double EigenBackend<float>::orthogonalize(std::size_t, const Vector&, double, std::vector<double>&);
template double EigenBackend<double>::orthogonalize(std::size_t, const Vector&, double, std::vector<double>&);

}  // namespace rbf::cpu
