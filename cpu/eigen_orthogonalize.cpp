// CPU Gram-Schmidt of a new node against Q, reorthogonalized only when DGKS asks (CGS2).
//
// The first projection h1 = Q^T phi is already known for an unused candidate: the scoring
// passes computed z_c = q_j^T phi_c for every basis vector and kept them in the history Z.
// The rest runs over cache-sized row blocks of Q, in parallel: u_b = phi_b - Q_b h1, the
// blocks' shares of ||u||^2 and ||phi||^2, and the block's share of h2 = Q^T u in the same
// visit (Q_b is still in cache). Only when ||u|| < ||phi|| / sqrt(2) (the DGKS test,
// contracts/reorthogonalization.hpp) is the second projection applied, u -= Q h2, in
// a second visit. So Q is read from memory once per node when the first projection is
// enough and twice when it is not (one read more for an off-pool node, whose h1 is computed
// here), where it used to be read twice always.
//
// h2's shares are taken speculatively because in RBF growth most chosen columns lie largely
// in the span of Q (orthogonality_bench: about 80% of nodes project twice on Friedman #1):
// computing h2 only after the decision would cost those nodes a third read of Q, while the
// speculative shares cost in-cache arithmetic only.
//
// Block partial sums are added in block order, so the result does not depend on the thread
// count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_threads.hpp"
#include "cpu/eigen_backend.hpp"
#include "contracts/reorthogonalization.hpp"

namespace rbf::cpu {

namespace {
// Rows per block: 256 rows of up to a few hundred basis vectors stay in L2.
constexpr Eigen::Index kOrthoRows = 256;

double ordered_sum(const std::vector<double>& parts) {
  double sum = 0;
  for (double v : parts) sum += v;
  return sum;
}
}  // namespace

template <typename T>
double EigenBackend<T>::orthogonalize(std::size_t c, const Vector& phi, double tol, std::vector<double>& h) {
  const auto t1 = static_cast<Eigen::Index>(basis_);
  const auto n = static_cast<Eigen::Index>(n_);
  const Eigen::Index blocks = (n + kOrthoRows - 1) / kOrthoRows;
  const auto q = q_.leftCols(t1);
  // Each region below reads Q once: n * t1 multiply-adds.
  const int team = threads_for_work(threads_, n_ * basis_, parallel_work_);

  Matrix partial(t1, blocks);  // per-block shares of a projection, summed in block order
  Vector h1(t1);
  if (c != kNoCandidate && z_columns_ == basis_) {
    h1 = z_history_.row(static_cast<Eigen::Index>(c)).head(t1).transpose();
  } else {
#pragma omp parallel for schedule(static) num_threads(team)
    for (Eigen::Index b = 0; b < blocks; ++b) {
      const Eigen::Index r0 = b * kOrthoRows, rows = std::min(kOrthoRows, n - r0);
      partial.col(b).noalias() = q.middleRows(r0, rows).transpose() * phi.segment(r0, rows);
    }
    h1 = partial.rowwise().sum();
    if (shards_) sum_over_shards(h1.data(), static_cast<std::size_t>(t1));
  }

  // First projection u = phi - Q h1, with the norms the DGKS test needs and the blocks'
  // shares of h2 = Q^T u.
  Vector u(n);
  std::vector<double> norm_parts(static_cast<std::size_t>(blocks)), phi_parts(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static) num_threads(team)
  for (Eigen::Index b = 0; b < blocks; ++b) {
    const Eigen::Index r0 = b * kOrthoRows, rows = std::min(kOrthoRows, n - r0);
    const auto qb = q.middleRows(r0, rows);
    auto ub = u.segment(r0, rows);
    ub = phi.segment(r0, rows);
    ub.noalias() -= qb * h1;
    partial.col(b).noalias() = qb.transpose() * ub;
    norm_parts[static_cast<std::size_t>(b)] = static_cast<double>(ub.squaredNorm());
    phi_parts[static_cast<std::size_t>(b)] = static_cast<double>(phi.segment(r0, rows).squaredNorm());
  }
  double norm2 = ordered_sum(norm_parts);
  double phi2 = ordered_sum(phi_parts);

  Vector h2 = Vector::Zero(t1);
  if (shards_) {
    // The DGKS decision must be the same on every shard: it is made from the norms over all
    // rows. h2 is summed with them, in case the decision asks for it.
    for (Eigen::Index b = 0; b < blocks; ++b) h2 += partial.col(b);
    std::vector<double> sums{norm2, phi2};
    for (Eigen::Index j = 0; j < t1; ++j) sums.push_back(static_cast<double>(h2(j)));
    shards_->sum(sums.data(), sums.size());
    norm2 = sums[0];
    phi2 = sums[1];
    for (Eigen::Index j = 0; j < t1; ++j) h2(j) = static_cast<T>(sums[static_cast<std::size_t>(j) + 2]);
  }

  // Second projection, only when the first one cancelled too much of phi.
  if (model::needs_reorthogonalization(norm2, phi2)) {
    ++reorthogonalizations_;
    if (!shards_)
      for (Eigen::Index b = 0; b < blocks; ++b) h2 += partial.col(b);
#pragma omp parallel for schedule(static) num_threads(team)
    for (Eigen::Index b = 0; b < blocks; ++b) {
      const Eigen::Index r0 = b * kOrthoRows, rows = std::min(kOrthoRows, n - r0);
      auto ub = u.segment(r0, rows);
      ub.noalias() -= q.middleRows(r0, rows) * h2;
      norm_parts[static_cast<std::size_t>(b)] = static_cast<double>(ub.squaredNorm());
    }
    norm2 = ordered_sum(norm_parts);
    if (shards_) shards_->sum(&norm2, 1);
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
