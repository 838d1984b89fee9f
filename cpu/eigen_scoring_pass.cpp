// The CPU scoring pass: one read of every unused candidate column per iteration.
//
// For each candidate: z_c = phi_c^T q, then s_c += z_c^2 and g_c -= z_c a (or, on reset,
// n_c = ||phi_c||^2, s_c = z_c^2, g_c = phi_c^T E). Stored candidates are read from Phi_C
// here; otherwise matrix_free_pass (eigen_matrix_free_pass.cpp) computes each Gaussian as it
// goes. The two agree to float rounding, not bit for bit: the matrix-free distances are
// ||x||^2 + ||c||^2 - 2 x.c and its exp is a polynomial, where Phi_C holds the exact
// per-feature distances and std::exp of candidate_column.
#include <algorithm>
#include <vector>

#include "cpu/cpu_threads.hpp"
#include "cpu/eigen_backend.hpp"
#include "contracts/gaussian_columns.hpp"

namespace rbf::cpu {

using model::block_dot;
using model::kRowBlock;

namespace {
// Candidates per work item: enough to amortize the scheduling, few enough to balance 2+ threads.
constexpr std::size_t kCandidateTile = 16;
}  // namespace

template <typename T>
void EigenBackend<T>::scoring_pass(bool reset, const Vector& q, const std::vector<T>& a) {
  // A shard's passes keep their partial sums (keep_pass_sums); every slot is summed, used
  // candidates' zeros included, so that all shards sum the same count whichever way each
  // holds Phi_C.
  if (shards_) pass_sums_.assign(count_ * pass_stride(reset), 0.0);
  if (stored_) {
    stored_pass(reset, q, a);
  } else {
    matrix_free_pass(reset, q, a);
  }
  if (shards_) apply_shard_sums(reset, a);
}

template <typename T>
void EigenBackend<T>::apply_shard_sums(bool reset, const std::vector<T>& a) {
  shards_->sum(pass_sums_.data(), pass_sums_.size());
  const auto z_col = static_cast<Eigen::Index>(basis_ - 1);
  const std::size_t stride = pass_stride(reset);
  for (std::size_t c = 0; c < count_; ++c) {
    if (used_[c]) continue;
    const double* slot = pass_sums_.data() + c * stride;
    const auto ci = static_cast<Eigen::Index>(c);
    const T zc = static_cast<T>(slot[0]);
    z_history_(ci, z_col) = zc;
    if (reset) {
      n_norm_[c] = static_cast<T>(slot[1]);
      s_proj_[c] = zc * zc;
      for (std::size_t j = 0; j < k_; ++j) g_(ci, static_cast<Eigen::Index>(j)) = static_cast<T>(slot[2 + j]);
    } else {
      s_proj_[c] += zc * zc;
      for (std::size_t j = 0; j < k_; ++j) g_(ci, static_cast<Eigen::Index>(j)) -= zc * a[j];
    }
  }
}

template <typename T>
void EigenBackend<T>::stored_pass(bool reset, const Vector& q, const std::vector<T>& a) {
  const auto z_col = static_cast<Eigen::Index>(basis_ - 1);
  const std::size_t tiles = (count_ + kCandidateTile - 1) / kCandidateTile;
  const std::size_t k = k_;

  // Each candidate not yet used reads its column once, and E's k columns on a reset.
  std::size_t active = 0;
  for (std::size_t c = 0; c < count_; ++c) active += used_[c] ? 0 : 1;
  const int team = threads_for_work(threads_, n_ * active * (reset ? k + 2 : 1), parallel_work_);
#pragma omp parallel num_threads(team)
  {
    // Partial sums per candidate of the tile: z, then n and g_j on reset.
    std::vector<T> z(kCandidateTile), nn(kCandidateTile), g(kCandidateTile * k);

#pragma omp for schedule(dynamic, 1)
    for (long tile = 0; tile < static_cast<long>(tiles); ++tile) {
      const std::size_t c0 = static_cast<std::size_t>(tile) * kCandidateTile;
      const std::size_t c1 = std::min(count_, c0 + kCandidateTile);
      bool any = false;
      for (std::size_t c = c0; c < c1; ++c) any = any || !used_[c];
      if (!any) continue;
      std::fill(z.begin(), z.end(), T(0));
      std::fill(nn.begin(), nn.end(), T(0));
      std::fill(g.begin(), g.end(), T(0));

      for (std::size_t r0 = 0; r0 < n_; r0 += kRowBlock) {
        // A reset with thousands of outputs spends seconds on one tile: poll per row block.
        if (reset && this->setup_stop_requested()) break;
        const std::size_t rows = std::min(kRowBlock, n_ - r0);
        for (std::size_t c = c0; c < c1; ++c) {
          if (used_[c]) continue;
          const std::size_t lc = c - c0;
          const T* phi = phi_.col(static_cast<Eigen::Index>(c)).data() + r0;
          z[lc] += block_dot(phi, q.data() + r0, rows);
          if (reset) {
            nn[lc] += block_dot(phi, phi, rows);
            for (std::size_t j = 0; j < k; ++j)
              g[lc * k + j] += block_dot(phi, e_.col(static_cast<Eigen::Index>(j)).data() + r0, rows);
          }
        }
      }

      for (std::size_t c = c0; c < c1; ++c) {
        if (used_[c]) continue;
        const std::size_t lc = c - c0;
        if (shards_) {
          keep_pass_sums(reset, c, z[lc], nn[lc], g.data() + lc * k);
          continue;
        }
        const auto ci = static_cast<Eigen::Index>(c);
        z_history_(ci, z_col) = z[lc];
        if (reset) {
          n_norm_[c] = nn[lc];
          s_proj_[c] = z[lc] * z[lc];
          for (std::size_t j = 0; j < k; ++j) g_(ci, static_cast<Eigen::Index>(j)) = g[lc * k + j];
        } else {
          s_proj_[c] += z[lc] * z[lc];
          for (std::size_t j = 0; j < k; ++j) g_(ci, static_cast<Eigen::Index>(j)) -= z[lc] * a[j];
        }
      }
    }
  }
}

#define RBF_INSTANTIATE_SCORING_PASS(T)                                                  \
  template void EigenBackend<T>::scoring_pass(bool, const Vector&, const std::vector<T>&); \
  template void EigenBackend<T>::stored_pass(bool, const Vector&, const std::vector<T>&);  \
  template void EigenBackend<T>::apply_shard_sums(bool, const std::vector<T>&);
RBF_INSTANTIATE_SCORING_PASS(float)
RBF_INSTANTIATE_SCORING_PASS(double)
#undef RBF_INSTANTIATE_SCORING_PASS

}  // namespace rbf::cpu
