// The matrix-free kernel for AVX-512F (x86 only): 64-byte vectors, 8 candidates x 2 row vectors
// per register block (16 dot-product and 8 z accumulators of the 32 registers).
#include "cpu/simd_variant.hpp"

#ifdef RBF_CPU_X86_VARIANTS
#define RBF_SIMD_TARGET "avx512f,avx2,fma"
#include "cpu/gaussian_kernel_variants.hpp"
#include "cpu/gaussian_tile_kernel.hpp"

#define RBF_AVX512 __attribute__((target(RBF_SIMD_TARGET)))

namespace rbf::cpu::kernels {

RBF_AVX512 void score_avx512(const GaussianTile<float>& t) { simd::score_tile<simd::Vec<float, 64>, 8, 2>(t); }
RBF_AVX512 void score_avx512(const GaussianTile<double>& t) { simd::score_tile<simd::Vec<double, 64>, 8, 2>(t); }
RBF_AVX512 void exp2_avx512(const float* in, float* out, std::size_t count) {
  simd::exp2_block<simd::Vec<float, 64>>(in, out, count);
}
RBF_AVX512 void exp2_avx512(const double* in, double* out, std::size_t count) {
  simd::exp2_block<simd::Vec<double, 64>>(in, out, count);
}

}  // namespace rbf::cpu::kernels
#endif
