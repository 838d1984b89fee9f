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
// Share of the free device memory a growth's planned basis may take (reserve_nodes,
// memory_shortfall); the rest stays for the refinement's and the passes' scratch.
inline constexpr double kBasisShareOfFree = 0.9;

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
