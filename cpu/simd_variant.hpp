// Which SIMD variant of the CPU backend's hot kernels runs here: chosen at run time from what
// the CPU reports, so one portable binary still uses AVX2/FMA or AVX-512 where they exist.
#pragma once

#include <vector>

// x86 builds (GCC or Clang) carry AVX2 and AVX-512 variants beside the portable one; elsewhere
// (aarch64, where NEON is the baseline) the portable variant is all there is.
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define RBF_CPU_X86_VARIANTS 1
#endif

namespace rbf::cpu {

enum class SimdVariant {
  portable,  // the build's baseline instruction set (SSE2 on x86-64, NEON on aarch64)
  avx2,      // AVX2 with FMA, 256-bit vectors
  avx512,    // AVX-512F, 512-bit vectors
};

// "portable", "avx2" or "avx512".
const char* simd_variant_name(SimdVariant variant);

// True when this build carries the variant (portable always; avx2 and avx512 in x86 builds).
bool simd_variant_built_in(SimdVariant variant);

// True when the variant is built in and this CPU (and its operating system) can run it.
bool simd_variant_supported(SimdVariant variant);

// The widest supported variant, detected once.
SimdVariant best_simd_variant();

// Every supported variant, narrowest first (for tests and benchmarks that compare them).
std::vector<SimdVariant> supported_simd_variants();

}  // namespace rbf::cpu
