// The thread count of one CPU backend's parallel regions, resolved once and passed to each
// region (num_threads) rather than set process-wide, so two backends never change each other.
#pragma once

#ifdef _OPENMP
#include <omp.h>
#endif

namespace rbf::cpu {

// `requested` threads, or every core the OpenMP runtime offers when it is 0 (1 without OpenMP).
inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace rbf::cpu
