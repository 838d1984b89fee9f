// exp on SIMD vectors (float and double) for the matrix-free Gaussian kernels: Cody-Waite range
// reduction x = n ln2 + r with |r| <= ln2 / 2, a polynomial for e^r, and 2^n added straight into
// the exponent bits. Within a few ulps of std::exp (tests/test_cpu_simd_kernels.cpp measures it).
//
// Results below the smallest normal number flush to +0 (never a subnormal, which would slow
// every later operation on it); above the largest finite one they are +inf. Finite input never
// gives NaN (what NaN input gives is unspecified).
#pragma once

#include <limits>

#include "cpu/simd_vector.hpp"

namespace rbf::cpu::simd {
namespace {

template <typename S>
struct ExpConstants;

// float: Cephes' expf polynomial (a minimax fit of (e^r - 1 - r) / r^2 on |r| <= ln2 / 2).
template <>
struct ExpConstants<float> {
  static constexpr float kLog2e = 1.44269504088896341f;
  static constexpr float kLn2Hi = 0.693359375f;  // few bits, so n * kLn2Hi is exact
  static constexpr float kLn2Lo = -2.12194440e-4f;
  static constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23: x + magic keeps round(x) in the low bits
  static constexpr int kMantissaBits = 23;
  // Below ln(FLT_MIN) the result would be subnormal; above ln(FLT_MAX) it overflows. The
  // cut-offs sit just inside, so that 2^n * p always has a normal exponent field.
  static constexpr float kLowest = -87.3365f;
  static constexpr float kHighest = 88.7228f;
  static constexpr int kDegree = 5;
  static constexpr float kPoly[kDegree + 1] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                               4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
};

// double: the Taylor series of (e^r - 1 - r) / r^2 to degree 11 (e^r to degree 13); the first
// term left out is below 5e-18 relative for |r| <= ln2 / 2.
template <>
struct ExpConstants<double> {
  static constexpr double kLog2e = 1.4426950408889634074;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // fdlibm's split of ln2
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;
  static constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52
  static constexpr int kMantissaBits = 52;
  static constexpr double kLowest = -708.3964;  // ln(DBL_MIN) = -708.39641853...
  static constexpr double kHighest = 709.7827;  // ln(DBL_MAX) = 709.78271289...
  static constexpr int kDegree = 11;
  static constexpr double kPoly[kDegree + 1] = {
      1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
      1.0 / 5040.0,       1.0 / 720.0,       1.0 / 120.0,      1.0 / 24.0,      1.0 / 6.0,      1.0 / 2.0};
};

// e^x for x in [kLowest, kHighest]; other lanes hold garbage (the callers mask them).
template <typename Vc>
RBF_SIMD_INLINE typename Vc::V exp_in_range(typename Vc::V x) {
  using S = typename Vc::Scalar;
  using C = ExpConstants<S>;
  using V = typename Vc::V;
  const V magic = Vc::broadcast(C::kRoundMagic);
  // j's low mantissa bits hold n = round(x log2 e); n itself comes back exactly as j - magic.
  const V j = x * Vc::broadcast(C::kLog2e) + magic;
  const V n = j - magic;
  V r = x - n * Vc::broadcast(C::kLn2Hi);
  r = r - n * Vc::broadcast(C::kLn2Lo);
  V p = Vc::broadcast(C::kPoly[0]);
  for (int i = 1; i <= C::kDegree; ++i) p = p * r + Vc::broadcast(C::kPoly[i]);
  p = p * (r * r) + r + Vc::broadcast(S(1));
  // Shifting j's bits up by the mantissa width leaves exactly n in the exponent field (the
  // magic's own bits shift out), so adding them multiplies p, in [0.7, 1.42], by 2^n.
  // In unsigned arithmetic: lanes outside the range (masked by the callers) may wrap.
  using U = typename Vc::U;
  using I = typename Vc::I;
  return Vc::from_bits((I)((U)Vc::bits(p) + ((U)Vc::bits(j) << C::kMantissaBits)));
}

// e^x for x <= 0, the Gaussian kernels' case: only underflow needs handling.
template <typename Vc>
RBF_SIMD_INLINE typename Vc::V exp_nonpositive(typename Vc::V x) {
  using C = ExpConstants<typename Vc::Scalar>;
  const typename Vc::V y = exp_in_range<Vc>(x);
  return Vc::from_bits(Vc::bits(y) & ~(x < Vc::broadcast(C::kLowest)));
}

// e^x for any x.
template <typename Vc>
RBF_SIMD_INLINE typename Vc::V exp_vector(typename Vc::V x) {
  using S = typename Vc::Scalar;
  using C = ExpConstants<S>;
  using I = typename Vc::I;
  const I over = x > Vc::broadcast(C::kHighest);
  const I y = Vc::bits(exp_nonpositive<Vc>(x)) & ~over;
  return Vc::from_bits(y | (Vc::bits(Vc::broadcast(std::numeric_limits<S>::infinity())) & over));
}

}  // namespace
}  // namespace rbf::cpu::simd
