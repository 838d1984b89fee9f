// The body of the matrix-free scoring kernel (gaussian_scoring_kernel.hpp), generic over the
// vector width, for each gaussian_kernel_*.cpp to compile for its SIMD variant (simd_vector.hpp
// says how the variants stay apart).
//
// A call walks the rows in blocks small enough for L1/L2 (X's block is reused by every candidate
// of the tile) and, within a block, CT candidates by RT row vectors at a time: CT x RT dot
// products over the d features in registers (one load of x per feature serves CT candidates),
// then the distance, the exp and z += phi q, still in registers. Only statistics passes store
// phi, one row block of CT candidates, to reuse it for ||phi||^2 and phi^T E_j.
#pragma once

#include <algorithm>
#include <cstddef>

#include "cpu/gaussian_scoring_kernel.hpp"
#include "cpu/simd_exp.hpp"
#include "cpu/simd_vector.hpp"

namespace rbf::cpu::simd {
namespace {

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

  for (std::size_t r0 = 0; r0 < n; r0 += block) {
    const std::size_t rows = std::min(block, n - r0);
    for (std::size_t c0 = 0; c0 < t.tile; c0 += CT) {
      // A short last group repeats its last candidate; those results are dropped.
      const std::size_t valid = std::min<std::size_t>(CT, t.tile - c0);
      // The exponent -gamma (||x||^2 + ||c||^2 - 2 x.c) as two fused multiply-adds per value:
      // -gamma ||x||^2 + (-gamma ||c||^2), then + 2 gamma x.c.
      const S* center[CT];
      V neg_gamma[CT], neg_gamma_norm[CT], two_gamma[CT];
      for (int c = 0; c < CT; ++c) {
        const std::size_t index = t.candidates[c0 + std::min<std::size_t>(static_cast<std::size_t>(c), valid - 1)];
        center[c] = t.centers + index * d;
        neg_gamma[c] = Vc::broadcast(-t.gamma[index]);
        neg_gamma_norm[c] = Vc::broadcast(-t.gamma[index] * t.center_norm[index]);
        two_gamma[c] = Vc::broadcast(2 * t.gamma[index]);
      }
      V z[CT];
      for (int c = 0; c < CT; ++c) z[c] = V{};

      for (std::size_t i = r0; i < r0 + rows; i += kStep) {
        V dot[CT][RT];
        for (int c = 0; c < CT; ++c)
          for (int r = 0; r < RT; ++r) dot[c][r] = V{};
        for (std::size_t f = 0; f < d; ++f) {
          const S* xf = t.x + f * n + i;
          V xv[RT];
          for (int r = 0; r < RT; ++r) xv[r] = Vc::load(xf + r * kLanes);
          for (int c = 0; c < CT; ++c) {
            const V cf = Vc::broadcast(center[c][f]);
            for (int r = 0; r < RT; ++r) dot[c][r] += xv[r] * cf;
          }
        }
        for (int r = 0; r < RT; ++r) {
          const V x_norm = Vc::load(t.x_norm + i + r * kLanes);
          const V q = Vc::load(t.q + i + r * kLanes);
          for (int c = 0; c < CT; ++c) {
            V arg = x_norm * neg_gamma[c] + neg_gamma_norm[c];
            arg = dot[c][r] * two_gamma[c] + arg;
            // Rounding can make the distance of nearby points slightly negative: clamp it at 0.
            arg = arg < zero ? arg : zero;
            const V phi = exp_nonpositive<Vc>(arg);
            z[c] += phi * q;
            if (kStatistics) Vc::store(phi_block + c * block + (i - r0) + r * kLanes, phi);
          }
        }
      }

      for (std::size_t c = 0; c < valid; ++c) t.z[c0 + c] += Vc::sum(z[c]);
      if (kStatistics) {
        for (std::size_t c = 0; c < valid; ++c) {
          const S* phi = phi_block + c * block;
          t.n[c0 + c] += dot_block<Vc>(phi, phi, rows);
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
RBF_SIMD_INLINE void exp_block(const typename Vc::Scalar* in, typename Vc::Scalar* out, std::size_t count) {
  using S = typename Vc::Scalar;
  constexpr std::size_t kLanes = static_cast<std::size_t>(Vc::kLanes);
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) Vc::store(out + i, exp_vector<Vc>(Vc::load(in + i)));
  if (i < count) {
    S tail[kLanes] = {};
    std::copy(in + i, in + count, tail);
    Vc::store(tail, exp_vector<Vc>(Vc::load(tail)));
    std::copy(tail, tail + (count - i), out + i);
  }
}

}  // namespace
}  // namespace rbf::cpu::simd
