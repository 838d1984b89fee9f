// Tests of the CPU backends' thread counts: small work runs on one thread, larger work on all.
#include <doctest/doctest.h>

#include <thread>

#include "cpu/cpu_threads.hpp"
#include "cpu/idle_cores.hpp"

using rbf::cpu::idle_cores_from_loadavg;
using rbf::cpu::idle_cores_now;
using rbf::cpu::kParallelWork;
using rbf::cpu::resolve_threads;
using rbf::cpu::task_stat_running;
using rbf::cpu::threads_for_work;

TEST_CASE("cpu threads: a region gets one thread below kParallelWork operations, else the resolved count") {
  CHECK(threads_for_work(8, 0) == 1);
  CHECK(threads_for_work(8, kParallelWork - 1) == 1);
  // Never a team between 1 and the resolved count (libgomp would end and restart threads).
  CHECK(threads_for_work(8, kParallelWork) == 8);
  CHECK(threads_for_work(8, 3 * kParallelWork + 5) == 8);
  CHECK(threads_for_work(8, 1000 * kParallelWork) == 8);
  CHECK(threads_for_work(1, 1000 * kParallelWork) == 1);
  CHECK(threads_for_work(0, 1000 * kParallelWork) == 1);
}

TEST_CASE("cpu threads: growth on the diabetes data (354 rows, 1062 candidates, d = 10)") {
  // The orthogonalization of a 100-node model runs on one thread whatever the machine.
  CHECK(threads_for_work(16, 354 * 101) == 1);
  // Its scoring passes are worth a team on idle cores; on a machine whose cores are all busy
  // the resolved count is 1, where a second thread made a training 25 times slower.
  CHECK(threads_for_work(16, 354 * 1062 * (1 + 2)) == 16);
  CHECK(threads_for_work(1, 354 * 1062 * (1 + 2)) == 1);
  // 20000 rows and 2000 candidates is work for every core.
  CHECK(threads_for_work(16, std::size_t{20000} * 2000) == 16);
}

TEST_CASE("cpu threads: a thread count given explicitly is used exactly, load or not") {
  CHECK(resolve_threads(1) == 1);
  CHECK(resolve_threads(5) == 5);
  CHECK(resolve_threads(64) == 64);
  const int automatic = resolve_threads(0);
  CHECK(automatic >= 1);
  CHECK(automatic <= std::max(1, static_cast<int>(std::thread::hardware_concurrency())));
}

TEST_CASE("idle cores: the online CPUs less the runnable tasks of other processes") {
  // Only the reader runnable: every core is idle.
  CHECK(idle_cores_from_loadavg("0.00 0.01 0.05 1/120 4242\n", 16, 1) == 16);
  // Two busy loops besides the reader on 2 cores: one core, never none.
  CHECK(idle_cores_from_loadavg("2.10 1.90 1.20 3/99 19715\n", 2, 1) == 1);
  CHECK(idle_cores_from_loadavg("9.00 9.00 9.00 40/300 1\n", 16, 1) == 1);
  CHECK(idle_cores_from_loadavg("1.00 1.00 1.00 5/300 1\n", 16, 1) == 12);
  // This process's own runnable threads (workers still spinning) are not load.
  CHECK(idle_cores_from_loadavg("1.00 1.00 1.00 5/300 1\n", 16, 5) == 16);
  CHECK(idle_cores_from_loadavg("1.00 1.00 1.00 5/300 1\n", 16, 3) == 14);
  // The load averages themselves (which trail by a minute and count past runs) play no part.
  CHECK(idle_cores_from_loadavg("15.00 15.00 15.00 1/300 1\n", 16, 1) == 16);
  // A count of none (a reader that was not counted) is no load; blanks may vary; no newline.
  CHECK(idle_cores_from_loadavg("0.00 0.00 0.00 0/12 7", 4, 1) == 4);
  CHECK(idle_cores_from_loadavg("  0.00\t0.00  0.00   2/12   7", 4, 1) == 3);
  // online_cpus below 1 is taken as 1.
  CHECK(idle_cores_from_loadavg("0.00 0.00 0.00 1/12 7\n", 0, 1) == 1);
}

TEST_CASE("idle cores: text not in /proc/loadavg's form means all online CPUs") {
  for (const char* text : {"", "\n", "garbage", "0.00 0.01 0.05", "0.00 0.01 0.05 \n", "0.00 0.01 0.05 3 12",
                           "0.00 0.01 0.05 /99 1", "0.00 0.01 0.05 3/ 1", "0.00 0.01 0.05 -3/99 1",
                           "0.00 0.01 0.05 3/-99 1", "0.00 0.01 0.05 3x/99 1", "0.00 0.01 0.05 3/99x 1",
                           "0.00 0.01 0.05 100/99 1", "0.00 0.01 0.05 99999999999999999999999/1 1",
                           "0.00 0.01 0.05 1/99999999999999999999999 1"}) {
    CAPTURE(text);
    CHECK(idle_cores_from_loadavg(text, 8, 1) == 8);
  }
  // Embedded NUL bytes end nothing early and make the text malformed, not a crash.
  CHECK(idle_cores_from_loadavg(std::string("0.0 0.0 0.0 2\0/9 1", 19), 8, 1) == 8);
}

TEST_CASE("idle cores: a missing or unreadable load file means all online CPUs") {
  const int online = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  CHECK(idle_cores_now("/nonexistent/loadavg") == online);
  CHECK(idle_cores_now("/") == online);  // a directory: read fails, the text is empty
  const int now = idle_cores_now();
  CHECK(now >= 1);
  CHECK(now <= online);
}

TEST_CASE("idle cores: a task's state follows the last parenthesis of its name") {
  CHECK(task_stat_running("12 (rbfnet) R 1 12 12 0"));
  CHECK_FALSE(task_stat_running("12 (rbfnet) S 1 12 12 0"));
  CHECK(task_stat_running("12 (a) b (c)) R 1"));
  CHECK_FALSE(task_stat_running("12 (R) S 1"));
  CHECK_FALSE(task_stat_running(""));
  CHECK_FALSE(task_stat_running("12 rbfnet R"));
  CHECK_FALSE(task_stat_running("12 (rbfnet)"));
}
