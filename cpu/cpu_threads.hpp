// The thread count of one CPU backend's parallel regions, resolved once and passed to each
// region (num_threads) rather than set process-wide, so two backends never change each other.
#pragma once

#include <algorithm>
#include <cstddef>

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

// Elementary operations (a multiply-add, an exp) each thread of a parallel region should get.
// Waking a sleeping thread and joining it costs tens of microseconds on an idle machine, and up
// to a scheduler time slice (milliseconds) on a loaded one, where the woken thread waits for a
// core while the others wait for it at the region's end. 2^20 operations are 0.3-1 ms on one
// core: a region with less work per thread runs on fewer threads, losing at most a few tenths
// of a millisecond per region on an idle machine and saving milliseconds on a busy one.
constexpr std::size_t kWorkPerThread = std::size_t{1} << 20;

// The threads a region of `work` elementary operations gets: at most `threads` (the resolved
// count), at least 1, and no more than its work keeps busy. Results never depend on it: every
// parallel sum is cut into fixed blocks and added in block order.
inline int threads_for_work(int threads, std::size_t work) {
  const std::size_t busy = std::max<std::size_t>(1, work / kWorkPerThread);
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(1, threads)), busy));
}

}  // namespace rbf::cpu
