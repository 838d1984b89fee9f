// Tests of the CPU backends' thread counts: small work runs on fewer threads, never on none.
#include <doctest/doctest.h>

#include "cpu/cpu_threads.hpp"

using rbf::cpu::kWorkPerThread;
using rbf::cpu::threads_for_work;

TEST_CASE("cpu threads: a region gets one thread per kWorkPerThread operations, within the resolved count") {
  CHECK(threads_for_work(8, 0) == 1);
  CHECK(threads_for_work(8, kWorkPerThread - 1) == 1);
  CHECK(threads_for_work(8, 2 * kWorkPerThread) == 2);
  CHECK(threads_for_work(8, 3 * kWorkPerThread + 5) == 3);
  CHECK(threads_for_work(8, 1000 * kWorkPerThread) == 8);
  CHECK(threads_for_work(1, 1000 * kWorkPerThread) == 1);
  CHECK(threads_for_work(0, 1000 * kWorkPerThread) == 1);
}

TEST_CASE("cpu threads: growth on the diabetes data (354 rows, 1062 candidates, d = 10) stays on one thread") {
  // The orthogonalization of a 100-node model and the scoring of its candidates: the sizes
  // where a second thread made a training on a loaded 2-core machine 25 times slower.
  CHECK(threads_for_work(16, 354 * 101) == 1);
  CHECK(threads_for_work(16, 354 * 1062 * 1) == 1);
  CHECK(threads_for_work(16, 354 * 1062 * (1 + 2)) == 1);
  // 20000 rows and 2000 candidates is work for every core.
  CHECK(threads_for_work(16, std::size_t{20000} * 2000) == 16);
}
