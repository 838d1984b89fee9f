// The matrix-free kernel's entry point in each SIMD variant, one gaussian_kernel_*.cpp file per
// variant; gaussian_scoring_kernel.cpp chooses between them.
#pragma once

#include <cstddef>

#include "cpu/gaussian_scoring_kernel.hpp"

namespace rbf::cpu::kernels {

void score_portable(const GaussianTile<float>& tile);
void score_portable(const GaussianTile<double>& tile);
void exp2_portable(const float* in, float* out, std::size_t count);
void exp2_portable(const double* in, double* out, std::size_t count);

#ifdef RBF_CPU_X86_VARIANTS
void score_avx2(const GaussianTile<float>& tile);
void score_avx2(const GaussianTile<double>& tile);
void exp2_avx2(const float* in, float* out, std::size_t count);
void exp2_avx2(const double* in, double* out, std::size_t count);

void score_avx512(const GaussianTile<float>& tile);
void score_avx512(const GaussianTile<double>& tile);
void exp2_avx512(const float* in, float* out, std::size_t count);
void exp2_avx512(const double* in, double* out, std::size_t count);
#endif

}  // namespace rbf::cpu::kernels
