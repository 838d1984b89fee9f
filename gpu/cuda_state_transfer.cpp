// The CUDA backend's trainer state to and from model::BackendState, for migration between backends.
#include <algorithm>
#include <vector>

#include "gpu/candidate_kernels.hpp"
#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"

namespace rbf::gpu {

template <typename T>
void CudaBackend<T>::export_state(model::BackendState<T>& st) const {
  context_.activate();
  require_candidates("export_state");
  const cudaStream_t stream = context_.stream();
  settle_basis();  // the state holds Q and E as they are
  const std::size_t basis = nodes_ + 1;
  auto copy_columns = [&](const T* src, std::size_t ld, std::size_t rows, std::size_t cols,
                          std::vector<T>& out) {
    out.assign(rows * cols, T(0));
    if (rows * cols == 0) return;
    RBF_CUDA_CHECK(cudaMemcpy2DAsync(out.data(), rows * sizeof(T), src, ld * sizeof(T),
                                     rows * sizeof(T), cols, cudaMemcpyDeviceToHost, stream));
  };
  st.basis = basis;
  if (compact_) {
    st.q.assign(n_ * basis, T(0));
    for (std::size_t j = 0; j < basis; ++j) copy_basis_column(j, st.q.data() + j * n_);
  } else {
    copy_columns(q_.get(), npad_, n_, basis, st.q);
  }
  copy_columns(e_.get(), npad_, n_, k_, st.e);
  st.val_columns = val_columns_;
  copy_columns(phi_val_.get(), nvpad_, nv_, nv_ > 0 ? val_columns_ : 0, st.phi_val);
  std::vector<double> n2(candidates_), s2(candidates_), g(candidates_ * k_);
  std::vector<unsigned char> marks(candidates_);
  RBF_CUDA_CHECK(cudaMemcpyAsync(marks.data(), used_.get(), candidates_, cudaMemcpyDeviceToHost, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(n2.data(), norm2_.get(), n2.size() * sizeof(double), cudaMemcpyDeviceToHost, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(s2.data(), proj2_.get(), s2.size() * sizeof(double), cudaMemcpyDeviceToHost, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(g.data(), g_.get(), g.size() * sizeof(double), cudaMemcpyDeviceToHost, stream));
  context_.synchronize();
  st.n_norm.assign(n2.begin(), n2.end());
  st.s_proj.assign(s2.begin(), s2.end());
  st.g.resize(candidates_ * k_);  // column-major count x k
  for (std::size_t c = 0; c < candidates_; ++c)
    for (std::size_t j = 0; j < k_; ++j) st.g[c + j * candidates_] = static_cast<T>(g[c * k_ + j]);
  // A candidate marked dependent has stale statistics; s_c = n_c says "dependent" to any backend.
  st.used.assign(candidates_, 0);
  for (std::size_t c = 0; c < candidates_; ++c) {
    st.used[c] = marks[c] == kMarkUsed ? 1 : 0;
    if (marks[c] == kMarkDependent) st.s_proj[c] = st.n_norm[c];
  }
}

template <typename T>
void CudaBackend<T>::import_state(const model::BackendState<T>& st) {
  context_.activate();
  require_candidates("import_state");
  if (st.basis == 0 || st.q.size() != n_ * st.basis || st.e.size() != n_ * k_ ||
      st.n_norm.size() != candidates_ || st.s_proj.size() != candidates_ ||
      st.g.size() != candidates_ * k_ || st.used.size() != candidates_ ||
      st.phi_val.size() != nv_ * st.val_columns)
    throw RuntimeError("internal error: imported trainer state does not match the data");
  const cudaStream_t stream = context_.stream();
  pending_ = false;  // the imported basis replaces whatever was pending
  ensure_basis_capacity(st.basis + 1);
  auto copy_columns = [&](const std::vector<T>& src, std::size_t rows, std::size_t cols, T* dst,
                          std::size_t ld) {
    if (rows * cols == 0) return;
    RBF_CUDA_CHECK(cudaMemcpy2DAsync(dst, ld * sizeof(T), src.data(), rows * sizeof(T),
                                     rows * sizeof(T), cols, cudaMemcpyHostToDevice, stream));
  };
  if (compact_) {  // each column encoded as it arrives
    for (std::size_t j = 0; j < st.basis; ++j) {
      // The padding rows of the working column are zero, as CGS leaves them.
      RBF_CUDA_CHECK(cudaMemcpyAsync(basis_column(j), st.q.data() + j * n_, n_ * sizeof(T), cudaMemcpyHostToDevice,
                                     stream));
      store_basis_column(j);
    }
  } else {
    copy_columns(st.q, n_, st.basis, q_.get(), npad_);
  }
  basis_set_ = true;
  copy_columns(st.e, n_, k_, e_.get(), npad_);
  if (nv_ > 0 && st.val_columns > val_capacity_) {
    const std::size_t capacity = std::max(kInitialValidationColumns, st.val_columns);
    phi_val_ = Buffer<T>(context_, nvpad_ * capacity, Placement::device, "the validation columns");
    val_capacity_ = capacity;
  }
  if (nv_ > 0) copy_columns(st.phi_val, nv_, st.val_columns, phi_val_.get(), nvpad_);
  val_columns_ = st.val_columns;
  std::vector<double> n2(st.n_norm.begin(), st.n_norm.end()), s2(st.s_proj.begin(), st.s_proj.end());
  std::vector<double> g(candidates_ * k_);
  for (std::size_t c = 0; c < candidates_; ++c)
    for (std::size_t j = 0; j < k_; ++j) g[c * k_ + j] = static_cast<double>(st.g[c + j * candidates_]);
  RBF_CUDA_CHECK(cudaMemcpyAsync(norm2_.get(), n2.data(), n2.size() * sizeof(double), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(proj2_.get(), s2.data(), s2.size() * sizeof(double), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(g_.get(), g.data(), g.size() * sizeof(double), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(used_.get(), st.used.data(), candidates_, cudaMemcpyHostToDevice, stream));
  used_host_ = st.used;
  dependents_marked_ = false;
  nodes_ = st.basis - 1;
  selection_ready_ = false;
  a_ready_ = false;
  residual_norm2_ = 0.0;
  for (T v : st.e) residual_norm2_ += static_cast<double>(v) * static_cast<double>(v);
  // Rebuild the projection history z_cj = q_j^T phi_c in one pass (history^T = Q^T Phi_C), so
  // CGS keeps taking its first projection from the history after a migration.
  for_each_tile([&](const T* block, std::size_t first, std::size_t count) {
    basis_transpose_times(block, as_int(count), history_.get() + first * basis_capacity_, as_int(basis_capacity_));
  });
  sum_over_shards(history_.get(), candidates_ * basis_capacity_);
  history_columns_ = st.basis;
  context_.synchronize();
}

#define RBF_INSTANTIATE_STATE_TRANSFER(T)                                    \
  template void CudaBackend<T>::export_state(model::BackendState<T>&) const; \
  template void CudaBackend<T>::import_state(const model::BackendState<T>&);
RBF_INSTANTIATE_STATE_TRANSFER(float)
RBF_INSTANTIATE_STATE_TRANSFER(double)
#undef RBF_INSTANTIATE_STATE_TRANSFER

}  // namespace rbf::gpu
