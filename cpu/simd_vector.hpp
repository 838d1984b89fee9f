// Fixed-width SIMD vectors for the CPU kernels, written with GCC/Clang vector extensions so one
// kernel body compiles to SSE2 or NEON, AVX2 or AVX-512. Included only by the kernel variants
// (gaussian_kernel_*.cpp), each of which sets RBF_SIMD_TARGET first ("avx2,fma", ...; unset:
// the build's baseline).
//
// Every function here and in the other kernel-body headers is always_inline, carries the
// variant's target attribute, and has internal linkage (an unnamed namespace): so each variant
// file compiles its own copy for its own instruction set, and the linker can never hand one
// variant's code to another, or to the rest of the program, as it could with -mavx2 builds of
// shared inline functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#ifdef RBF_SIMD_TARGET
#define RBF_SIMD_INLINE inline __attribute__((always_inline, target(RBF_SIMD_TARGET)))
#else
#define RBF_SIMD_INLINE inline __attribute__((always_inline))
#endif

namespace rbf::cpu::simd {
namespace {

// The signed and unsigned integers of an element's size (for masks and exponent bits; the
// unsigned ones for bit arithmetic without overflow UB).
template <typename S>
struct LaneIntegers;
template <>
struct LaneIntegers<float> {
  typedef std::int32_t I;
  typedef std::uint32_t U;
};
template <>
struct LaneIntegers<double> {
  typedef std::int64_t I;
  typedef std::uint64_t U;
};

// The vector and its same-sized integer twins, by element type and width in bytes (16:
// SSE2/NEON, 32: AVX2, 64: AVX-512).
template <typename S, int Bytes>
struct VectorTypes {
  typedef S V __attribute__((vector_size(Bytes)));
  typedef typename LaneIntegers<S>::I I __attribute__((vector_size(Bytes)));
  typedef typename LaneIntegers<S>::U U __attribute__((vector_size(Bytes)));
};

template <typename S, int Bytes>
struct Vec {
  using Scalar = S;
  using V = typename VectorTypes<S, Bytes>::V;
  using I = typename VectorTypes<S, Bytes>::I;
  using U = typename VectorTypes<S, Bytes>::U;
  static constexpr int kLanes = Bytes / static_cast<int>(sizeof(S));

  // Unaligned load and store (memcpy compiles to one vector move).
  static RBF_SIMD_INLINE V load(const S* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static RBF_SIMD_INLINE void store(S* p, V v) { std::memcpy(p, &v, sizeof v); }
  // As an initializer list of kLanes copies, which compilers turn into one broadcast (V{} + s
  // costs an extra add, since 0 + s is not s for s = -0; filling lanes one by one, inserts).
  static RBF_SIMD_INLINE V broadcast(S s) { return splat(s, std::make_index_sequence<kLanes>()); }
  // Same-sized vector casts reinterpret the bits (a GCC/Clang vector-extension rule).
  static RBF_SIMD_INLINE I bits(V v) { return (I)v; }
  static RBF_SIMD_INLINE V from_bits(I i) { return (V)i; }
  template <std::size_t... Lane>
  static RBF_SIMD_INLINE V splat(S s, std::index_sequence<Lane...>) {
    return V{((void)Lane, s)...};
  }
  // The lanes summed in lane order, in double: a fixed order, so results repeat exactly.
  static RBF_SIMD_INLINE double sum(V v) {
    double s = 0;
    for (int l = 0; l < kLanes; ++l) s += static_cast<double>(v[l]);
    return s;
  }
};

}  // namespace
}  // namespace rbf::cpu::simd
