// Tests of the CPU backends' thread counts: small work runs on one thread, larger work on all, by the load.
#include <doctest/doctest.h>

#include <thread>

#include "cpu/cpu_threads.hpp"
#include "cpu/idle_cores.hpp"

using rbf::cpu::idle_cores_from_loadavg;
using rbf::cpu::idle_cores_now;
using rbf::cpu::kParallelWork;
using rbf::cpu::kWorkPerThread;
using rbf::cpu::parallel_work;
using rbf::cpu::resolve_threads;
using rbf::cpu::task_stat_running;
using rbf::cpu::threads_for_work;

TEST_CASE("cpu threads: a region gets one thread below its parallel work, else the whole resolved count") {
  CHECK(threads_for_work(8, 0, kParallelWork) == 1);
  CHECK(threads_for_work(8, kParallelWork - 1, kParallelWork) == 1);
  // Never a team between 1 and the resolved count (libgomp would end and restart threads).
  CHECK(threads_for_work(8, kParallelWork, kParallelWork) == 8);
  CHECK(threads_for_work(8, 3 * kParallelWork + 5, kParallelWork) == 8);
  CHECK(threads_for_work(1, 1000 * kParallelWork, kParallelWork) == 1);
  CHECK(threads_for_work(0, 1000 * kParallelWork, kParallelWork) == 1);
}

TEST_CASE("cpu threads: a team that fits in the idle cores starts at kParallelWork, else at kWorkPerThread a thread") {
  CHECK(parallel_work(16, 16) == kParallelWork);
  CHECK(parallel_work(2, 2) == kParallelWork);
  CHECK(parallel_work(4, 16) == kParallelWork);
  CHECK(parallel_work(2, 1) == 2 * kWorkPerThread);
  CHECK(parallel_work(16, 12) == 16 * kWorkPerThread);
  CHECK(parallel_work(16, 0) == 16 * kWorkPerThread);
  CHECK(parallel_work(0, 1) == kParallelWork);
  // A busy machine asks each thread for as much work as an idle one asks of the whole team.
  CHECK(kParallelWork <= kWorkPerThread);
}

TEST_CASE("cpu threads: growth on the diabetes data (354 rows, 1062 candidates, d = 10)") {
  const std::size_t cgs_100_nodes = 354 * 101, scoring_reset = 354 * 1062 * (1 + 2);
  // The orthogonalization of a 100-node model runs on one thread whatever the machine.
  CHECK(threads_for_work(16, cgs_100_nodes, parallel_work(16, 16)) == 1);
  // Its scoring passes take a team on idle cores, and one thread on a 2-core machine busy
  // with other work, where a second thread made a training 25 times slower.
  CHECK(threads_for_work(16, scoring_reset, parallel_work(16, 16)) == 16);
  CHECK(threads_for_work(2, scoring_reset, parallel_work(2, 1)) == 1);
  // 20000 rows and 2000 candidates is work for every core, busy or not.
  CHECK(threads_for_work(16, std::size_t{20000} * 2000, parallel_work(16, 1)) == 16);
}

TEST_CASE("cpu threads: a thread count given explicitly is used exactly") {
  CHECK(resolve_threads(1) == 1);
  CHECK(resolve_threads(5) == 5);
  CHECK(resolve_threads(64) == 64);
  CHECK(resolve_threads(0) >= 1);
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

TEST_CASE("cpu threads: the default team is one thread per 128 rows, within the cores") {
  using rbf::cpu::default_team_for_rows;
  CHECK(default_team_for_rows(64, 2000) == 15);     // 2,000 rows: not all 64 cores
  CHECK(default_team_for_rows(64, 200000) == 64);   // enough rows for every core
  CHECK(default_team_for_rows(16, 2000) == 15);
  CHECK(default_team_for_rows(2, 2000) == 2);
  CHECK(default_team_for_rows(64, 100) == 1);       // fewer rows than a thread's share
  CHECK(default_team_for_rows(64, 0) == 1);
}
