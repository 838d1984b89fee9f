// The OpenMP team within the address-space limit (ulimit -v): libgomp ends the process with
// "Thread creation failed" when it cannot map a new thread's stack, which no caller can catch.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "contracts/cpu_entry_points.hpp"
#include "cpu/cpu_threads.hpp"

namespace rbf::cpu {

namespace {

constexpr double kMiB = 1048576.0;

// The stack each OpenMP thread maps: OMP_STACKSIZE (a number of KiB, or with a B, K, M or G
// suffix), else glibc's default for new threads, the stack limit (ulimit -s), or 32 MiB where
// that is unlimited.
double thread_stack_bytes() {
  if (const char* text = std::getenv("OMP_STACKSIZE")) {
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    if (end != text && value > 0) {
      while (*end == ' ') ++end;
      const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(*end)));
      const double scale = unit == 'B' ? 1.0 : unit == 'M' ? kMiB : unit == 'G' ? 1024.0 * kMiB : 1024.0;
      return value * scale;
    }
  }
  rlimit stack{};
  if (getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY)
    return static_cast<double>(stack.rlim_cur);
  return 32.0 * kMiB;
}

// Bytes of address space this process maps now (/proc/self/statm's first field); 0 unknown.
double mapped_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0.0;
  unsigned long pages = 0;
  const int read = std::fscanf(f, "%lu", &pages);
  std::fclose(f);
  return read == 1 ? static_cast<double>(pages) * static_cast<double>(sysconf(_SC_PAGESIZE)) : 0.0;
}

int compute_cap() {
  rlimit space{};
  if (getrlimit(RLIMIT_AS, &space) != 0 || space.rlim_cur == RLIM_INFINITY) return INT_MAX;
  const double headroom = static_cast<double>(space.rlim_cur) - mapped_bytes();
  // Half the headroom for stacks at most: the data and the candidates need the rest.
  const double threads = headroom / 2.0 / (thread_stack_bytes() + 65536.0);
  return threads >= 1.0 ? static_cast<int>(std::min(threads, 4096.0)) : 1;
}

}  // namespace

int address_space_thread_cap() {
  static const int cap = compute_cap();
  return cap;
}

int fit_threads_to_address_space() {
  const int cap = address_space_thread_cap();
#ifdef _OPENMP
  if (omp_get_max_threads() > cap) omp_set_num_threads(cap);
#endif
  return cap;
}

}  // namespace rbf::cpu
