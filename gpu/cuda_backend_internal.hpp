// Shared by the CUDA backend's host files (cuda_*.cpp): size helpers, constants, for_each_tile.
#pragma once

#include <algorithm>
#include <cstddef>

#include "gpu/cuda_backend.hpp"
#include "gpu/host_sizes.hpp"

namespace rbf::gpu {

// Validation columns allocated at first; next_validation_column doubles them.
inline constexpr std::size_t kInitialValidationColumns = 64;
// Headroom kept free when deciding to store Phi_C, for Q to grow (columns of N values).
inline constexpr std::size_t kBasisHeadroomColumns = 128;
// The free device memory a growth's planned basis may take (reserve_nodes, memory_shortfall):
// all but a reserve for the passes' scratch, which is bounded (matrix-free tiles and decoded
// basis columns take at most 256 MiB each; refinement sizes its chunks by what is free then),
// and the libraries' workspaces. The reserve is a tenth of the free memory but at most 2 GiB, or
// 2% where that is more: on a 141 GB card a tenth would keep 10 GiB from the basis for scratch
// that needs one.
inline double basis_room(double free_bytes) {
  constexpr double kFixedReserve = 2.0 * 1024 * 1024 * 1024;
  return free_bytes - std::min(0.1 * free_bytes, std::max(kFixedReserve, 0.02 * free_bytes));
}

// Defined here, not in a .cpp, so each file whose pass calls it can instantiate it.
template <typename T>
template <typename Fn>
bool CudaBackend<T>::for_each_tile(Fn&& fn, bool setup) {
  if (stored_) {
    fn(phi_.get(), std::size_t{0}, candidates_);
    return true;
  }
  for (std::size_t first = 0; first < candidates_; first += tile_columns_) {
    // Launches only queue work: wait for the tile before asking whether to go on.
    if (setup) {
      context_.synchronize();
      if (setup_stopped()) return false;
    }
    const std::size_t count = std::min(tile_columns_, candidates_ - first);
    evaluate_columns(first, count, tile_.get());
    fn(tile_.get(), first, count);
  }
  return true;
}

}  // namespace rbf::gpu
