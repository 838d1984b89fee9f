// Makes OpenMP's idle threads sleep instead of spin, before the OpenMP runtime reads its settings.
//
// libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its own library constructor, which
// runs before main() and before any constructor of this program. Left at its default, a worker
// that finds no work spins for up to ~300000 iterations at every barrier; on a machine whose
// cores are busy with other processes (a Jetson's camera pipelines, parallel builds) the spinning
// threads take the core from the one thread that still has work, and a training can take ten
// times as long as on one thread. The executable's .preinit_array runs before any shared
// library's constructor, so the policy set there is the one libgomp sees. A value the user put in
// the environment (OMP_WAIT_POLICY or GOMP_SPINCOUNT) is kept.
#include <cstdlib>

namespace {

void prefer_passive_waiting(int, char**, char**) {
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr)
    setenv("OMP_WAIT_POLICY", "passive", 0);
}

// Not static-initialization order: the dynamic loader calls this before libgomp initializes.
__attribute__((section(".preinit_array"), used)) void (*const kPreferPassiveWaiting)(int, char**, char**) =
    &prefer_passive_waiting;

}  // namespace
