// 2^x on SIMD vectors (float and double) for the matrix-free Gaussian kernels: x = n + r with
// n = round(x) and |r| <= 1/2 (exact), a polynomial for 2^r, and n added straight into the
// exponent bits. Within a few ulps of std::exp2 (tests/test_cpu_simd_exp2.cpp measures it).
//
// Base 2 rather than e because the kernels fold log2(e) into their per-candidate constants:
// the range reduction is then one rounding and one exact subtraction, with no multiply by
// log2(e) and no two-part ln 2 (three vector operations fewer than the e^x it replaced).
//
// Results below 2^-125.5 flush to +0 (never a subnormal, which would slow every later
// operation on it); results at or above 2^128 are +inf. Finite input never gives NaN (what NaN
// input gives is unspecified).
#pragma once

#include <limits>

#include "cpu/simd_vector.hpp"

namespace rbf::cpu::simd {
namespace {

template <typename S>
struct Exp2Constants;

// float: 2^r on |r| <= 1/2 by its degree-6 Chebyshev approximation (2.6e-9 relative, under
// float's rounding), the constant term exactly 1 so that 2^0 is exactly 1. Highest degree first.
template <>
struct Exp2Constants<float> {
  static constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23: x + magic keeps round(x) in the low bits
  static constexpr int kMantissaBits = 23;
  // From -125.5 on, round(x) >= -126 and 2^r >= 1 when it is -126, so n + p's exponent field
  // stays normal; below, the result would be subnormal. At 128 the field is all ones (+inf).
  static constexpr float kLowest = -125.5f;
  static constexpr float kHighest = 128.0f;
  static constexpr int kDegree = 6;
  static constexpr float kPoly[kDegree + 1] = {1.5469731946495812e-4f, 1.3400432166281462e-3f,
                                               9.6180256030407910e-3f, 5.5503272142064866e-2f,
                                               2.4022651213594903e-1f, 6.9314720671062070e-1f, 1.0f};
};

// double: the Taylor series of 2^r = e^(r ln 2) to degree 13; the first term left out is below
// 5e-18 relative for |r| <= 1/2.
template <>
struct Exp2Constants<double> {
  static constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52
  static constexpr int kMantissaBits = 52;
  static constexpr double kLowest = -1021.5;
  static constexpr double kHighest = 1024.0;
  static constexpr int kDegree = 13;
  // (ln 2)^k / k!, k = 13 down to 0.
  static constexpr double kPoly[kDegree + 1] = {
      1.3691488853904124e-12, 2.5678435993488196e-11, 4.44553827187081e-10, 7.054911620801121e-09,
      1.0178086009239696e-07, 1.3215486790144305e-06, 1.5252733804059838e-05, 0.00015403530393381606,
      0.0013333558146428441, 0.009618129107628477, 0.055504108664821576, 0.2402265069591007,
      0.6931471805599453, 1.0};
};

// 2^x for x in [kLowest, kHighest); other lanes hold garbage (the callers mask them).
template <typename Vc>
RBF_SIMD_INLINE typename Vc::V exp2_in_range(typename Vc::V x) {
  using S = typename Vc::Scalar;
  using C = Exp2Constants<S>;
  using V = typename Vc::V;
  const V magic = Vc::broadcast(C::kRoundMagic);
  // j's low mantissa bits hold n = round(x); n itself comes back exactly as j - magic, and
  // x - n is exact (n is x's nearest integer).
  const V j = x + magic;
  const V r = x - (j - magic);
  V p = Vc::broadcast(C::kPoly[0]);
  for (int i = 1; i <= C::kDegree; ++i) p = p * r + Vc::broadcast(C::kPoly[i]);
  // Shifting j's bits up by the mantissa width leaves exactly n in the exponent field (the
  // magic's own bits shift out), so adding them multiplies p, in [0.70, 1.42], by 2^n.
  // In unsigned arithmetic: lanes outside the range (masked by the callers) may wrap.
  using U = typename Vc::U;
  using I = typename Vc::I;
  return Vc::from_bits((I)((U)Vc::bits(p) + ((U)Vc::bits(j) << C::kMantissaBits)));
}

// 2^x for x below kHighest, the Gaussian kernels' case (x <= 0): only underflow needs handling.
template <typename Vc>
RBF_SIMD_INLINE typename Vc::V exp2_nonpositive(typename Vc::V x) {
  using C = Exp2Constants<typename Vc::Scalar>;
  const typename Vc::V y = exp2_in_range<Vc>(x);
  return Vc::from_bits(Vc::bits(y) & ~(x < Vc::broadcast(C::kLowest)));
}

// 2^x for any x.
template <typename Vc>
RBF_SIMD_INLINE typename Vc::V exp2_vector(typename Vc::V x) {
  using S = typename Vc::Scalar;
  using C = Exp2Constants<S>;
  using I = typename Vc::I;
  const I over = x >= Vc::broadcast(C::kHighest);
  const I y = Vc::bits(exp2_nonpositive<Vc>(x)) & ~over;
  return Vc::from_bits(y | (Vc::bits(Vc::broadcast(std::numeric_limits<S>::infinity())) & over));
}

}  // namespace
}  // namespace rbf::cpu::simd
