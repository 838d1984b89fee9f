// The matrix-free kernel in the build's baseline instruction set: 16-byte vectors (SSE2 on
// x86-64, NEON on aarch64), 4 candidates x 2 row vectors per register block.
#include "cpu/gaussian_kernel_variants.hpp"
#include "cpu/gaussian_tile_kernel.hpp"

namespace rbf::cpu::kernels {

void score_portable(const GaussianTile<float>& t) { simd::score_tile<simd::Vec<float, 16>, 4, 2>(t); }
void score_portable(const GaussianTile<double>& t) { simd::score_tile<simd::Vec<double, 16>, 4, 2>(t); }
void exp2_portable(const float* in, float* out, std::size_t count) {
  simd::exp2_block<simd::Vec<float, 16>>(in, out, count);
}
void exp2_portable(const double* in, double* out, std::size_t count) {
  simd::exp2_block<simd::Vec<double, 16>>(in, out, count);
}

}  // namespace rbf::cpu::kernels
