// Launchers of the kernels that evaluate Gaussian candidate columns of Phi_C from X and the
// centers (gaussian_column_kernels.cu). Plain pointers and sizes, C++14, so both nvcc and the
// host compiler include it. Each launcher returns cudaGetLastError() after its launches.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace rbf {
namespace gpu {

// Fused distance + exp: out[i + j*ldo] = exp(-gamma[c] * max(0, ||x_i - center_c||^2)) for
// c = first + j, j < count, i < rows (x feature-major, d x ldx); rows..padded_rows get 0.
// The squared distance is summed feature by feature in ascending order without FMA
// contraction, exactly as the CPU backend does. With `row_scale`, row i is multiplied by
// row_scale[i] (weighted rows: Backend::set_row_scale).
template <typename T>
cudaError_t launch_eval_columns(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                const T* centers, const T* gamma, int first, int count, T* out,
                                std::size_t ldo, cudaStream_t stream, const T* row_scale = nullptr);

// Loads the one-column kernel a growth iteration launches (CUDA loads a kernel lazily, at its
// first launch: a fraction of a millisecond), so set-up pays for it and not an iteration.
template <typename T>
cudaError_t preload_column_kernel();

// The same column for the candidate whose index a selection left in *index (a call result,
// nothing when negative), without a round trip to the host.
template <typename T>
cudaError_t launch_eval_selected_column(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                        const T* centers, const T* gamma, const double* index, T* out,
                                        cudaStream_t stream, const T* row_scale = nullptr);

}  // namespace gpu
}  // namespace rbf
