// Restarts rbfnet with OMP_WAIT_POLICY=passive: OpenMP's idle threads then sleep instead of spin.
//
// Left at its default, a libgomp worker that finds no work spins for about 300000 iterations at
// every barrier. On a machine whose cores are busy with other processes (a Jetson's camera
// pipelines, parallel builds) the spinning threads take cores from the threads that still have
// work, and a small training took ten times as long as with one thread. libgomp reads
// OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its library constructor, before main() and before
// any constructor of this program: setting them in main() changes nothing, and the C library
// installs the environment only after an executable's .preinit_array has run. Executing the
// program again with the variable set is the one way that reliably reaches libgomp; it costs
// one more program start (a few milliseconds) and keeps the process id, so a parent waiting
// on rbfnet, its signals and its open files are unaffected.
#include "app/omp_wait_policy.hpp"

#include <cstdlib>

#ifdef __linux__
#include <unistd.h>
#endif

namespace rbf::app {

void restart_with_passive_omp_waiting(char** argv) {
#ifdef __linux__
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  // Set before the restart, and so also in the restarted program: it never restarts twice.
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Still here: the restart failed and this process keeps libgomp's default waiting.
#else
  (void)argv;
#endif
}

}  // namespace rbf::app
