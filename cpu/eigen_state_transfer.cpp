// The Eigen backend's trainer state to and from model::BackendState, for migration between backends.
#include <algorithm>
#include <vector>

#include "cpu/eigen_backend.hpp"
#include "data/errors.hpp"

namespace rbf::cpu {

template <typename T>
void EigenBackend<T>::export_state(BackendState<T>& st) const {
  auto copy = [](const auto& m, std::vector<T>& out) { out.assign(m.data(), m.data() + m.size()); };
  st.basis = basis_;
  copy(q_.leftCols(static_cast<Eigen::Index>(basis_)).eval(), st.q);
  copy(e_, st.e);
  st.n_norm = n_norm_;
  st.s_proj = s_proj_;
  copy(g_, st.g);
  st.used = used_;
  st.val_columns = val_columns_;
  copy(phi_val_.leftCols(static_cast<Eigen::Index>(val_columns_)).eval(), st.phi_val);
}

template <typename T>
void EigenBackend<T>::import_state(const BackendState<T>& st) {
  if (st.q.size() != n_ * st.basis || st.e.size() != n_ * k_ || st.n_norm.size() != count_ ||
      st.s_proj.size() != count_ || st.g.size() != count_ * k_ || st.used.size() != count_ ||
      st.phi_val.size() != nv_ * st.val_columns)
    throw RuntimeError("internal error: imported trainer state does not match the data");
  const auto n = static_cast<Eigen::Index>(n_);
  ensure_basis_capacity(std::max(st.basis, st.val_columns) + 1);
  basis_ = st.basis;
  q_.leftCols(static_cast<Eigen::Index>(basis_)) = Eigen::Map<const Matrix>(st.q.data(), n, static_cast<Eigen::Index>(basis_));
  e_ = Eigen::Map<const Matrix>(st.e.data(), n, static_cast<Eigen::Index>(k_));
  n_norm_ = st.n_norm;
  s_proj_ = st.s_proj;
  g_ = Eigen::Map<const Matrix>(st.g.data(), static_cast<Eigen::Index>(count_), static_cast<Eigen::Index>(k_));
  used_ = st.used;
  val_columns_ = st.val_columns;
  if (nv_ > 0 && val_columns_ > 0)
    phi_val_.leftCols(static_cast<Eigen::Index>(val_columns_)) =
        Eigen::Map<const Matrix>(st.phi_val.data(), static_cast<Eigen::Index>(nv_), static_cast<Eigen::Index>(val_columns_));
  // The projection history is not part of the portable state: CGS2 computes Q^T phi itself.
  z_columns_ = 0;
}

#define RBF_INSTANTIATE_STATE_TRANSFER(T)                              \
  template void EigenBackend<T>::export_state(BackendState<T>&) const; \
  template void EigenBackend<T>::import_state(const BackendState<T>&);
RBF_INSTANTIATE_STATE_TRANSFER(float)
RBF_INSTANTIATE_STATE_TRANSFER(double)
#undef RBF_INSTANTIATE_STATE_TRANSFER

}  // namespace rbf::cpu
