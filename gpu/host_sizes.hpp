// Size arithmetic shared by the GPU host code: padding to a multiple, and sizes as the int
// arguments kernels and cuBLAS take.
#pragma once

#include <cstddef>

namespace rbf::gpu {

inline std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

// Callers reject data too large for 32-bit indexing before any launch (set_training_data,
// set_candidates, set_data).
inline int as_int(std::size_t v) { return static_cast<int>(v); }

}  // namespace rbf::gpu
