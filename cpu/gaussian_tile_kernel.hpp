// The body of the matrix-free scoring kernel (gaussian_scoring_kernel.hpp), generic over the
// vector width, for each gaussian_kernel_*.cpp to compile for its SIMD variant (simd_vector.hpp
// says how the variants stay apart).
//
// A call walks the rows in blocks small enough for L1/L2 (X's block is reused by every candidate
// of the tile) and, within a block, CT candidates by RT row vectors at a time: CT x RT
// exponents summed over the d features in registers (one load of x per feature serves CT
// candidates), then exp2 and z += phi q, still in registers. Only statistics passes store phi,
// one row block of CT candidates, to reuse it for ||phi||^2 and phi^T E_j.
//
// The exponent is taken in base 2, phi = 2^(-g ||x||^2 - g ||c||^2 + sum_f x_f (2 g c_f)) with
// g = gamma log2(e): each accumulator starts at the first two terms (one FMA) and the features
// add the third with the centers scaled by 2 g beforehand, so no operation is left between the
// last product and exp2, and exp2 needs no multiply by log2(e) (the GPU's pass does the same).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cpu/gaussian_scoring_kernel.hpp"
#include "cpu/simd_exp2.hpp"
#include "cpu/simd_vector.hpp"

namespace rbf::cpu::simd {
namespace {

template <typename S>
constexpr S kLog2e = S(1.4426950408889634074);

// Rows per block: X's block (rows x d) about 16 KiB, between 64 and kMaxRowBlock rows. It
// depends on d and the precision only, so every variant and tiling sums over the same blocks.
constexpr std::size_t kMaxRowBlock = 512;
RBF_SIMD_INLINE std::size_t gaussian_row_block(std::size_t d, std::size_t scalar_bytes) {
  const std::size_t rows = (16384 / (d * scalar_bytes)) / kGaussianRowPadding * kGaussianRowPadding;
  return std::min(kMaxRowBlock, std::max(kGaussianRowPadding, rows));
}

// sum_i a[i] b[i] over rows (a multiple of the vector width), lane by lane, then across lanes.
template <typename Vc>
RBF_SIMD_INLINE double dot_block(const typename Vc::Scalar* a, const typename Vc::Scalar* b, std::size_t rows) {
  typename Vc::V acc{};
  for (std::size_t i = 0; i < rows; i += Vc::kLanes) acc += Vc::load(a + i) * Vc::load(b + i);
  return Vc::sum(acc);
}

template <typename Vc>
RBF_SIMD_INLINE double weighted_square_block(const typename Vc::Scalar* a, const typename Vc::Scalar* w,
                                             std::size_t rows) {
  typename Vc::V acc{};
  for (std::size_t i = 0; i < rows; i += Vc::kLanes) {
    const typename Vc::V v = Vc::load(a + i);
    acc += v * v * Vc::load(w + i);
  }
  return Vc::sum(acc);
}

template <typename Vc, int CT, int RT, bool kStatistics>
RBF_SIMD_INLINE void score_tile(const GaussianTile<typename Vc::Scalar>& t) {
  using S = typename Vc::Scalar;
  using V = typename Vc::V;
  constexpr std::size_t kLanes = static_cast<std::size_t>(Vc::kLanes);
  constexpr std::size_t kStep = kLanes * RT;
  static_assert(kGaussianRowPadding % kStep == 0, "a row block must hold whole steps");
  const std::size_t n = t.rows_padded, d = t.d, k = t.k;
  const std::size_t block = gaussian_row_block(d, sizeof(S));
  const V zero{};

  std::fill(t.z, t.z + t.tile, 0.0);
  if (kStatistics) {
    std::fill(t.n, t.n + t.tile, 0.0);
    std::fill(t.g, t.g + t.tile * k, 0.0);
  }
  // One row block of CT candidates' phi, for the statistics (L1-sized: at most 16 or 32 KiB).
  alignas(64) S phi_block[kStatistics ? CT * kMaxRowBlock : 1];
  // The tile's centers times 2 g, candidate-major (2 g c_f, the features' share of the exponent).
  std::vector<S> scaled(t.tile * d);
  for (std::size_t c = 0; c < t.tile; ++c) {
    const std::size_t index = t.candidates[c];
    const S two_g = 2 * t.gamma[index] * kLog2e<S>;
    for (std::size_t f = 0; f < d; ++f) scaled[c * d + f] = two_g * t.centers[index * d + f];
  }

  for (std::size_t r0 = 0; r0 < n; r0 += block) {
    const std::size_t rows = std::min(block, n - r0);
    for (std::size_t c0 = 0; c0 < t.tile; c0 += CT) {
      // A short last group repeats its last candidate; those results are dropped.
      const std::size_t valid = std::min<std::size_t>(CT, t.tile - c0);
      const S* center[CT];
      V neg_g[CT], neg_g_norm[CT];
      for (int c = 0; c < CT; ++c) {
        const std::size_t at = c0 + std::min<std::size_t>(static_cast<std::size_t>(c), valid - 1);
        const std::size_t index = t.candidates[at];
        center[c] = scaled.data() + at * d;
        const S g = t.gamma[index] * kLog2e<S>;
        neg_g[c] = Vc::broadcast(-g);
        neg_g_norm[c] = Vc::broadcast(-g * t.center_norm[index]);
      }
      V z[CT];
      for (int c = 0; c < CT; ++c) z[c] = V{};

      for (std::size_t i = r0; i < r0 + rows; i += kStep) {
        V arg[CT][RT];
        for (int r = 0; r < RT; ++r) {
          const V x_norm = Vc::load(t.x_norm + i + r * kLanes);
          for (int c = 0; c < CT; ++c) arg[c][r] = x_norm * neg_g[c] + neg_g_norm[c];
        }
        for (std::size_t f = 0; f < d; ++f) {
          const S* xf = t.x + f * n + i;
          V xv[RT];
          for (int r = 0; r < RT; ++r) xv[r] = Vc::load(xf + r * kLanes);
          for (int c = 0; c < CT; ++c) {
            const V cf = Vc::broadcast(center[c][f]);
            for (int r = 0; r < RT; ++r) arg[c][r] += xv[r] * cf;
          }
        }
        for (int r = 0; r < RT; ++r) {
          const V q = Vc::load(t.q + i + r * kLanes);
          for (int c = 0; c < CT; ++c) {
            // Rounding can make the exponent of nearby points slightly positive: clamp it at 0.
            const V a = arg[c][r] < zero ? arg[c][r] : zero;
            const V phi = exp2_nonpositive<Vc>(a);
            z[c] += phi * q;
            if (kStatistics) Vc::store(phi_block + c * block + (i - r0) + r * kLanes, phi);
          }
        }
      }

      for (std::size_t c = 0; c < valid; ++c) t.z[c0 + c] += Vc::sum(z[c]);
      if (kStatistics) {
        for (std::size_t c = 0; c < valid; ++c) {
          const S* phi = phi_block + c * block;
          t.n[c0 + c] += t.square_weight != nullptr ? weighted_square_block<Vc>(phi, t.square_weight + r0, rows)
                                                    : dot_block<Vc>(phi, phi, rows);
          for (std::size_t j = 0; j < k; ++j) t.g[(c0 + c) * k + j] += dot_block<Vc>(phi, t.e + j * n + r0, rows);
        }
      }
    }
  }
}

template <typename Vc, int CT, int RT>
RBF_SIMD_INLINE void score_tile(const GaussianTile<typename Vc::Scalar>& t) {
  if (t.e != nullptr) {
    score_tile<Vc, CT, RT, true>(t);
  } else {
    score_tile<Vc, CT, RT, false>(t);
  }
}

template <typename Vc>
RBF_SIMD_INLINE void exp2_block(const typename Vc::Scalar* in, typename Vc::Scalar* out, std::size_t count) {
  using S = typename Vc::Scalar;
  constexpr std::size_t kLanes = static_cast<std::size_t>(Vc::kLanes);
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) Vc::store(out + i, exp2_vector<Vc>(Vc::load(in + i)));
  if (i < count) {
    S tail[kLanes] = {};
    std::copy(in + i, in + count, tail);
    Vc::store(tail, exp2_vector<Vc>(Vc::load(tail)));
    std::copy(tail, tail + (count - i), out + i);
  }
}

}  // namespace
}  // namespace rbf::cpu::simd
