// Launchers of the refinement engine's elementwise kernels (the GEMMs around them are cuBLAS).
// Plain pointers and sizes, C++14, so both nvcc (gpu/refine_kernels.cu) and the host compiler
// include it. Matrices are column-major; each launcher returns cudaGetLastError().
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace rbf {
namespace gpu {

// Blocks of the residual kernel. Fixed, so each block always sums the same elements in the
// same order and the loss does not depend on the device.
constexpr int kRefineResidualBlocks = 128;

// Phi = exp(-gamma_j max(0, xsq_n + csq_j - 2 S_nj)) in place of S (rows x cols, ld lds).
template <typename T>
cudaError_t launch_gaussian_from_products(T* s, std::size_t lds, int rows, int cols, const T* xsq, const T* csq,
                                          const T* gamma, cudaStream_t stream);

// E = F + 1 b^T - Y in place of F (rows x k, ld rows; Y with ld ldy), then
// sse[b] += sum of E^2 over the elements block b owns (kRefineResidualBlocks slots, double).
template <typename T>
cudaError_t launch_refine_residual(T* f, int rows, int k, const T* bias, const T* y, std::size_t ldy, double* sse,
                                   cudaStream_t stream);

// A = Phi .* (E W^T) in place of Phi (rows x cols, ld ld), and h_sums[j] = sum over rows of
// H = A .* (-log Phi) for each column j (cols values), without storing H; E is rows x k (ld
// rows), W is cols x k (ld cols). hpart is scratch of refine_adjoint_partials(rows, cols)
// doubles: each warp's column sums, added in a fixed order.
std::size_t refine_adjoint_partials(int rows, int cols);
template <typename T>
cudaError_t launch_refine_adjoint(T* phi, std::size_t ld, int rows, int cols, const T* e, int k, const T* w,
                                  double* hpart, T* h_sums, cudaStream_t stream);

// The Jacobian of r = vec(E) for `rows` training rows: J is (rows k) x P (ld ldj), row
// o * rows + n for row n and output o, P = nodes (d + 1 + k) + k columns in NodeParams order.
// phi: rows x nodes (ld ldp); x: rows x d (ld ldx); centers: nodes x d (ld nodes);
// w: nodes x k (ld nodes).
template <typename T>
cudaError_t launch_refine_jacobian(T* jac, std::size_t ldj, int rows, int k, int nodes, int d, const T* phi,
                                   std::size_t ldp, const T* x, std::size_t ldx, const T* centers, const T* w,
                                   const T* gamma, cudaStream_t stream);

// acc[i] += v[i] for i < count: chunk results in T summed across chunks in double.
template <typename T>
cudaError_t launch_accumulate(double* acc, const T* v, std::size_t count, cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
