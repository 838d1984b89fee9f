// Reads how many cores other processes leave idle, which decides how much work a parallel
// region of the CPU backend needs before it takes all its threads (cpu_threads.hpp).
//
// The fourth field of /proc/loadavg counts the tasks runnable at the moment it is read, which
// the load averages (first three fields) do not: they trail the load by a minute, and they
// count rbfnet's own threads from the run just before, so a loop of trainings on an idle
// machine would see itself as load. This process's own runnable threads (the reader, and
// OpenMP workers still spinning after a region) are not load either: they are counted from
// /proc/self/task and left out.
#include "cpu/idle_cores.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <thread>

#ifdef __linux__
#include <dirent.h>
#endif

namespace rbf::cpu {

namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Parses the unsigned decimal at text[pos...], which must end at `stop` (or at a blank or the
// end when stop is '\0'); false when there is none or it does not fit in a long.
bool parse_count(const std::string& text, std::size_t& pos, char stop, long& value) {
  const std::size_t start = pos;
  value = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const int digit = text[pos] - '0';
    if (value > (std::numeric_limits<long>::max() - digit) / 10) return false;
    value = value * 10 + digit;
    ++pos;
  }
  if (pos == start) return false;
  if (stop == '\0') return pos == text.size() || is_space(text[pos]);
  return pos < text.size() && text[pos] == stop;
}

// The whole of a small file, or false when it cannot be opened.
bool read_small_file(const char* path, std::string& text) {
  std::FILE* file = std::fopen(path, "r");
  if (file == nullptr) return false;
  char buffer[512];
  const std::size_t got = std::fread(buffer, 1, sizeof buffer, file);
  std::fclose(file);
  text.assign(buffer, got);
  return true;
}

// This process's threads that are running or runnable now: 1 (the caller) when unknown.
int own_running_threads() {
  int running = 0;
#ifdef __linux__
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return 1;
  std::string stat;
  while (const dirent* entry = readdir(tasks)) {
    if (!std::isdigit(static_cast<unsigned char>(entry->d_name[0]))) continue;
    const std::string path = std::string("/proc/self/task/") + entry->d_name + "/stat";
    if (read_small_file(path.c_str(), stat) && task_stat_running(stat)) ++running;
  }
  closedir(tasks);
#endif
  return std::max(1, running);
}

}  // namespace

int idle_cores_from_loadavg(const std::string& loadavg, int online_cpus, int own_running) {
  const int cores = std::max(1, online_cpus);
  // Skip the three load averages to the fourth field.
  std::size_t pos = 0;
  for (int field = 0; field < 3; ++field) {
    while (pos < loadavg.size() && is_space(loadavg[pos])) ++pos;
    if (pos == loadavg.size()) return cores;
    while (pos < loadavg.size() && !is_space(loadavg[pos])) ++pos;
  }
  while (pos < loadavg.size() && is_space(loadavg[pos])) ++pos;
  long runnable = 0, tasks = 0;
  if (!parse_count(loadavg, pos, '/', runnable)) return cores;
  ++pos;
  if (!parse_count(loadavg, pos, '\0', tasks) || runnable > tasks) return cores;
  // Every runnable task of another process takes a core.
  const long others = std::max(0L, runnable - std::max(1, own_running));
  if (others >= cores) return 1;
  return cores - static_cast<int>(others);
}

bool task_stat_running(const std::string& stat) {
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return false;
  std::size_t pos = paren + 1;
  while (pos < stat.size() && is_space(stat[pos])) ++pos;
  return pos < stat.size() && stat[pos] == 'R';
}

int idle_cores_now(const char* loadavg_path) {
  // Online CPUs, not this process's affinity mask: the runnable tasks are counted machine-wide.
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::string loadavg;
  if (!read_small_file(loadavg_path, loadavg)) return cores;
  return idle_cores_from_loadavg(loadavg, cores, own_running_threads());
}

}  // namespace rbf::cpu
