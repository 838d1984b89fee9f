// Row-wise kernels of the CUDA backend: the bias column, the residual update with ||E||^2,
// residual row norms, normalization, the validation sums, and Gaussian activations of
// (sample, center) pairs. CGS's passes over Q are in cgs_kernels.cu.
#include <algorithm>

#include "gpu/kernel_constants.hpp"
#include "gpu/reductions.cuh"
#include "gpu/vector_kernels.hpp"

namespace rbf {
namespace gpu {
namespace {

template <typename T>
__global__ void fill_prefix_kernel(T* __restrict__ v, int padded_rows, int rows, T value, const T* __restrict__ scale) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (i < padded_rows) v[i] = i < rows ? (scale != nullptr ? value * scale[i] : value) : T(0);
}

template <typename T>
__global__ void multiply_kernel(const T* a, const T* b, T* out, int count) {  // out may alias a or b
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (i < count) out[i] = a[i] * b[i];
}

template <typename T, typename A>
__global__ void __launch_bounds__(kBlock)
    residual_update_kernel(T* __restrict__ e, std::size_t lde, int padded_rows, int k,
                           const T* __restrict__ q, const A* a, ReduceScratch scratch,
                           double* __restrict__ results) {
  double sum = 0.0;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < padded_rows; i += gridDim.x * kBlock) {
    const T qi = q[i];
    for (int j = 0; j < k; ++j) {
      T* p = e + i + static_cast<std::size_t>(j) * lde;
      const T v = *p - qi * static_cast<T>(a[j]);
      *p = v;
      sum += static_cast<double>(v) * static_cast<double>(v);
    }
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) scratch.values[blockIdx.x] = sum;
  if (!last_block_done(scratch.tickets + 1)) return;
  const double total = combine_sums(scratch.values, gridDim.x);
  if (threadIdx.x == 0) {
    results[kResidualNorm2] = total;
    scratch.tickets[1] = 0;
  }
  for (int j = threadIdx.x; j < k; j += kBlock) results[kResultA + j] = static_cast<double>(a[j]);
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    validation_sums_kernel(const T* __restrict__ pred, std::size_t ldp, int rows, int k,
                           const double* __restrict__ bias, const double* __restrict__ target,
                           const double* __restrict__ weight, const double* __restrict__ offset,
                           const long long* __restrict__ classes, const double* __restrict__ row_weight,
                           ReduceScratch scratch, double* __restrict__ results) {
  double sse = 0.0, correct = 0.0;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < rows; i += gridDim.x * kBlock) {
    const double row = row_weight != nullptr ? row_weight[i] : 1.0;  // 1.0 * x is x: unweighted sums unchanged
    double best = 0.0;
    long long arg = -1;
    for (int j = 0; j < k; ++j) {
      const std::size_t ij = static_cast<std::size_t>(i) * k + j;
      const double v =
          bias[j] + (pred != nullptr ? static_cast<double>(pred[i + static_cast<std::size_t>(j) * ldp]) : 0.0);
      const double r = v - target[ij];
      sse += row * (weight[j] * r * r);
      if (classes == nullptr) continue;
      const double score = offset != nullptr ? v + offset[ij] : v;
      if (arg < 0 || score > best) {  // the first largest, as std::max_element
        best = score;
        arg = j;
      }
    }
    if (classes != nullptr && arg == classes[i]) correct += row;
  }
  sse = block_sum(sse);
  correct = block_sum(correct);
  if (threadIdx.x == 0) {
    scratch.values[blockIdx.x] = sse;
    scratch.values[gridDim.x + blockIdx.x] = correct;
  }
  if (!last_block_done(scratch.tickets + 4)) return;
  const double total_sse = combine_sums(scratch.values, gridDim.x);
  const double total_correct = combine_sums(scratch.values + gridDim.x, gridDim.x);
  if (threadIdx.x == 0) {
    results[kValidationSse] = total_sse;
    results[kValidationCorrect] = total_correct;
    scratch.tickets[4] = 0;
  }
}

template <typename T>
__global__ void residual_row_norms_kernel(const T* __restrict__ e, std::size_t lde, int k,
                                          const long long* __restrict__ rows, int count, double* __restrict__ score) {
  const int c = blockIdx.x * kBlock + threadIdx.x;
  if (c >= count) return;
  const long long row = rows[c];
  double s = 0.0;
  if (row >= 0)
    for (int j = 0; j < k; ++j) {
      const double v = static_cast<double>(e[static_cast<std::size_t>(row) + static_cast<std::size_t>(j) * lde]);
      s += v * v;
    }
  score[c] = s;
}

template <typename T>
__global__ void normalize_kernel(T* __restrict__ u, int padded_rows, const double* __restrict__ results) {
  if (results[kDependent] != 0.0) return;
  const T norm = static_cast<T>(results[kNormU]);
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < padded_rows; i += gridDim.x * kBlock)
    u[i] = u[i] / norm;
}

template <typename T>
__global__ void gaussian_pairs_kernel(const T* __restrict__ x, const T* __restrict__ centers,
                                      const T* __restrict__ gamma, int count, int d,
                                      T* __restrict__ out) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (i >= count) return;
  const T* xi = x + static_cast<std::size_t>(i) * d;
  const T* ci = centers + static_cast<std::size_t>(i) * d;
  T s = T(0);
  for (int k = 0; k < d; ++k) {
    const T diff = xi[k] - ci[k];
    s = fma(diff, diff, s);
  }
  out[i] = gauss_exp(-s * gamma[i]);
}

int reduce_blocks(int padded_rows) {
  return std::max(1, std::min(kReduceBlocks, blocks_for(static_cast<std::size_t>(padded_rows) / 4 + 1, kBlock)));
}

}  // namespace

template <typename T>
cudaError_t launch_fill_prefix(T* v, int padded_rows, int rows, T value, cudaStream_t stream, const T* scale) {
  if (padded_rows <= 0) return cudaSuccess;
  fill_prefix_kernel<T><<<blocks_for(padded_rows, kBlock), kBlock, 0, stream>>>(v, padded_rows, rows, value, scale);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_multiply(const T* a, const T* b, T* out, int count, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  multiply_kernel<T><<<blocks_for(count, kBlock), kBlock, 0, stream>>>(a, b, out, count);
  return cudaGetLastError();
}

template <typename T, typename A>
cudaError_t launch_residual_update(T* e, std::size_t lde, int padded_rows, int k, const T* q,
                                   const A* a, const ReduceScratch& scratch, double* results,
                                   cudaStream_t stream) {
  residual_update_kernel<T, A><<<reduce_blocks(padded_rows), kBlock, 0, stream>>>(
      e, lde, padded_rows, k, q, a, scratch, results);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_residual_row_norms(const T* e, std::size_t lde, int k, const long long* rows, int count,
                                      double* score, cudaStream_t stream) {
  residual_row_norms_kernel<T><<<(count + kBlock - 1) / kBlock, kBlock, 0, stream>>>(e, lde, k, rows, count, score);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_validation_sums(const T* pred, std::size_t ldp, int rows, int k, const double* bias,
                                   const double* target, const double* weight, const double* offset,
                                   const long long* classes, const double* row_weight, const ReduceScratch& scratch,
                                   double* results, cudaStream_t stream) {
  validation_sums_kernel<T><<<reduce_blocks(rows), kBlock, 0, stream>>>(pred, ldp, rows, k, bias, target, weight,
                                                                        offset, classes, row_weight, scratch, results);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_normalize(T* u, int padded_rows, const double* results, cudaStream_t stream) {
  normalize_kernel<T><<<reduce_blocks(padded_rows), kBlock, 0, stream>>>(u, padded_rows, results);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_gaussian_pairs(const T* x, const T* centers, const T* gamma, int count, int d,
                                  T* out, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  gaussian_pairs_kernel<T><<<blocks_for(count, kBlock), kBlock, 0, stream>>>(x, centers, gamma, count, d, out);
  return cudaGetLastError();
}

#define RBF_INSTANTIATE(T)                                                                     \
  template cudaError_t launch_fill_prefix<T>(T*, int, int, T, cudaStream_t, const T*);         \
  template cudaError_t launch_multiply<T>(const T*, const T*, T*, int, cudaStream_t);          \
  template cudaError_t launch_residual_update<T, T>(T*, std::size_t, int, int, const T*, const T*, \
                                                    const ReduceScratch&, double*, cudaStream_t); \
  template cudaError_t launch_normalize<T>(T*, int, const double*, cudaStream_t);              \
  template cudaError_t launch_validation_sums<T>(const T*, std::size_t, int, int, const double*, const double*, \
                                                 const double*, const double*, const long long*,  \
                                                 const double*, const ReduceScratch&, double*,      \
                                                 cudaStream_t);                                     \
  template cudaError_t launch_residual_row_norms<T>(const T*, std::size_t, int, const long long*, int, double*, \
                                                    cudaStream_t);                                 \
  template cudaError_t launch_gaussian_pairs<T>(const T*, const T*, const T*, int, int, T*,    \
                                                cudaStream_t);
RBF_INSTANTIATE(float)
RBF_INSTANTIATE(double)
#undef RBF_INSTANTIATE
// a as CGS's last pass left it in the call results (double), for float E.
template cudaError_t launch_residual_update<float, double>(float*, std::size_t, int, int, const float*, const double*,
                                                           const ReduceScratch&, double*, cudaStream_t);

}  // namespace gpu
}  // namespace rbf
