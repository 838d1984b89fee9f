// The thread count of one CPU backend's parallel regions, resolved once and passed to each
// region (num_threads) rather than set process-wide, so two backends never change each other.
#pragma once

#include <algorithm>
#include <cstddef>

#include "cpu/idle_cores.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace rbf::cpu {

// `requested` threads exactly when it is positive. At 0, the cores that other processes leave
// idle when the backend is made (idle_cores_now), within what the OpenMP runtime offers (1
// without OpenMP). On a busy machine a thread beyond the idle cores waits for one, up to a
// scheduler time slice, and every other thread of its region waits for it at the region's end:
// a small training on a 2-core machine busy with two other processes took up to ten times as
// long with both threads as with one.
inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
#ifdef _OPENMP
  return std::max(1, std::min(omp_get_max_threads(), idle_cores_now()));
#else
  return 1;
#endif
}

// Elementary operations (a multiply-add, an exp) below which a parallel region runs on the
// calling thread alone: 2^18 are 0.1-0.3 ms on one core, more than waking a team of sleeping
// threads costs on idle cores (tens of microseconds).
constexpr std::size_t kParallelWork = std::size_t{1} << 18;

// The team of a region of `work` elementary operations: 1 below kParallelWork, else all of
// `threads` (the resolved count). Never a count in between: libgomp ends the surplus threads of
// its pool when a region asks for fewer threads than the one before (2 or more), and starts new
// ones when the next asks for more again. Sizing each region by its work (one thread per 2^20
// operations) gave Gram-Schmidt 2-3 threads and the scoring pass 16 on a 16-core host, and
// started about 1000 threads in a 200-node training of 20,000 rows, which with those teams took
// twice as long as with all threads everywhere; a team of one runs without the pool and leaves
// it as it is. Results never depend on the team: every parallel sum is cut into fixed blocks
// and added in block order.
inline int threads_for_work(int threads, std::size_t work) {
  return work < kParallelWork ? 1 : std::max(1, threads);
}

}  // namespace rbf::cpu
