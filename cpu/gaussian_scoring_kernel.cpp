// The matrix-free scoring kernel's entry points: each call goes to the requested SIMD variant
// (gaussian_kernel_*.cpp).
#include "cpu/gaussian_scoring_kernel.hpp"

#include <string>

#include "cpu/gaussian_kernel_variants.hpp"
#include "data/errors.hpp"

namespace rbf::cpu {

namespace {
void require_supported(SimdVariant variant) {
  if (!simd_variant_supported(variant))
    throw RuntimeError(std::string("internal error: the ") + simd_variant_name(variant) +
                       " kernels are not built in or cannot run on this CPU");
}
}  // namespace

template <typename S>
void score_gaussian_tile(SimdVariant variant, const GaussianTile<S>& tile) {
  require_supported(variant);
  switch (variant) {
#ifdef RBF_CPU_X86_VARIANTS
    case SimdVariant::avx512:
      return kernels::score_avx512(tile);
    case SimdVariant::avx2:
      return kernels::score_avx2(tile);
#endif
    default:
      return kernels::score_portable(tile);
  }
}

template <typename S>
void exp2_block(SimdVariant variant, const S* in, S* out, std::size_t count) {
  require_supported(variant);
  switch (variant) {
#ifdef RBF_CPU_X86_VARIANTS
    case SimdVariant::avx512:
      return kernels::exp2_avx512(in, out, count);
    case SimdVariant::avx2:
      return kernels::exp2_avx2(in, out, count);
#endif
    default:
      return kernels::exp2_portable(in, out, count);
  }
}

template void score_gaussian_tile<float>(SimdVariant, const GaussianTile<float>&);
template void score_gaussian_tile<double>(SimdVariant, const GaussianTile<double>&);
template void exp2_block<float>(SimdVariant, const float*, float*, std::size_t);
template void exp2_block<double>(SimdVariant, const double*, double*, std::size_t);

}  // namespace rbf::cpu
