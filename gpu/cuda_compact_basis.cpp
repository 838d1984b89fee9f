// The compact basis: Q held in half precision with a scale per column, so one GPU grows twice
// the rows x nodes it could in float (10 million rows to 2000 nodes on an 80 GB card).
//
// Why half codes and not an implicit Q (the chosen centers and R, Q = Phi_S R^-1, recomputed
// on the fly): an implicit Q is only as orthonormal as R^-1 is well conditioned, and R's
// condition reaches 1e8 on wide Gaussians, where Q^T Q - I measured 1 in float32. Codes keep
// every column explicit: a new column is orthogonalized against the decoded columns (CGS2, two
// projections always), then encoded with a power-of-two factor that puts its largest entry in
// (2^14, 2^15], and its scale is 1 / the code's norm, so each decoded column has unit norm to
// float rounding and only the codes' rounding (2^-12 relative per entry, uncorrelated across
// rows) touches the off-diagonal of Q^T Q. The decoded column, not the unrounded one, is the
// basis vector the residual, the scoring pass and the history use, so the model stays
// consistent with Q. docs/BENCHMARKS.md records ||Q^T Q - I|| at 2000 nodes.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/candidate_kernels.hpp"
#include "gpu/compact_basis_kernels.hpp"
#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"
#include "contracts/host_memory.hpp"

namespace rbf::gpu {

template <typename T>
bool CudaBackend<T>::compact_allowed() const {
  return std::is_same<T, float>::value && !sharded() && options_.basis != model::GpuBasis::full;
}

template <typename T>
std::string CudaBackend<T>::compact_reason(std::size_t columns) const {
  if (!compact_allowed()) return "";
  if (options_.basis == model::GpuBasis::half) return "as backend.gpu_basis asks";
  // auto: only where the float basis would not fit with basis_room's reserve to spare.
  const double need = growth_bytes(columns, false);
  // The float basis allocated so far would be replaced, so its bytes count as free.
  const double room = basis_room(static_cast<double>(context_.free_memory() + q_.bytes()));
  if (need <= room) return "";
  return "as Q in float32 would need " + model::memory_text(need) + " there and " + model::memory_text(room) +
         " may hold it (backend.gpu_basis: auto)";
}

template <typename T>
std::string CudaBackend<T>::basis_storage() const {
  if (!compact_) return "";
  return "half precision on GPU " + std::to_string(context_.device()) + ", " + compact_reason_;
}

template <typename T>
void CudaBackend<T>::enter_compact_basis(const std::string& reason) {
  if (compact_) return;
  compact_reason_ = reason;
  if (!compact_allowed()) throw std::logic_error("internal error: the compact basis does not apply");
  settle_basis();  // the columns move as they are
  Buffer<T> old = std::move(q_);
  q_ = Buffer<T>(context_, 2 * npad_, Placement::device, "the newest basis column and CGS2's working vector");
  cgs_partial_.release();  // the float CGS's scratch
  compact_ = true;
  compact_encode_ = Buffer<float>(context_, 1, Placement::device, "the compact basis's encoding factor");
  // phi's and u's statistics (two values a block each), then the store's sums.
  compact_stats_ = Buffer<double>(context_, 5 * kCompactStatBlocks, Placement::device, "the compact basis's sums");
  grow_compact_basis(basis_capacity_);  // the history and h keep their capacity
  if (!basis_set_) return;
  for (std::size_t j = 0; j <= nodes_; ++j) {
    RBF_CUDA_CHECK(cudaMemcpyAsync(basis_column(j), old.get() + j * npad_, npad_ * sizeof(T),
                                   cudaMemcpyDeviceToDevice, context_.stream()));
    store_basis_column(j);
  }
  context_.synchronize();  // `old` is freed on return
}

template <typename T>
void CudaBackend<T>::grow_compact_basis(std::size_t capacity) {
  Buffer<unsigned short> codes(context_, npad_ * capacity, Placement::device,
                               "the orthonormal basis Q in half precision (" + std::to_string(capacity) + " columns)");
  Buffer<float> scales(context_, capacity, Placement::device, "the compact basis's column scales");
  if (!qh_.empty()) {
    const std::size_t kept = std::min(qh_scale_.size(), capacity);
    RBF_CUDA_CHECK(cudaMemcpyAsync(codes.get(), qh_.get(), kept * npad_ * sizeof(unsigned short),
                                   cudaMemcpyDeviceToDevice, context_.stream()));
    RBF_CUDA_CHECK(cudaMemcpyAsync(scales.get(), qh_scale_.get(), kept * sizeof(float), cudaMemcpyDeviceToDevice,
                                   context_.stream()));
  }
  qh_ = std::move(codes);
  qh_scale_ = std::move(scales);
  compact_partial_ = Buffer<float>(context_, static_cast<std::size_t>(compact_project_blocks(npad_)) * capacity,
                                   Placement::device, "the compact basis's partial sums");
}

template <typename T>
void CudaBackend<T>::store_basis_column(std::size_t j) {
  if constexpr (std::is_same<T, float>::value) {
    const cudaStream_t stream = context_.stream();
    double* stats = compact_stats_.get();
    RBF_CUDA_CHECK(launch_compact_stats(basis_column(j), as_int(npad_), stats, stream));
    RBF_CUDA_CHECK(launch_compact_prepare(stats, compact_encode_.get(), stream));
    RBF_CUDA_CHECK(launch_compact_store(basis_column(j), as_int(npad_), compact_encode_.get(),
                                        stats + 2 * kCompactStatBlocks, qh_.get() + j * npad_, qh_scale_.get() + j,
                                        stream));
  } else {
    (void)j;
    throw std::logic_error("internal error: the compact basis holds float32 columns");
  }
}

template <typename T>
double CudaBackend<T>::compact_orthogonalize(const T* phi, const T* h1, unsigned char* mark, double tol,
                                             std::vector<double>& h) {
  if constexpr (std::is_same<T, float>::value) {
    const cudaStream_t stream = context_.stream();
    const int npad = as_int(npad_), cols = as_int(nodes_ + 1);
    const unsigned short* codes = qh_.get();
    const float* scales = qh_scale_.get();
    float* u = basis_column(nodes_ + 1);
    float* h2 = h_.get() + basis_capacity_;
    double* phi_stats = compact_stats_.get();
    double* u_stats = phi_stats + 2 * kCompactStatBlocks;
    if (h1 == nullptr) {
      RBF_CUDA_CHECK(launch_compact_project(codes, scales, npad_, cols, npad, phi, compact_partial_.get(), h_.get(),
                                            stream));
      h1 = h_.get();
    }
    RBF_CUDA_CHECK(launch_compact_stats(phi, npad, phi_stats, stream));
    RBF_CUDA_CHECK(launch_compact_subtract(codes, scales, npad_, cols, npad, h1, phi, u, stream));
    RBF_CUDA_CHECK(launch_compact_project(codes, scales, npad_, cols, npad, u, compact_partial_.get(), h2, stream));
    RBF_CUDA_CHECK(launch_compact_subtract(codes, scales, npad_, cols, npad, h2, u, u, stream));
    RBF_CUDA_CHECK(launch_compact_stats(u, npad, u_stats, stream));
    RBF_CUDA_CHECK(launch_compact_cgs_finish(phi_stats, u_stats, h1, h2, cols, tol, mark, kMarkUsed, results_.get(),
                                             as_int(h_offset_), compact_encode_.get(), stream));
    // Skipped on the device when u proved dependent (the encoding factor is 0 then).
    RBF_CUDA_CHECK(launch_compact_store(u, npad, compact_encode_.get(), u_stats + 2 * kCompactStatBlocks,
                                        qh_.get() + (nodes_ + 1) * npad_, qh_scale_.get() + nodes_ + 1, stream));
    copy_results_back(h_offset_ + static_cast<std::size_t>(cols));
    return take_cgs_results(h);
  } else {
    (void)phi, (void)h1, (void)mark, (void)tol, (void)h;
    throw std::logic_error("internal error: the compact basis holds float32 columns");
  }
}

template <typename T>
void CudaBackend<T>::basis_transpose_times(const T* block, int count, T* out, int ldo) const {
  const int npad = as_int(npad_), basis = as_int(nodes_ + 1);
  const cublasHandle_t blas = context_.blas();
  if (!compact_) {
    RBF_CUBLAS_CHECK(blas::gemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, basis, count, npad, constants_.get(), q_.get(), npad,
                                block, npad, constants_.get() + 1, out, ldo));
    return;
  }
  // Decoded a chunk of columns at a time (a rare path: migrations and revived candidates).
  const std::size_t chunk = std::max<std::size_t>(1, std::min<std::size_t>(basis, (std::size_t{1} << 26) / npad_));
  Buffer<T> decoded(context_, chunk * npad_, Placement::device, "decoded basis columns");
  for (std::size_t first = 0; first < static_cast<std::size_t>(basis); first += chunk) {
    const std::size_t columns = std::min(chunk, static_cast<std::size_t>(basis) - first);
    for (std::size_t j = 0; j < columns; ++j)
      if constexpr (std::is_same<T, float>::value)
        RBF_CUDA_CHECK(launch_compact_decode(qh_.get() + (first + j) * npad_, qh_scale_.get() + first + j, npad,
                                             decoded.get() + j * npad_, context_.stream()));
    RBF_CUBLAS_CHECK(blas::gemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, as_int(columns), count, npad, constants_.get(),
                                decoded.get(), npad, block, npad, constants_.get() + 1, out + first, ldo));
  }
  context_.synchronize();  // `decoded` is freed on return
}

template <typename T>
void CudaBackend<T>::copy_basis_column(std::size_t j, T* host) const {
  const T* column = basis_column(j);
  Buffer<T> decoded;
  if (compact_) {
    if constexpr (std::is_same<T, float>::value) {
      decoded = Buffer<T>(context_, npad_, Placement::device, "a decoded basis column");
      RBF_CUDA_CHECK(launch_compact_decode(qh_.get() + j * npad_, qh_scale_.get() + j, as_int(npad_), decoded.get(),
                                           context_.stream()));
      column = decoded.get();
    }
  }
  RBF_CUDA_CHECK(cudaMemcpyAsync(host, column, n_ * sizeof(T), cudaMemcpyDeviceToHost, context_.stream()));
  context_.synchronize();
}

#define RBF_INSTANTIATE_COMPACT_BASIS(T)                                                                    \
  template bool CudaBackend<T>::compact_allowed() const;                                                    \
  template std::string CudaBackend<T>::compact_reason(std::size_t) const;                                   \
  template std::string CudaBackend<T>::basis_storage() const;                                               \
  template void CudaBackend<T>::enter_compact_basis(const std::string&);                                    \
  template void CudaBackend<T>::grow_compact_basis(std::size_t);                                            \
  template void CudaBackend<T>::store_basis_column(std::size_t);                                            \
  template double CudaBackend<T>::compact_orthogonalize(const T*, const T*, unsigned char*, double,         \
                                                        std::vector<double>&);                              \
  template void CudaBackend<T>::basis_transpose_times(const T*, int, T*, int) const;                        \
  template void CudaBackend<T>::copy_basis_column(std::size_t, T*) const;
RBF_INSTANTIATE_COMPACT_BASIS(float)
RBF_INSTANTIATE_COMPACT_BASIS(double)
#undef RBF_INSTANTIATE_COMPACT_BASIS

}  // namespace rbf::gpu
