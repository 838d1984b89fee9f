// Run-time detection of the SIMD variants declared in simd_variant.hpp.
#include "cpu/simd_variant.hpp"

namespace rbf::cpu {

const char* simd_variant_name(SimdVariant variant) {
  switch (variant) {
    case SimdVariant::avx2:
      return "avx2";
    case SimdVariant::avx512:
      return "avx512";
    case SimdVariant::portable:
      break;
  }
  return "portable";
}

bool simd_variant_built_in(SimdVariant variant) {
#ifdef RBF_CPU_X86_VARIANTS
  (void)variant;
  return true;
#else
  return variant == SimdVariant::portable;
#endif
}

bool simd_variant_supported(SimdVariant variant) {
  switch (variant) {
    case SimdVariant::portable:
      return true;
#ifdef RBF_CPU_X86_VARIANTS
    // libgcc's (and compiler-rt's) answers include the operating system's consent (XGETBV):
    // a CPU with AVX-512 under a kernel that does not save the ZMM registers reports no avx512f.
    case SimdVariant::avx2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SimdVariant::avx512:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    case SimdVariant::avx2:
    case SimdVariant::avx512:
      return false;
#endif
  }
  return false;
}

SimdVariant best_simd_variant() {
  static const SimdVariant best = simd_variant_supported(SimdVariant::avx512) ? SimdVariant::avx512
                                  : simd_variant_supported(SimdVariant::avx2) ? SimdVariant::avx2
                                                                              : SimdVariant::portable;
  return best;
}

std::vector<SimdVariant> supported_simd_variants() {
  std::vector<SimdVariant> out;
  for (SimdVariant v : {SimdVariant::portable, SimdVariant::avx2, SimdVariant::avx512})
    if (simd_variant_supported(v)) out.push_back(v);
  return out;
}

}  // namespace rbf::cpu
