// Passive OpenMP waiting for rbfnet: idle threads sleep instead of spinning.
#pragma once

namespace rbf::app {

// Restarts this program (same arguments, same process id) with OMP_WAIT_POLICY=passive when the
// environment sets neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT. Call it first thing in main().
// Returns (and the program runs on with the runtime's default waiting) when the environment
// already chose, or when the restart is not possible (no /proc, an emulator that cannot run it).
void restart_with_passive_omp_waiting(char** argv);

}  // namespace rbf::app
