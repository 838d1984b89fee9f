// The CUDA refinement engine's host side: the data upload, the per-chunk sequence of cuBLAS
// GEMMs and fused kernels, and the host-side finish of the gradient in double.
//
// Per row chunk (m rows): S = X_c C^T, Phi in place of S, F = Phi W, E = F + b - Y with its
// squared sum; for the gradient Phi^T E, E^T 1, A = Phi .* (E W^T) in place of Phi with
// H^T 1 reduced in the same kernel (H is never stored), and [A^T X | A^T 1]. Each chunk's
// small results (T) are added into double sums on the device in chunk order, so the totals are
// deterministic and need one copy back per call.
// normal_equations copies each chunk's J^T J and J^T r back and sums them on the host in
// double instead: P x P doubles on the device as well would double its memory for little gain.
#include "gpu/cuda_refine_engine.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>

#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/host_sizes.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/refine_kernels.hpp"

namespace rbf::gpu {
namespace {

// Caps on the per-chunk temporaries: the N x nodes matrices (also at most a third of the
// device memory free after the data upload) and the Jacobian block of normal_equations.
constexpr std::size_t kMaxChunkBytes = std::size_t{512} << 20;
constexpr std::size_t kMaxJacobianBytes = std::size_t{256} << 20;

template <typename U>
void release_all(std::initializer_list<Buffer<U>*> buffers) {
  for (Buffer<U>* b : buffers) b->release();
}

}  // namespace

template <typename T>
CudaRefineEngine<T>::CudaRefineEngine(std::shared_ptr<Context> context)
    : shared_context_(std::move(context)), context_(*shared_context_) {
  constants_ = Buffer<T>(context_, 2, Placement::device, "cuBLAS constants");
  const T values[2] = {T(1), T(0)};
  RBF_CUDA_CHECK(cudaMemcpyAsync(constants_.get(), values, sizeof(values), cudaMemcpyHostToDevice, context_.stream()));
  context_.synchronize();
}

template <typename T>
template <typename U>
void CudaRefineEngine<T>::ensure(Buffer<U>& buffer, std::size_t count, const char* what) {
  if (buffer.size() >= count) return;
  buffer.release();  // its memory counts as free for the larger one
  buffer = Buffer<U>(context_, count, Placement::device, what);
}

template <typename T>
void CudaRefineEngine<T>::set_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k, const T* xv,
                                   std::size_t nv) {
  context_.activate();
  if (n == 0 || d == 0 || k == 0) throw InputError("refinement needs a non-empty training set");
  if (x == nullptr || y == nullptr || (nv > 0 && xv == nullptr))
    throw RuntimeError("gpu refinement: set_data got no training or validation values");
  const std::size_t row_limit = static_cast<std::size_t>(INT_MAX) - kRowPadding;
  if (n > row_limit || nv > row_limit || d >= static_cast<std::size_t>(INT_MAX) ||
      k >= static_cast<std::size_t>(INT_MAX))
    throw Error("gpu refinement: " + std::to_string(n) + " rows of " + std::to_string(d) + " features and " +
                std::to_string(k) + " outputs exceed the CUDA engine's 32-bit indexing");
  // Everything that depends on the old data goes first, so its memory counts as free.
  release_all<T>({&x_, &xsq_, &y_, &xv_, &xvsq_, &params_, &work_a_, &e_, &results_, &jac_, &jtj_, &jte_});
  sums_.release();
  hpart_.release();
  n_ = npad_ = d_ = k_ = nv_ = nvpad_ = nodes_ = chunk_bytes_ = 0;

  const std::size_t npad = round_up(n, kRowPadding);
  const std::size_t nvpad = round_up(nv, kRowPadding);
  const std::size_t train_values = npad * (d + 2 + k), val_values = nvpad * (d + 1);
  context_.require_free((train_values + val_values) * sizeof(T),
                        "the refinement data (" + std::to_string(n) + " rows)");

  // Column-major [X | 1], ||x||^2, Y, X_val, ||x_val||^2, staged together and copied at once.
  std::vector<T> staging(train_values + val_values, T(0));
  T* xs = staging.data();
  T* xsq = xs + npad * (d + 1);
  T* ys = xsq + npad;
  T* xvs = ys + npad * k;
  T* xvsq = xvs + nvpad * d;
  auto stage_rows = [&](const T* src, std::size_t rows, std::size_t ld, T* cols, T* norms) {
    for (std::size_t i = 0; i < rows; ++i) {
      double s = 0.0;
      for (std::size_t l = 0; l < d; ++l) {
        const T v = src[i * d + l];
        cols[i + l * ld] = v;
        s += static_cast<double>(v) * static_cast<double>(v);
      }
      norms[i] = static_cast<T>(s);
    }
  };
  stage_rows(x, n, npad, xs, xsq);
  for (std::size_t i = 0; i < n; ++i) xs[i + d * npad] = T(1);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t o = 0; o < k; ++o) ys[i + o * npad] = y[i * k + o];
  if (nv > 0) stage_rows(xv, nv, nvpad, xvs, xvsq);

  const cudaStream_t stream = context_.stream();
  x_ = Buffer<T>(context_, npad * (d + 1), Placement::device, "the refinement features");
  xsq_ = Buffer<T>(context_, npad, Placement::device, "the refinement feature norms");
  y_ = Buffer<T>(context_, npad * k, Placement::device, "the refinement targets");
  RBF_CUDA_CHECK(cudaMemcpyAsync(x_.get(), xs, x_.bytes(), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(xsq_.get(), xsq, xsq_.bytes(), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(y_.get(), ys, y_.bytes(), cudaMemcpyHostToDevice, stream));
  if (nv > 0) {
    xv_ = Buffer<T>(context_, nvpad * d, Placement::device, "the validation features");
    xvsq_ = Buffer<T>(context_, nvpad, Placement::device, "the validation feature norms");
    RBF_CUDA_CHECK(cudaMemcpyAsync(xv_.get(), xvs, xv_.bytes(), cudaMemcpyHostToDevice, stream));
    RBF_CUDA_CHECK(cudaMemcpyAsync(xvsq_.get(), xvsq, xvsq_.bytes(), cudaMemcpyHostToDevice, stream));
  }
  context_.synchronize();  // the staging vector goes out of scope; surface errors here
  n_ = n;
  npad_ = npad;
  d_ = d;
  k_ = k;
  nv_ = nv;
  nvpad_ = nvpad;
  // Measured once, so the chunking (and with it every rounding) stays the same for the
  // engine's lifetime whatever else is allocated later.
  chunk_bytes_ = std::min(kMaxChunkBytes, context_.free_memory() / 3);
}

template <typename T>
void CudaRefineEngine<T>::check(const model::NodeParams& p, const char* call) const {
  if (n_ == 0) throw RuntimeError(std::string("gpu refinement: ") + call + " called before set_data");
  if (p.nodes == 0) throw RuntimeError(std::string("gpu refinement: ") + call + " needs at least one node");
  if (p.d != d_ || p.k != k_ || p.values.size() != p.nodes * (d_ + 1 + k_) + k_)
    throw RuntimeError(std::string("gpu refinement: ") + call + " got parameters of " + std::to_string(p.nodes) +
                       " nodes, d = " + std::to_string(p.d) + ", k = " + std::to_string(p.k) + " (" +
                       std::to_string(p.values.size()) + " values) but the data have d = " + std::to_string(d_) +
                       ", k = " + std::to_string(k_));
  if (p.values.size() > static_cast<std::size_t>(INT_MAX))
    throw Error(std::string("gpu refinement: ") + call + " with " + std::to_string(p.values.size()) +
                " parameters exceeds the CUDA engine's 32-bit indexing");
}

template <typename T>
void CudaRefineEngine<T>::upload(const model::NodeParams& p) {
  const std::size_t nodes = p.nodes, d = d_, k = k_;
  params_host_.assign(nodes * (d + 2 + k) + k, T(0));
  T* c = params_host_.data();
  T* csq = c + nodes * d;
  T* gamma = csq + nodes;
  T* w = gamma + nodes;
  T* b = w + nodes * k;
  for (std::size_t j = 0; j < nodes; ++j) {
    double s = 0.0;
    for (std::size_t l = 0; l < d; ++l) {
      const T v = static_cast<T>(p.centers()[j * d + l]);
      c[j + l * nodes] = v;
      s += static_cast<double>(v) * static_cast<double>(v);
    }
    csq[j] = static_cast<T>(s);
    const double sigma = std::exp(p.log_widths()[j]);
    gamma[j] = static_cast<T>(1.0 / (2.0 * sigma * sigma));
    for (std::size_t o = 0; o < k; ++o) w[j + o * nodes] = static_cast<T>(p.weights()[j * k + o]);
  }
  for (std::size_t o = 0; o < k; ++o) b[o] = static_cast<T>(p.bias()[o]);
  ensure(params_, params_host_.size(), "the network parameters");
  // From pageable memory the copy has left params_host_ when the call returns.
  RBF_CUDA_CHECK(cudaMemcpyAsync(params_.get(), params_host_.data(), params_host_.size() * sizeof(T),
                                 cudaMemcpyHostToDevice, context_.stream()));
  nodes_ = nodes;
}

template <typename T>
std::size_t CudaRefineEngine<T>::chunk_rows(std::size_t nodes) const {
  // Phi/A and E per row, and the adjoint's per-warp column sums (one double per node for
  // every 32 rows).
  const std::size_t per_row = (nodes + k_) * sizeof(T) + (nodes * sizeof(double) + 31) / 32;
  std::size_t rows = std::max<std::size_t>(1, chunk_bytes_ / per_row);
  if (max_chunk_rows_ > 0) rows = std::min(rows, max_chunk_rows_);
  return rows;
}

template <typename T>
void CudaRefineEngine<T>::activations(const T* x, std::size_t ldx, const T* xsq, std::size_t rows, std::size_t nodes,
                                      T* out, std::size_t ld) {
  const T* one = constants_.get();
  const T* zero = one + 1;
  RBF_CUBLAS_CHECK(blas::gemm(context_.blas(), CUBLAS_OP_N, CUBLAS_OP_T, as_int(rows), as_int(nodes), as_int(d_), one,
                              x, as_int(ldx), centers(), as_int(nodes), zero, out, as_int(ld)));
  RBF_CUDA_CHECK(
      launch_gaussian_from_products<T>(out, ld, as_int(rows), as_int(nodes), xsq, csq(), gamma(), context_.stream()));
}

template <typename T>
void CudaRefineEngine<T>::outputs(const T* phi, std::size_t ld, std::size_t rows, std::size_t nodes, T* e) {
  const T* one = constants_.get();
  const T* zero = one + 1;
  RBF_CUBLAS_CHECK(blas::gemm(context_.blas(), CUBLAS_OP_N, CUBLAS_OP_N, as_int(rows), as_int(k_), as_int(nodes), one,
                              phi, as_int(ld), weights(), as_int(nodes), zero, e, as_int(rows)));
}

template <typename T>
template <typename Step>
void CudaRefineEngine<T>::for_each_chunk(const T* x, std::size_t ldx, const T* xsq, std::size_t rows,
                                         std::size_t nodes, std::size_t chunk, const char* f_name, Step step) {
  const std::size_t ld = round_up(chunk, kRowPadding);
  ensure(work_a_, ld * nodes, "the activations of a row chunk");
  ensure(e_, chunk * k_, f_name);
  last_chunks_ = 0;
  for (std::size_t r0 = 0; r0 < rows; r0 += chunk) {
    const std::size_t m = std::min(chunk, rows - r0);
    activations(x + r0, ldx, xsq + r0, m, nodes, work_a_.get(), ld);
    outputs(work_a_.get(), ld, m, nodes, e_.get());
    step(r0, m, ld);
    ++last_chunks_;
  }
}

template <typename T>
double CudaRefineEngine<T>::copy_back_sums(std::size_t count) {
  sums_host_.resize(count);
  RBF_CUDA_CHECK(cudaMemcpyAsync(sums_host_.data(), sums_.get(), count * sizeof(double), cudaMemcpyDeviceToHost,
                                 context_.stream()));
  context_.synchronize();
  double sse = 0.0;
  for (std::size_t b = 0; b < static_cast<std::size_t>(kRefineResidualBlocks); ++b) sse += sums_host_[b];
  return sse;
}

template <typename T>
double CudaRefineEngine<T>::loss_gradient(const model::NodeParams& p, std::vector<double>* gradient) {
  context_.activate();
  check(p, "loss_gradient");
  upload(p);
  const bool grad = gradient != nullptr;
  const std::size_t nodes = p.nodes, d = d_, k = k_;
  const std::size_t chunk = std::min(chunk_rows(nodes), n_);
  // One chunk's small results: [A^T X | A^T 1] (nodes x (d + 1)), H^T 1 (nodes),
  // Phi^T E (nodes x k), E^T 1 (k); in sums_ after the residual blocks' squared sums.
  const std::size_t at_h = nodes * (d + 1), at_gw = at_h + nodes, at_gb = at_gw + nodes * k;
  const std::size_t small = at_gb + k;
  const std::size_t blocks = static_cast<std::size_t>(kRefineResidualBlocks);
  const std::size_t sum_count = blocks + (grad ? small : 0);
  if (grad) {
    ensure(hpart_, refine_adjoint_partials(as_int(chunk), as_int(nodes)), "the width terms of a row chunk");
    ensure(results_, small, "the gradient terms of a row chunk");
  }
  ensure(sums_, sum_count, "the sums across row chunks");

  const cudaStream_t stream = context_.stream();
  const cublasHandle_t blas = context_.blas();
  const T* one = constants_.get();
  const T* zero = one + 1;
  const int ni = as_int(nodes), ki = as_int(k);
  RBF_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, sum_count * sizeof(double), stream));
  for_each_chunk(x_.get(), npad_, xsq_.get(), n_, nodes, chunk, "the residuals of a row chunk",
                 [&](std::size_t r0, std::size_t m, std::size_t ld) {
    const int mi = as_int(m);
    T* phi = work_a_.get();  // A replaces Phi in the adjoint kernel
    T* e = e_.get();
    T* r = results_.get();
    const T* xc = x_.get() + r0;
    const T* ones = x_.get() + d * npad_ + r0;  // the ones column of [X | 1]
    RBF_CUDA_CHECK(launch_refine_residual<T>(e, mi, ki, bias(), y_.get() + r0, npad_, sums_.get(), stream));
    if (!grad) return;
    RBF_CUBLAS_CHECK(
        blas::gemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, ni, ki, mi, one, phi, as_int(ld), e, mi, zero, r + at_gw, ni));
    RBF_CUBLAS_CHECK(blas::gemv(blas, CUBLAS_OP_T, mi, ki, one, e, mi, ones, zero, r + at_gb));
    RBF_CUDA_CHECK(launch_refine_adjoint<T>(phi, ld, mi, ni, e, ki, weights(), hpart_.get(), r + at_h, stream));
    RBF_CUBLAS_CHECK(blas::gemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, ni, as_int(d + 1), mi, one, phi, as_int(ld), xc,
                                as_int(npad_), zero, r, ni));
    RBF_CUDA_CHECK(launch_accumulate<T>(sums_.get() + blocks, r, small, stream));
  });
  const double sse = copy_back_sums(sum_count);
  if (grad) {
    const double* s = sums_host_.data() + blocks;
    model::NodeParams g(nodes, d, k);
    for (std::size_t j = 0; j < nodes; ++j) {
      const double sigma = std::exp(p.log_widths()[j]);
      const double two_gamma = 1.0 / (sigma * sigma);
      const double a1 = s[j + d * nodes];
      for (std::size_t l = 0; l < d; ++l)
        g.centers()[j * d + l] = two_gamma * (s[j + l * nodes] - a1 * p.centers()[j * d + l]);
      // H already holds gamma D (as -log Phi): 2 gamma (A .* D)^T 1 = 2 H^T 1.
      g.log_widths()[j] = 2.0 * s[at_h + j];
      for (std::size_t o = 0; o < k; ++o) g.weights()[j * k + o] = s[at_gw + j + o * nodes];
    }
    for (std::size_t o = 0; o < k; ++o) g.bias()[o] = s[at_gb + o];
    *gradient = std::move(g.values);
  }
  return 0.5 * sse;
}

template <typename T>
double CudaRefineEngine<T>::normal_equations(const model::NodeParams& p, std::vector<double>& jtj,
                                             std::vector<double>& jte) {
  context_.activate();
  check(p, "normal_equations");
  upload(p);
  const std::size_t nodes = p.nodes, d = d_, k = k_, params = p.size();
  std::size_t chunk = std::min(chunk_rows(nodes), n_);
  chunk = std::min(chunk, std::max<std::size_t>(1, kMaxJacobianBytes / (k * params * sizeof(T))));
  chunk = std::min(chunk, static_cast<std::size_t>(INT_MAX) / k);  // J's rows are cuBLAS ints
  const std::size_t blocks = static_cast<std::size_t>(kRefineResidualBlocks);
  ensure(jac_, chunk * k * params, "the Jacobian of a row chunk");
  ensure(jtj_, params * params, "J^T J");
  ensure(jte_, params, "J^T r");
  ensure(sums_, blocks, "the sums across row chunks");

  const cudaStream_t stream = context_.stream();
  const cublasHandle_t blas = context_.blas();
  const T* one = constants_.get();
  const T* zero = one + 1;
  const int pi = as_int(params);
  T* jac = jac_.get();
  RBF_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, blocks * sizeof(double), stream));
  // Summed in double on the host, chunk by chunk: the column-major upper triangle of J^T J is
  // the row-major lower one, mirrored at the end.
  jtj.assign(params * params, 0.0);
  jte.assign(params, 0.0);
  staging_.resize(params * params + params);
  for_each_chunk(x_.get(), npad_, xsq_.get(), n_, nodes, chunk, "the residuals of a row chunk",
                 [&](std::size_t r0, std::size_t m, std::size_t ld) {
    const int mi = as_int(m), rows = as_int(m * k);
    const T* xc = x_.get() + r0;
    T* e = e_.get();
    RBF_CUDA_CHECK(launch_refine_residual<T>(e, mi, as_int(k), bias(), y_.get() + r0, npad_, sums_.get(), stream));
    RBF_CUDA_CHECK(launch_refine_jacobian<T>(jac, m * k, mi, as_int(k), as_int(nodes), as_int(d), work_a_.get(), ld,
                                             xc, npad_, centers(), weights(), gamma(), stream));
    RBF_CUBLAS_CHECK(
        blas::syrk(blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, pi, rows, one, jac, rows, zero, jtj_.get(), pi));
    // E (m x k, ld m) is vec(E) in J's row order.
    RBF_CUBLAS_CHECK(blas::gemv(blas, CUBLAS_OP_T, rows, pi, one, jac, rows, e, zero, jte_.get()));
    RBF_CUDA_CHECK(
        cudaMemcpyAsync(staging_.data(), jtj_.get(), params * params * sizeof(T), cudaMemcpyDeviceToHost, stream));
    RBF_CUDA_CHECK(cudaMemcpyAsync(staging_.data() + params * params, jte_.get(), params * sizeof(T),
                                   cudaMemcpyDeviceToHost, stream));
    context_.synchronize();
    for (std::size_t j = 0; j < params; ++j)
      for (std::size_t i = 0; i <= j; ++i) jtj[i + j * params] += static_cast<double>(staging_[i + j * params]);
    for (std::size_t i = 0; i < params; ++i) jte[i] += static_cast<double>(staging_[params * params + i]);
  });
  for (std::size_t i = 0; i < params; ++i)
    for (std::size_t j = i + 1; j < params; ++j) jtj[i * params + j] = jtj[j * params + i];
  return 0.5 * copy_back_sums(blocks);
}

template <typename T>
void CudaRefineEngine<T>::predict_validation(const model::NodeParams& p, std::vector<double>& out) {
  context_.activate();
  check(p, "predict_validation");
  out.assign(nv_ * k_, 0.0);
  if (nv_ == 0) return;
  upload(p);
  const std::size_t nodes = p.nodes, k = k_;
  const std::size_t chunk = std::min(chunk_rows(nodes), nv_);
  staging_.resize(chunk * k);
  const T* bias_host = params_host_.data() + params_host_.size() - k;  // b, as uploaded
  for_each_chunk(xv_.get(), nvpad_, xvsq_.get(), nv_, nodes, chunk, "the predictions of a row chunk",
                 [&](std::size_t r0, std::size_t m, std::size_t) {
    RBF_CUDA_CHECK(
        cudaMemcpyAsync(staging_.data(), e_.get(), m * k * sizeof(T), cudaMemcpyDeviceToHost, context_.stream()));
    context_.synchronize();
    // The bias is added in T, as the residual kernel adds it.
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t o = 0; o < k; ++o)
        out[(r0 + i) * k + o] = static_cast<double>(staging_[i + o * m] + bias_host[o]);
  });
}

template <typename T>
std::size_t CudaRefineEngine<T>::memory_bytes() const {
  std::size_t total = sums_.bytes() + hpart_.bytes();
  for (const Buffer<T>* b :
       {&constants_, &x_, &xsq_, &y_, &xv_, &xvsq_, &params_, &work_a_, &e_, &results_, &jac_, &jtj_, &jte_})
    total += b->bytes();
  return total;
}

template class CudaRefineEngine<float>;
template class CudaRefineEngine<double>;

}  // namespace rbf::gpu
