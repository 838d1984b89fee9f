// The thread count of one CPU backend's parallel regions, resolved once and passed to each
// region (num_threads) rather than set process-wide, so two backends never change each other.
#pragma once

#include <algorithm>
#include <cstddef>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace rbf::cpu {

// The most threads the address-space limit (ulimit -v) leaves room for, their stacks taking at
// most half of it; INT_MAX without a limit (cpu/thread_limit.cpp). Computed once.
int address_space_thread_cap();

// `requested` threads, or every core the OpenMP runtime offers when it is 0 (1 without OpenMP);
// never more than address_space_thread_cap().
inline int resolve_threads(int requested) {
  if (requested > 0) return std::min(requested, address_space_thread_cap());
#ifdef _OPENMP
  return std::min(omp_get_max_threads(), address_space_thread_cap());
#else
  return 1;
#endif
}

// A region runs on one thread or on all of the resolved count, never a count in between:
// libgomp ends the surplus threads of its pool when a region asks for fewer threads than the
// one before (2 or more) and starts new ones when the next asks for more again. Sizing each
// region by its work (one thread per 2^20 operations) gave Gram-Schmidt 2-3 threads and the
// scoring pass 16 on a 16-core host, and started 986 threads in a 200-node training of 20,000
// rows with 16 threads (36 now); a team of one runs without the pool and leaves it as it is.
//
// Which regions get the team depends on whether the team fits in the cores that other
// processes leave idle (idle_cores_now, read when the backend is made):
// - It fits: from kParallelWork elementary operations (a multiply-add, an exp). 2^18 are
//   0.1-0.3 ms on one core, more than waking a team of sleeping threads on idle cores costs
//   (tens of microseconds).
// - It does not: from kWorkPerThread operations per thread of the team. A thread beyond the
//   idle cores waits for one, up to a scheduler time slice (milliseconds), and the others wait
//   for it at the region's end: a small training on a 2-core machine busy with two other
//   processes took ten times as long with two threads as with one while every region took
//   both. 2^20 operations are 0.3-1 ms on one core. The count itself stays: the scheduler
//   shares a core among the runnable threads, so a large region often gets more of the
//   machine with more threads (on that machine, with two busy loops and other builds, the
//   default trained 2,000 rows in 0.65 s and --threads 1 in 1.20 s).
// Results never depend on the team: every parallel sum is cut into fixed blocks and added in
// block order.
constexpr std::size_t kParallelWork = std::size_t{1} << 18;
constexpr std::size_t kWorkPerThread = std::size_t{1} << 20;

// The work from which a region of a backend with `threads` threads (the resolved count) runs
// on all of them, when `idle_cores` cores are idle.
inline std::size_t parallel_work(int threads, int idle_cores) {
  const int team = std::max(1, threads);
  if (team <= idle_cores) return kParallelWork;
  return static_cast<std::size_t>(team) * kWorkPerThread;
}

// The default team (no thread count asked for) of a backend holding `rows` rows: at most one
// thread per kRowsPerThread rows. OpenMP's threads sleep between regions, and waking a team
// costs about a microsecond per thread, which the small regions of a small training pay every
// time: 2,000 rows with the default config grew 200 nodes in 0.220 s on all cores of a
// 64-core host, 0.054 s on 16, 0.061 s on 32 and 0.073 s on 8.
constexpr std::size_t kRowsPerThread = 128;
inline int default_team_for_rows(int threads, std::size_t rows) {
  const auto by_rows = static_cast<int>(std::min<std::size_t>(rows / kRowsPerThread, 1u << 20));
  return std::max(1, std::min(threads, by_rows));
}

// The team of a region of `work` elementary operations: all of `threads` (at least 1) from
// `parallel_work` operations, else 1.
inline int threads_for_work(int threads, std::size_t work, std::size_t parallel_work) {
  return work < parallel_work ? 1 : std::max(1, threads);
}

}  // namespace rbf::cpu
