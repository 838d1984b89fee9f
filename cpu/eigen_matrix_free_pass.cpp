// The CPU scoring pass without Phi_C: candidates are scored in tiles by the SIMD kernel
// (gaussian_scoring_kernel.hpp), in parallel over tiles.
//
// Each candidate's sums are formed by one kernel call in an order fixed by row and candidate
// indices alone, so the tile size, the thread count and the schedule never change a result.
#include <algorithm>
#include <vector>

#include "cpu/cpu_threads.hpp"
#include "cpu/eigen_backend.hpp"
#include "cpu/gaussian_scoring_kernel.hpp"
#include "cpu/matrix_free_layout.hpp"

namespace rbf::cpu {

namespace {
// Candidates per kernel call: several tiles per thread balance the load; more candidates per
// tile read X fewer times.
std::size_t tile_size(std::size_t active, int threads) {
  const std::size_t per_tile = (active + 4 * static_cast<std::size_t>(threads) - 1) / (4 * static_cast<std::size_t>(threads));
  return std::min<std::size_t>(128, std::max<std::size_t>(8, (per_tile + 7) / 8 * 8));
}

// A reset's kernel call costs rows x (outputs + 2) multiply-adds per candidate and cannot be
// interrupted: with thousands of outputs, tiles shrink toward 8 candidates (E is still read
// once per 8) so that a stop waits for about 2^28 of them per thread, not for 128 candidates.
constexpr double kResetTileWork = 268435456.0;

std::size_t reset_tile_size(std::size_t tile, std::size_t rows, std::size_t outputs) {
  const double per_candidate = static_cast<double>(rows) * static_cast<double>(outputs + 2);
  const auto fits = static_cast<std::size_t>(kResetTileWork / per_candidate);
  return std::min(tile, std::max<std::size_t>(8, fits / 8 * 8));
}
}  // namespace

template <typename T>
void EigenBackend<T>::matrix_free_pass(bool reset, const Vector& q, const std::vector<T>& a) {
  const std::size_t np = free_.rows_padded;
  const std::size_t k = k_;
  q_padded_.assign(np, T(0));
  std::copy(q.data(), q.data() + n_, q_padded_.begin());
  if (reset) {
    e_padded_.assign(np * k, T(0));
    for (std::size_t j = 0; j < k; ++j)
      std::copy(e_.col(static_cast<Eigen::Index>(j)).data(), e_.col(static_cast<Eigen::Index>(j)).data() + n_,
                e_padded_.begin() + static_cast<std::ptrdiff_t>(j * np));
  } else {
    e_padded_.clear();
  }
  // Weighted rows: the kernel forms the unscaled phi, so s moves onto q and E (phi'^T v =
  // phi^T (s v)) and the squares take s^2.
  for (std::size_t i = 0; i < row_scale_.size(); ++i) {
    q_padded_[i] *= row_scale_[i];
    for (std::size_t j = 0; reset && j < k; ++j) e_padded_[j * np + i] *= row_scale_[i];
  }

  std::vector<std::size_t> active;
  active.reserve(count_);
  for (std::size_t c = 0; c < count_; ++c)
    if (!used_[c]) active.push_back(c);
  if (active.empty()) return;
  // Per candidate and row: d multiply-adds for the distance, an exp, and k + 2 on a reset.
  const int team = threads_for_work(threads_, n_ * active.size() * (d_ + 1 + (reset ? k + 2 : 1)), parallel_work_);
  const std::size_t tile =
      reset ? reset_tile_size(tile_size(active.size(), team), np, k) : tile_size(active.size(), team);
  const std::size_t tiles = (active.size() + tile - 1) / tile;
  const auto z_col = static_cast<Eigen::Index>(basis_ - 1);

#pragma omp parallel num_threads(team)
  {
    std::vector<double> z(tile), nn(reset ? tile : 0), g(reset ? tile * k : 0);
    GaussianTile<T> t = layout_tile(free_, d_, gamma_.data(), q_padded_.data());
    t.e = reset ? e_padded_.data() : nullptr;
    t.square_weight = w_padded_.empty() ? nullptr : w_padded_.data();
    t.k = k;
    t.z = z.data();
    t.n = nn.data();
    t.g = g.data();

#pragma omp for schedule(dynamic, 1)
    for (long i = 0; i < static_cast<long>(tiles); ++i) {
      if (reset && this->setup_stop_requested()) continue;  // the rest of the tiles are skipped
      const std::size_t first = static_cast<std::size_t>(i) * tile;
      t.candidates = active.data() + first;
      t.tile = std::min(tile, active.size() - first);
      score_gaussian_tile(simd_, t);

      for (std::size_t s = 0; s < t.tile; ++s) {
        const std::size_t c = t.candidates[s];
        if (shards_) {
          keep_pass_sums(reset, c, z[s], reset ? nn[s] : 0.0, reset ? g.data() + s * k : nullptr);
          continue;
        }
        const auto ci = static_cast<Eigen::Index>(c);
        const T zc = static_cast<T>(z[s]);
        z_history_(ci, z_col) = zc;
        if (reset) {
          n_norm_[c] = static_cast<T>(nn[s]);
          s_proj_[c] = zc * zc;
          for (std::size_t j = 0; j < k; ++j) g_(ci, static_cast<Eigen::Index>(j)) = static_cast<T>(g[s * k + j]);
        } else {
          s_proj_[c] += zc * zc;
          for (std::size_t j = 0; j < k; ++j) g_(ci, static_cast<Eigen::Index>(j)) -= zc * a[j];
        }
      }
    }
  }
}

template void EigenBackend<float>::matrix_free_pass(bool, const Vector&, const std::vector<float>&);
template void EigenBackend<double>::matrix_free_pass(bool, const Vector&, const std::vector<double>&);

}  // namespace rbf::cpu
