// The CUDA backend's validation columns (one per node) and its validation predictions.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"

namespace rbf::gpu {

template <typename T>
T* CudaBackend<T>::next_validation_column() {
  if (val_columns_ + 1 > val_capacity_) {
    const std::size_t capacity = std::max(kInitialValidationColumns, 2 * val_capacity_);
    Buffer<T> grown(context_, nvpad_ * capacity, Placement::device, "the validation columns");
    if (val_columns_ > 0)
      RBF_CUDA_CHECK(cudaMemcpyAsync(grown.get(), phi_val_.get(), val_columns_ * nvpad_ * sizeof(T),
                                     cudaMemcpyDeviceToDevice, context_.stream()));
    phi_val_ = std::move(grown);
    val_capacity_ = capacity;
  }
  return phi_val_.get() + val_columns_ * nvpad_;
}

template <typename T>
void CudaBackend<T>::add_validation_column(std::size_t c) {
  context_.activate();
  require_candidates("add_validation_column");
  if (c >= candidates_)
    throw RuntimeError("gpu backend: add_validation_column(" + std::to_string(c) + ") out of range");
  if (nv_ == 0) {
    ++val_columns_;
    return;
  }
  RBF_CUDA_CHECK(launch_eval_columns(xvt_.get(), nvpad_, as_int(nv_), as_int(nvpad_),
                                     as_int(d_), centers_.get(), gamma_.get(), as_int(c), 1,
                                     next_validation_column(), nvpad_, context_.stream()));
  ++val_columns_;
}

template <typename T>
void CudaBackend<T>::add_validation_column_at(const T* center, T width) {
  context_.activate();
  require_training_data("add_validation_column_at");
  if (!(width > T(0))) throw RuntimeError("internal error: node widths must be positive");
  if (nv_ == 0) {
    ++val_columns_;
    return;
  }
  T* out = next_validation_column();
  upload_node(center, width);
  RBF_CUDA_CHECK(launch_eval_columns(xvt_.get(), nvpad_, as_int(nv_), as_int(nvpad_),
                                     as_int(d_), node_.get(), node_.get() + d_, 0, 1, out, nvpad_,
                                     context_.stream()));
  ++val_columns_;
}

template <typename T>
void CudaBackend<T>::predict_validation(const double* w, std::size_t columns,
                                        std::vector<double>& out) {
  context_.activate();
  require_training_data("predict_validation");
  if (columns > val_columns_)
    throw RuntimeError("gpu backend: predict_validation with " + std::to_string(columns) +
                       " columns but only " + std::to_string(val_columns_) + " were added");
  out.assign(nv_ * k_, 0.0);
  if (nv_ == 0) return;
  if (columns > 0) {
    if (weights_.size() < columns * k_)
      weights_ = Buffer<T>(context_, std::max(columns * k_, 2 * weights_.size()), Placement::device,
                           "the validation weights");
    if (val_out_.size() < nvpad_ * k_) {
      val_out_ = Buffer<T>(context_, nvpad_ * k_, Placement::device, "the validation predictions");
      val_out_host_ = Buffer<T>(context_, nvpad_ * k_, Placement::pinned_host, "the validation predictions");
    }
    std::vector<T> wc(columns * k_);  // column-major columns x k, bias row excluded
    for (std::size_t r = 0; r < columns; ++r)
      for (std::size_t j = 0; j < k_; ++j) wc[r + j * columns] = static_cast<T>(w[(r + 1) * k_ + j]);
    RBF_CUDA_CHECK(cudaMemcpyAsync(weights_.get(), wc.data(), wc.size() * sizeof(T),
                                   cudaMemcpyHostToDevice, context_.stream()));
    RBF_CUBLAS_CHECK(blas::gemm(context_.blas(), CUBLAS_OP_N, CUBLAS_OP_N, as_int(nvpad_),
                                as_int(k_), as_int(columns), constants_.get(), phi_val_.get(),
                                as_int(nvpad_), weights_.get(), as_int(columns),
                                constants_.get() + 1, val_out_.get(), as_int(nvpad_)));
    RBF_CUDA_CHECK(cudaMemcpyAsync(val_out_host_.host(), val_out_.get(), nvpad_ * k_ * sizeof(T),
                                   cudaMemcpyDeviceToHost, context_.stream()));
    context_.synchronize();
  }
  for (std::size_t i = 0; i < nv_; ++i)
    for (std::size_t j = 0; j < k_; ++j)
      out[i * k_ + j] = w[j] + (columns > 0 ? static_cast<double>(val_out_host_.host()[i + j * nvpad_]) : 0.0);
}

#define RBF_INSTANTIATE_VALIDATION(T)                                                                 \
  template T* CudaBackend<T>::next_validation_column();                                               \
  template void CudaBackend<T>::add_validation_column(std::size_t);                                   \
  template void CudaBackend<T>::add_validation_column_at(const T*, T);                                \
  template void CudaBackend<T>::predict_validation(const double*, std::size_t, std::vector<double>&);
RBF_INSTANTIATE_VALIDATION(float)
RBF_INSTANTIATE_VALIDATION(double)
#undef RBF_INSTANTIATE_VALIDATION

}  // namespace rbf::gpu
