// The CUDA scoring passes over Phi_C (reset_to_bias, update) and the selections they queue.
//
// Each pass reads every stored candidate column once, or computes z without Phi_C
// (cuda_matrix_free_pass.cpp), then updates the candidate statistics and queues the next
// selection with the last request's parameters, so the following select_*() usually returns
// without touching the device.
#include <algorithm>
#include <cmath>
#include <vector>

#include "gpu/candidate_kernels.hpp"
#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gaussian_column_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/vector_kernels.hpp"

namespace rbf::gpu {

template <typename T>
void CudaBackend<T>::evaluate_columns(std::size_t first, std::size_t count, T* out) const {
  RBF_CUDA_CHECK(launch_eval_columns(xt_.get(), npad_, as_int(n_), as_int(npad_), as_int(d_),
                                     centers_.get(), gamma_.get(), as_int(first), as_int(count),
                                     out, npad_, context_.stream(), row_scale()));
}

template <typename T>
void CudaBackend<T>::evaluate_stored_columns() {
  // About 2^30 multiply-adds per slice: milliseconds on any GPU, so the waits cost nothing.
  const double per_column = static_cast<double>(npad_) * static_cast<double>(d_ + 1);
  const std::size_t slice = std::max<std::size_t>(1, static_cast<std::size_t>(1073741824.0 / per_column));
  for (std::size_t first = 0; first < candidates_ && !setup_stopped(); first += slice) {
    evaluate_columns(first, std::min(slice, candidates_ - first), phi_.get() + first * npad_);
    context_.synchronize();
  }
}

template <typename T>
const T* CudaBackend<T>::candidate_column(std::size_t c) {
  if (stored_) return phi_.get() + c * npad_;
  const bool ready = column_ahead_ == c;  // evaluated by add_and_update while it waited
  column_ahead_ = kNoColumn;
  if (!ready) evaluate_columns(c, 1, column_.get());
  return column_.get();
}

template <typename T>
void CudaBackend<T>::reset_to_bias(std::vector<double>& a) {
  context_.activate();
  require_candidates("reset_to_bias");
  const cudaStream_t stream = context_.stream();
  const cublasHandle_t blas = context_.blas();
  const T* one = constants_.get();
  const T* zero = constants_.get() + 1;
  const int npad = as_int(npad_), k = as_int(k_);

  nodes_ = 0;
  pending_ = false;  // the basis starts over
  val_columns_ = 0;  // validation columns belong to the nodes, which start over
  selection_ready_ = false;
  a_ready_ = false;
  T* q0 = basis_column(0);
  // Normalized over all rows (a shard holds some of them). Weighted, the bias column is s,
  // whose squares sum to the rows (Backend::set_row_scale).
  const double q0_value = 1.0 / std::sqrt(static_cast<double>(total_rows()));
  RBF_CUDA_CHECK(launch_fill_prefix(q0, npad, as_int(n_), static_cast<T>(q0_value), stream, row_scale()));
  if (compact_) store_basis_column(0);  // q0 becomes its decoded code, as every column
  basis_set_ = true;
  // E = Y - q0 (q0^T Y), with ||E||^2 and a = q0^T Y in the results.
  RBF_CUDA_CHECK(cudaMemcpyAsync(e_.get(), y_.get(), npad_ * k_ * sizeof(T), cudaMemcpyDefault, stream));
  RBF_CUBLAS_CHECK(blas::gemv(blas, CUBLAS_OP_T, npad, k, one, e_.get(), npad, q0, zero, a_.get()));
  sum_over_shards(a_.get(), k_);
  RBF_CUDA_CHECK(launch_residual_update(e_.get(), npad_, npad, k, q0, a_.get(), scratch(),
                                        results_.get(), stream));
  // One pass over Phi_C: q0^T phi_c, phi_c^T E and ||phi_c||^2; without a stored Phi_C,
  // fused passes when there are few outputs. Skipped when set-up is to stop (set_candidates
  // may have stopped half-way); `a` is still computed.
  if (!setup_stopped() && (stored_ || !matrix_free_reset())) reset_from_columns(q0);
  dependents_marked_ = false;
  std::fill(used_host_.begin(), used_host_.end(), 0);
  history_columns_ = 1;
  if (device_selects()) {
    prepare_request(last_request_);
    queue_selection(last_request_);
  }
  copy_results_back(kResultA + k_);
  residual_norm2_ = results_host_.host()[kResidualNorm2];
  a.assign(results_host_.host() + kResultA, results_host_.host() + kResultA + k_);
  if (device_selects()) {
    ready_selection_ = read_selection();
    selection_ready_ = true;
  }
}

template <typename T>
void CudaBackend<T>::reset_from_columns(const T* q0) {
  const cudaStream_t stream = context_.stream();
  const cublasHandle_t blas = context_.blas();
  const T* one = constants_.get();
  const T* zero = constants_.get() + 1;
  const int npad = as_int(npad_), k = as_int(k_);
  const int ldg = as_int(candidates_);
  const bool whole = for_each_tile([&](const T* block, std::size_t first, std::size_t count) {
    const int cols = as_int(count);
    RBF_CUBLAS_CHECK(blas::gemv(blas, CUBLAS_OP_T, npad, cols, one, block, npad, q0, zero,
                                gq_.get() + first));
    RBF_CUBLAS_CHECK(blas::gemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, cols, k, npad, one, block, npad,
                                e_.get(), npad, zero, gq_.get() + candidates_ + first, ldg));
    RBF_CUDA_CHECK(launch_score_partials<T>(block, npad_, as_int(first), cols, nullptr,
                                            partition_, nullptr, partial_.get(), ldg,
                                            FusedResidual<T>{nullptr, 0, 0, nullptr, nullptr},
                                            stream));
  }, /*setup=*/true);
  if (!whole) return;  // stopped: the statistics stay incomplete (the backend is only destroyed)
  finish_reset(partial_.get(), partition_.splits);
}

template <typename T>
double CudaBackend<T>::update(bool statistics, std::vector<double>& a) {
  context_.activate();
  require_candidates("update");
  const cudaStream_t stream = context_.stream();
  const int npad = as_int(npad_), k = as_int(k_);
  const T* q = basis_column(nodes_);
  // Lazy CGS2 left column nodes_ unfinished: the pass reads its u and corrects z from the
  // history (complete up to this column), and E's update waits for the next CGS pass.
  const bool lazy = pending_ && statistics && history_columns_ == nodes_ && last_request_.mode != kSelectMaxResidual;
  if (pending_ && !lazy) settle_basis();
  // a from add_node is lazy CGS2's: E -= q a^T is left to the next CGS pass, or settle_basis()
  // did it. Otherwise (row shards, many outputs) a = q^T E and the update are made here.
  if (!a_ready_) {
    RBF_CUBLAS_CHECK(blas::gemv(context_.blas(), CUBLAS_OP_T, npad, k, constants_.get(), e_.get(),
                                npad, q, constants_.get() + 1, a_.get()));
    sum_over_shards(a_.get(), k_);
    RBF_CUDA_CHECK(launch_residual_update(e_.get(), npad_, npad, k, q, static_cast<const T*>(a_.get()), scratch(),
                                          results_.get(), stream));
  }
  a_ready_ = false;
  selection_ready_ = false;
  if (statistics) {
    History<T> column = history(nodes_);
    if (lazy) {
      column.g = h_.get() + basis_capacity_;
      column.norm = results_.get() + kNormU;
    }
    queue_statistics(q, column);
    if (history_columns_ == nodes_) history_columns_ = nodes_ + 1;
  }
  copy_results_back(kResultA + k_);
  const double* results = results_host_.host();
  a.assign(results + kResultA, results + kResultA + k_);
  if (statistics && device_selects()) {
    ready_selection_ = read_selection();
    selection_ready_ = true;
  }
  if (lazy) return lazy_residual_norm2(a);
  double sse = results[kResidualNorm2];
  if (sharded()) shards_->sum(&sse, 1);
  residual_norm2_ = sse;
  return sse;
}

template <typename T>
double CudaBackend<T>::lazy_residual_norm2(const std::vector<double>& a) {
  // ||E - q a^T||^2 = ||E||^2 - ||a||^2 with a = E^T q; E itself is updated later.
  for (double v : a) residual_norm2_ -= v * v;
  residual_norm2_ = std::max(0.0, residual_norm2_);
  return residual_norm2_;
}

template <typename T>
void CudaBackend<T>::queue_statistics(const T* q, const History<T>& column) {
  const cudaStream_t stream = context_.stream();
  const int ps = as_int(candidates_);
  int splits = partition_.splits;
  if (stored_) {
    RBF_CUDA_CHECK(launch_score_partials<T>(phi_.get(), npad_, 0, ps, q, partition_, used_.get(), partial_.get(), ps,
                                            FusedResidual<T>{nullptr, 0, 0, nullptr, nullptr}, stream));
  } else {
    matrix_free_pass(q, partial_.get(), nullptr);
    splits = free_plan_.splits;
  }
  const T* z = partial_.get();
  if (sharded()) {  // z = Phi_C^T q over every shard's rows
    T* sums = shard_sums();
    RBF_CUDA_CHECK(launch_sum_splits(partial_.get(), splits, ps, sums, stream));
    sum_over_shards(sums, candidates_);
    z = sums;
    splits = 1;
  }
  // The statistics update and the next selection (speculatively, with the last request's
  // parameters) in one kernel, so the next select_*() needs no device round trip.
  prepare_request(last_request_);
  SelectRequest request = last_request_;
  if (!device_selects()) request.mode = kSelectNone;
  RBF_CUDA_CHECK(launch_finish_update<T>(stats(), z, splits, results_.get() + kResultA, column, request, e_.get(),
                                         npad_, rows_.get(), nullptr, scratch(),
                                         results_.get(), stream));
}

template <typename T>
CandidateStats CudaBackend<T>::stats() const {
  return CandidateStats{as_int(candidates_), as_int(k_), norm2_.get(), proj2_.get(), g_.get(),
                        used_.get()};
}

template <typename T>
History<T> CudaBackend<T>::history(std::size_t column) const {
  return History<T>{history_.get(), basis_capacity_, as_int(column)};
}

template <typename T>
ReduceScratch CudaBackend<T>::scratch() const {
  return ReduceScratch{reduce_values_.get(), reduce_indices_.get(), tickets_.get()};
}

template <typename T>
void CudaBackend<T>::copy_results_back(std::size_t count) {
  RBF_CUDA_CHECK(cudaMemcpyAsync(results_host_.host(), results_.get(), count * sizeof(double),
                                 cudaMemcpyDeviceToHost, context_.stream()));
  context_.synchronize();
}

template <typename T>
model::Selection CudaBackend<T>::read_selection() const {
  model::Selection s;
  const double index = results_host_.host()[kSelectedIndex];
  if (index >= 0.0) {
    s.found = true;
    s.index = static_cast<std::size_t>(index);
    s.score = results_host_.host()[kSelectedScore];
  }
  return s;
}

template <typename T>
void CudaBackend<T>::queue_selection(const SelectRequest& request) {
  RBF_CUDA_CHECK(launch_finish_update<T>(stats(), nullptr, 0, nullptr, history(0), request,
                                         e_.get(), npad_, rows_.get(), nullptr, scratch(),
                                         results_.get(), context_.stream()));
}

template <typename T>
void CudaBackend<T>::prepare_request(SelectRequest& request) {
  if (request.mode != kSelectOls) return;
  if (dependents_marked_ && request.tol < dependent_tol_) revive_dependents();
  request.mark_dependent = 1;
  dependent_tol_ = dependents_marked_ ? std::max(dependent_tol_, request.tol) : request.tol;
  dependents_marked_ = true;
}

template <typename T>
void CudaBackend<T>::revive_dependents() {
  // Exact statistics for the marked candidates from one pass: history^T = Q^T Phi_C gives
  // s_c, Phi_C^T E gives g_c.
  settle_basis();
  const int npad = as_int(npad_), basis = as_int(nodes_ + 1), k = as_int(k_);
  const int ldg = as_int(candidates_);
  for_each_tile([&](const T* block, std::size_t first, std::size_t count) {
    basis_transpose_times(block, as_int(count), history_.get() + first * basis_capacity_, as_int(basis_capacity_));
    RBF_CUBLAS_CHECK(blas::gemm(context_.blas(), CUBLAS_OP_T, CUBLAS_OP_N, as_int(count), k, npad,
                                constants_.get(), block, npad, e_.get(), npad, constants_.get() + 1,
                                gq_.get() + candidates_ + first, ldg));
  });
  sum_over_shards(history_.get(), candidates_ * basis_capacity_);
  sum_over_shards(gq_.get() + candidates_, candidates_ * k_);
  RBF_CUDA_CHECK(launch_revive_dependent<T>(stats(), history(0), basis, gq_.get(), context_.stream()));
  history_columns_ = nodes_ + 1;
  dependents_marked_ = false;
  selection_ready_ = false;
}

template <typename T>
model::Selection CudaBackend<T>::select_ols(double lambda, double tol) {
  context_.activate();
  require_candidates("select_ols");
  SelectRequest request{kSelectOls, lambda, tol, 1};
  if (selection_ready_ && last_request_.mode == kSelectOls && last_request_.lambda == lambda &&
      last_request_.tol == tol)
    return ready_selection_;
  prepare_request(request);
  last_request_ = request;
  queue_selection(request);
  copy_results_back(kResultA);
  ready_selection_ = read_selection();
  selection_ready_ = true;
  return ready_selection_;
}

template <typename T>
model::Selection CudaBackend<T>::select_max_residual() {
  context_.activate();
  require_candidates("select_max_residual");
  if (selection_ready_ && last_request_.mode == kSelectMaxResidual) return ready_selection_;
  last_request_ = SelectRequest{kSelectMaxResidual, 0.0, 0.0, 0};
  settle_basis();  // the selection reads E
  if (sharded()) {
    ready_selection_ = shard_select_max_residual();
    selection_ready_ = true;
    return ready_selection_;
  }
  queue_selection(last_request_);
  copy_results_back(kResultA);
  ready_selection_ = read_selection();
  selection_ready_ = true;
  return ready_selection_;
}

#define RBF_INSTANTIATE_SCORING_PASS(T)                                               \
  template void CudaBackend<T>::evaluate_columns(std::size_t, std::size_t, T*) const; \
  template void CudaBackend<T>::evaluate_stored_columns();                            \
  template const T* CudaBackend<T>::candidate_column(std::size_t);                    \
  template void CudaBackend<T>::reset_to_bias(std::vector<double>&);                  \
  template void CudaBackend<T>::reset_from_columns(const T*);                         \
  template double CudaBackend<T>::update(bool, std::vector<double>&);                 \
  template void CudaBackend<T>::queue_statistics(const T*, const History<T>&);        \
  template double CudaBackend<T>::lazy_residual_norm2(const std::vector<double>&);    \
  template CandidateStats CudaBackend<T>::stats() const;                              \
  template History<T> CudaBackend<T>::history(std::size_t) const;                     \
  template ReduceScratch CudaBackend<T>::scratch() const;                             \
  template void CudaBackend<T>::copy_results_back(std::size_t);                       \
  template model::Selection CudaBackend<T>::read_selection() const;                   \
  template void CudaBackend<T>::queue_selection(const SelectRequest&);                \
  template void CudaBackend<T>::prepare_request(SelectRequest&);                      \
  template void CudaBackend<T>::revive_dependents();                                  \
  template model::Selection CudaBackend<T>::select_ols(double, double);               \
  template model::Selection CudaBackend<T>::select_max_residual();
RBF_INSTANTIATE_SCORING_PASS(float)
RBF_INSTANTIATE_SCORING_PASS(double)
#undef RBF_INSTANTIATE_SCORING_PASS

}  // namespace rbf::gpu
