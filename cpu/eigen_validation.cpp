// The Eigen backend's validation columns (one per node) and its validation predictions.
#include <algorithm>
#include <vector>

#include "cpu/eigen_backend.hpp"
#include "data/errors.hpp"
#include "contracts/gaussian_columns.hpp"

namespace rbf::cpu {

using model::gaussian_block;
using model::gaussian_gamma;
using model::kRowBlock;

template <typename T>
void EigenBackend<T>::add_validation_column(std::size_t c) {
  if (c >= count_) throw RuntimeError("internal error: add_validation_column out of range");
  add_validation_column_with(&centers_[c * d_], gamma_[c]);
}

template <typename T>
void EigenBackend<T>::add_validation_column_at(const T* center, T width) {
  add_validation_column_with(center, gaussian_gamma(width));
}

template <typename T>
void EigenBackend<T>::add_validation_column_with(const T* center, T gamma) {
  ensure_basis_capacity(val_columns_ + 2);
  if (nv_ > 0) {
    auto col = phi_val_.col(static_cast<Eigen::Index>(val_columns_));
    std::vector<T> acc(std::min(kRowBlock, nv_));
    for (std::size_t r0 = 0; r0 < nv_; r0 += kRowBlock) {
      const std::size_t rows = std::min(kRowBlock, nv_ - r0);
      gaussian_block(x_val_.data(), nv_, d_, center, gamma, r0, rows, col.data() + r0, acc.data());
    }
  }
  ++val_columns_;
}

template <typename T>
void EigenBackend<T>::predict_validation(const double* w, std::size_t columns,
                                         std::vector<double>& out) {
  if (columns > val_columns_) throw RuntimeError("internal error: too few validation columns");
  out.assign(nv_ * k_, 0.0);
  if (nv_ == 0) return;
  using RowMajorD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const RowMajorD> weights(w, static_cast<Eigen::Index>(columns + 1), static_cast<Eigen::Index>(k_));
  Eigen::Map<RowMajorD> result(out.data(), static_cast<Eigen::Index>(nv_), static_cast<Eigen::Index>(k_));
  const Matrix wt = weights.bottomRows(static_cast<Eigen::Index>(columns)).template cast<T>();
  Matrix p = phi_val_.leftCols(static_cast<Eigen::Index>(columns)) * wt;
  result = p.template cast<double>();
  result.rowwise() += weights.row(0);
}

#define RBF_INSTANTIATE_VALIDATION(T)                                                                  \
  template void EigenBackend<T>::add_validation_column(std::size_t);                                   \
  template void EigenBackend<T>::add_validation_column_at(const T*, T);                                \
  template void EigenBackend<T>::add_validation_column_with(const T*, T);                              \
  template void EigenBackend<T>::predict_validation(const double*, std::size_t, std::vector<double>&);
RBF_INSTANTIATE_VALIDATION(float)
RBF_INSTANTIATE_VALIDATION(double)
#undef RBF_INSTANTIATE_VALIDATION

}  // namespace rbf::cpu
