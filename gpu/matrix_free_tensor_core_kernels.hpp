// Launchers of the matrix-free pass on tensor cores (matrix_free_tensor_core_kernels.cu): the
// split-FP16 operands and the MMA scoring kernel, for float. matrix_free_kernels.cu's launchers
// hand the pass to them when the plan chose tensor cores. C++14, CUDA-only types, so both nvcc
// and the host compiler include it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_plan.hpp"

namespace rbf {
namespace gpu {

// True when this binary holds tensor-core code for the device (built for sm_80 or later,
// and not JIT-compiled from older PTX, whose kernel body would be empty).
bool matrix_free_tensor_cores_compiled_for(int device);

// The tensor-core kernel's shape for 1 <= d <= kMatrixFreeTensorMaxD; its kernel is the
// unit-scale scoring variant.
MatrixFreeKernelShape matrix_free_tensor_core_shape(int d);

// The row operand, the candidate operand (padded_count = matrix_free_padded_count(count)) and
// the pass, for a plan with tensor_cores set.
cudaError_t launch_tensor_core_rows(const float* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                    const MatrixFreePlan& plan, float* x_aug, cudaStream_t stream);
cudaError_t launch_tensor_core_candidates(const float* centers, const float* gamma, int count, int padded_count,
                                          int d, const MatrixFreePlan& plan, float* c_aug, cudaStream_t stream);
cudaError_t launch_tensor_core_pass(const MatrixFreePass<float>& pass, const MatrixFreePlan& plan,
                                    cudaStream_t stream);

// tensor_cores is only planned for float: the double instances of matrix_free_kernels.cu's
// launchers never call these.
inline cudaError_t launch_tensor_core_rows(const double*, std::size_t, int, int, int, const MatrixFreePlan&, double*,
                                           cudaStream_t) {
  return cudaErrorInvalidValue;
}
inline cudaError_t launch_tensor_core_candidates(const double*, const double*, int, int, int, const MatrixFreePlan&,
                                                 double*, cudaStream_t) {
  return cudaErrorInvalidValue;
}
inline cudaError_t launch_tensor_core_pass(const MatrixFreePass<double>&, const MatrixFreePlan&, cudaStream_t) {
  return cudaErrorInvalidValue;
}

}  // namespace gpu
}  // namespace rbf
