// CPU classical Gram-Schmidt with reorthogonalization (CGS2) of a new node against Q.
//
// The first projection h1 = Q^T phi is already known for an unused candidate: the scoring
// passes computed z_c = q_j^T phi_c for every basis vector and kept them in the history Z.
// Reusing it saves one of the four reads of Q per iteration; the second, reorthogonalizing
// pass is always computed, which is what keeps Q orthonormal in float32.
#include <cmath>

#include "model/eigen_backend.hpp"

namespace rbf::model {

template <typename T>
double EigenBackend<T>::orthogonalize(std::size_t c, const Vector& phi, double tol,
                                      std::vector<double>& h) {
  const auto t1 = static_cast<Eigen::Index>(basis_);
  const auto q = q_.leftCols(t1);
  Vector h1(t1);
  if (z_columns_ == basis_) {
    h1 = z_history_.row(static_cast<Eigen::Index>(c)).head(t1).transpose();
  } else {
    h1.noalias() = q.transpose() * phi;
  }
  Vector u = phi;
  u.noalias() -= q * h1;
  Vector h2(t1);
  h2.noalias() = q.transpose() * u;
  u.noalias() -= q * h2;

  const double norm2 = static_cast<double>(u.squaredNorm());
  const double phi2 = static_cast<double>(phi.squaredNorm());
  used_[c] = 1;
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

}  // namespace rbf::model
