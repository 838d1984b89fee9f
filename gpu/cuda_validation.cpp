// The CUDA backend's validation columns (one per node) and its validation predictions.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gaussian_column_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/vector_kernels.hpp"

namespace rbf::gpu {

template <typename T>
void CudaBackend<T>::ensure_validation_capacity(std::size_t columns) {
  if (columns <= val_capacity_) return;
  Buffer<T> grown(context_, nvpad_ * columns, Placement::device, "the validation columns");
  if (val_columns_ > 0)
    RBF_CUDA_CHECK(cudaMemcpyAsync(grown.get(), phi_val_.get(), val_columns_ * nvpad_ * sizeof(T),
                                   cudaMemcpyDeviceToDevice, context_.stream()));
  phi_val_ = std::move(grown);
  val_capacity_ = columns;
}

template <typename T>
T* CudaBackend<T>::next_validation_column() {
  if (val_columns_ + 1 > val_capacity_) {
    // Doubling, but never past the growth's planned size (reserve_nodes) once it is reached.
    std::size_t capacity = std::max(kInitialValidationColumns, 2 * val_capacity_);
    if (planned_columns_ > val_columns_) capacity = std::min(capacity, planned_columns_);
    ensure_validation_capacity(capacity);
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
void CudaBackend<T>::queue_validation_predictions(const double* w, std::size_t columns) {
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
    queue_validation_predictions(w, columns);
    RBF_CUDA_CHECK(cudaMemcpyAsync(val_out_host_.host(), val_out_.get(), nvpad_ * k_ * sizeof(T),
                                   cudaMemcpyDeviceToHost, context_.stream()));
    context_.synchronize();
  }
  for (std::size_t i = 0; i < nv_; ++i)
    for (std::size_t j = 0; j < k_; ++j)
      out[i * k_ + j] = w[j] + (columns > 0 ? static_cast<double>(val_out_host_.host()[i + j * nvpad_]) : 0.0);
}

template <typename T>
void CudaBackend<T>::set_validation_targets(const model::ValidationTargets& targets) {
  context_.activate();
  require_training_data("set_validation_targets");
  val_target_.release();
  if (nv_ == 0 || sharded()) return;  // a shard's rows are scored by the group, on the host
  if (targets.target.size() != nv_ * k_ || targets.error_weight.size() != k_ ||
      (!targets.class_offset.empty() && targets.class_offset.size() != nv_ * k_) ||
      (!targets.classes.empty() && targets.classes.size() != nv_) ||
      (!targets.row_weight.empty() && targets.row_weight.size() != nv_))
    throw RuntimeError("internal error: validation targets of the wrong size");
  const cudaStream_t stream = context_.stream();
  auto upload = [&](auto& buffer, const auto& values, const char* what) {
    using V = typename std::decay_t<decltype(values)>::value_type;
    buffer.release();
    if (values.empty()) return;
    buffer = std::decay_t<decltype(buffer)>(context_, values.size(), Placement::device, what);
    RBF_CUDA_CHECK(cudaMemcpyAsync(buffer.get(), values.data(), values.size() * sizeof(V),
                                   cudaMemcpyHostToDevice, stream));
  };
  upload(val_weight_, targets.error_weight, "the validation error weights");
  upload(val_offset_, targets.class_offset, "the validation class offsets");
  upload(val_classes_, targets.classes, "the validation classes");
  upload(val_row_weight_, targets.row_weight, "the validation row weights");
  if (val_bias_.size() < k_) val_bias_ = Buffer<double>(context_, k_, Placement::device, "the validation bias");
  upload(val_target_, targets.target, "the validation targets");  // last: set means complete
  context_.synchronize();  // the host vectors may go once this returns
}

template <typename T>
bool CudaBackend<T>::validation_sums(const double* w, std::size_t columns, model::ValidationSums& sums) {
  context_.activate();
  require_training_data("validation_sums");
  if (val_target_.empty()) return false;
  if (columns > val_columns_)
    throw RuntimeError("gpu backend: validation_sums with " + std::to_string(columns) +
                       " columns but only " + std::to_string(val_columns_) + " were added");
  const cudaStream_t stream = context_.stream();
  if (columns > 0) queue_validation_predictions(w, columns);
  RBF_CUDA_CHECK(cudaMemcpyAsync(val_bias_.get(), w, k_ * sizeof(double), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(launch_validation_sums<T>(columns > 0 ? val_out_.get() : nullptr, nvpad_, as_int(nv_), as_int(k_),
                                           val_bias_.get(), val_target_.get(), val_weight_.get(),
                                           val_offset_.empty() ? nullptr : val_offset_.get(),
                                           val_classes_.empty() ? nullptr : val_classes_.get(),
                                           val_row_weight_.empty() ? nullptr : val_row_weight_.get(), scratch(),
                                           results_.get(), stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(results_host_.host() + kValidationSse, results_.get() + kValidationSse,
                                 2 * sizeof(double), cudaMemcpyDeviceToHost, stream));
  context_.synchronize();
  sums.weighted_sse = results_host_.host()[kValidationSse];
  sums.correct = results_host_.host()[kValidationCorrect];
  return true;
}

#define RBF_INSTANTIATE_VALIDATION(T)                                                                 \
  template T* CudaBackend<T>::next_validation_column();                                               \
  template void CudaBackend<T>::ensure_validation_capacity(std::size_t);                              \
  template void CudaBackend<T>::add_validation_column(std::size_t);                                   \
  template void CudaBackend<T>::add_validation_column_at(const T*, T);                                \
  template void CudaBackend<T>::predict_validation(const double*, std::size_t, std::vector<double>&);       \
  template void CudaBackend<T>::queue_validation_predictions(const double*, std::size_t);              \
  template void CudaBackend<T>::set_validation_targets(const model::ValidationTargets&);               \
  template bool CudaBackend<T>::validation_sums(const double*, std::size_t, model::ValidationSums&);
RBF_INSTANTIATE_VALIDATION(float)
RBF_INSTANTIATE_VALIDATION(double)
#undef RBF_INSTANTIATE_VALIDATION

}  // namespace rbf::gpu
