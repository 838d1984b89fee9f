// Launcher of the K-tiled tensor-core scoring pass for d > kMatrixFreeTensorMaxD (kernel in
// matrix_free_wide_kernels.cu), on the split-FP16 operands of
// matrix_free_tensor_core_kernels.cu. C++14, CUDA-only types, so both nvcc and the host
// compiler include it.
#pragma once

#include <cuda_runtime_api.h>

#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_plan.hpp"

namespace rbf {
namespace gpu {

// The kernel's shape for kMatrixFreeTensorMaxD < d <= kMatrixFreeWideMaxD (its unit-scale
// scoring variant, with the shared memory it asks for).
MatrixFreeKernelShape matrix_free_wide_shape(int d);

// One pass (see MatrixFreePass) for a plan with tensor_cores set and d > kMatrixFreeTensorMaxD.
cudaError_t launch_wide_tensor_core_pass(const MatrixFreePass<float>& pass, const MatrixFreePlan& plan,
                                         cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
