// The CPU kernels' vectorized exp2 (cpu/simd_exp2.hpp), in every SIMD variant this machine runs:
// accuracy against std::exp2, underflow to 0, overflow to infinity, and no NaN for finite input.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/gaussian_scoring_kernel.hpp"
#include "cpu/simd_variant.hpp"

using rbf::cpu::SimdVariant;

namespace {

// Distance in units in the last place between two finite values of the same sign.
template <typename T>
std::int64_t ulps(T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  Bits ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  return ia > ib ? static_cast<std::int64_t>(ia) - ib : static_cast<std::int64_t>(ib) - ia;
}

template <typename T>
std::vector<T> run_exp2(SimdVariant v, const std::vector<T>& x) {
  std::vector<T> y(x.size());
  rbf::cpu::exp2_block(v, x.data(), y.data(), x.size());
  return y;
}

// The correctly rounded 2^x, from a wider type.
template <typename T>
T reference_exp2(T x) {
  return static_cast<T>(std::exp2(static_cast<long double>(x)));
}

template <typename T>
void check_exp2(SimdVariant v) {
  const std::string variant = rbf::cpu::simd_variant_name(v);
  CAPTURE(variant);
  CAPTURE(sizeof(T));
  const bool single = sizeof(T) == 4;
  // Normal results: x from the flush threshold (half a binade above the smallest normal) to
  // just below the overflow, a dense sweep plus random points (the count is no multiple of
  // the vector width, so the tail path runs too).
  const T lo = single ? T(-125.5) : T(-1021.5), hi = single ? T(127.99) : T(1023.99);
  std::vector<T> x;
  const int sweep = 200001;
  for (int i = 0; i < sweep; ++i) x.push_back(lo + (hi - lo) * static_cast<T>(i) / static_cast<T>(sweep - 1));
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> small(-1.0, 1.0);
  for (int i = 0; i < 20001; ++i) x.push_back(static_cast<T>(small(rng)));
  for (T v0 : {T(0), T(-0.0), T(1), T(-1), T(0.5), T(-0.5), T(-125), T(-126) + T(0.5)}) x.push_back(v0);
  const std::vector<T> y = run_exp2(v, x);
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::int64_t e = ulps(y[i], reference_exp2(x[i]));
    if (e > worst) {
      worst = e;
      CAPTURE(x[i]);
      CHECK(e <= 2);  // reported at the first failure and whenever the worst case grows
    }
  }
  MESSAGE(variant << std::string(single ? " float" : " double") << ": worst error " << worst << " ulp");
  CHECK(run_exp2(v, std::vector<T>{T(0)})[0] == T(1));

  // Below the flush threshold: exactly +0, never a subnormal or a negative number.
  const T below = single ? T(-125.51) : T(-1021.51);
  std::vector<T> tiny = {below, below * 2, T(-3000), T(-1e30), -std::numeric_limits<T>::max(),
                         -std::numeric_limits<T>::infinity()};
  for (T r : run_exp2(v, tiny)) {
    CHECK(r == T(0));
    CHECK_FALSE(std::signbit(r));
  }
  // From 2^128 (2^1024 in double), which overflows, on: +inf.
  const T above = single ? T(128) : T(1024);
  for (T r : run_exp2(v, std::vector<T>{above, T(2) * above, std::numeric_limits<T>::max(), std::numeric_limits<T>::infinity()}))
    CHECK(r == std::numeric_limits<T>::infinity());

  // Any finite input: a number (random bit patterns cover every exponent).
  std::vector<T> any;
  std::uniform_int_distribution<std::uint64_t> bits;
  while (any.size() < 100003) {
    const std::uint64_t b = bits(rng);
    T value;
    std::memcpy(&value, &b, sizeof value);
    if (std::isfinite(value)) any.push_back(value);
  }
  const std::vector<T> out = run_exp2(v, any);
  std::size_t nan = 0, negative = 0;
  for (T r : out) {
    nan += std::isnan(r) ? 1 : 0;
    negative += r < 0 ? 1 : 0;
  }
  CHECK(nan == 0);
  CHECK(negative == 0);
}

}  // namespace

TEST_CASE_TEMPLATE("cpu simd: the vectorized exp2 is within 2 ulp of exp2, underflows to 0 and overflows to inf", T,
                   float, double) {
  for (SimdVariant v : rbf::cpu::supported_simd_variants()) check_exp2<T>(v);
}

TEST_CASE("cpu simd: the portable variant always runs, and the best variant is one that runs") {
  CHECK(rbf::cpu::simd_variant_supported(SimdVariant::portable));
  CHECK(rbf::cpu::simd_variant_supported(rbf::cpu::best_simd_variant()));
  const std::string best = rbf::cpu::simd_variant_name(rbf::cpu::best_simd_variant());
  CHECK((best == "portable" || best == "avx2" || best == "avx512"));
  for (SimdVariant v : {SimdVariant::avx2, SimdVariant::avx512}) {
    if (!rbf::cpu::simd_variant_supported(v)) {
      MESSAGE(std::string(rbf::cpu::simd_variant_name(v)) << " not supported here: its checks do not run");
      std::vector<float> x{0}, y{0};
      CHECK_THROWS(rbf::cpu::exp2_block(v, x.data(), y.data(), 1));
    }
  }
}
