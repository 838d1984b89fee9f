// Whether this process is a fork() child of the one that loaded the module: GNU OpenMP's thread
// pool does not survive fork (the child's next parallel region waits for threads it does not
// have), so a child runs everything on one thread.
#pragma once

#include <atomic>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace rbf::python {

inline std::atomic<bool>& in_forked_child() {
  static std::atomic<bool> forked{false};
  return forked;
}

// os.register_at_fork(after_in_child=...): the child's parallel regions use one thread, and
// its fits one trainer thread (multiprocessing's default on Linux forks).
inline void after_fork_in_child() {
  in_forked_child() = true;
#if defined(_OPENMP)
  omp_set_num_threads(1);
#endif
}

}  // namespace rbf::python
