// The matrix-free kernel for AVX2 with FMA (x86 only): 32-byte vectors, 4 candidates x 2 row
// vectors per register block (8 dot-product and 4 z accumulators of the 16 registers).
#include "cpu/simd_variant.hpp"

#ifdef RBF_CPU_X86_VARIANTS
#define RBF_SIMD_TARGET "avx2,fma"
#include "cpu/gaussian_kernel_variants.hpp"
#include "cpu/gaussian_tile_kernel.hpp"

#define RBF_AVX2 __attribute__((target(RBF_SIMD_TARGET)))

namespace rbf::cpu::kernels {

RBF_AVX2 void score_avx2(const GaussianTile<float>& t) { simd::score_tile<simd::Vec<float, 32>, 4, 2>(t); }
RBF_AVX2 void score_avx2(const GaussianTile<double>& t) { simd::score_tile<simd::Vec<double, 32>, 4, 2>(t); }
RBF_AVX2 void exp2_avx2(const float* in, float* out, std::size_t count) {
  simd::exp2_block<simd::Vec<float, 32>>(in, out, count);
}
RBF_AVX2 void exp2_avx2(const double* in, double* out, std::size_t count) {
  simd::exp2_block<simd::Vec<double, 32>>(in, out, count);
}

}  // namespace rbf::cpu::kernels
#endif
