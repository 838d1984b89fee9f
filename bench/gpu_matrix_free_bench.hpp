// The matrix-free scoring pass benchmark of gpu_bench (mode `free`): one pass, stored vs fused.
#pragma once

#include <cstddef>

#include "gpu/cuda_context.hpp"

namespace rbf::bench {

// One scoring pass z = Phi^T q at n rows x count candidates x d features, float32: the stored
// pass (Phi_C precomputed) and cuBLAS GEMV against the fused pass on tensor cores (split FP16)
// and on CUDA cores, each with its error against a float64 reference.
void matrix_free_pass(const gpu::Context& ctx, double copy_gbs, std::size_t n, int count, int d);

}  // namespace rbf::bench
