// The machine's available host memory, from /proc/meminfo.
#include "data/host_memory.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace rbf::data {

std::size_t available_host_memory_bytes() {
  // MemAvailable counts reclaimable caches too, unlike the free pages: what a new allocation
  // can really get without swapping (Linux 3.14 and later, so every JetPack).
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    unsigned long long kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return static_cast<std::size_t>(kib) * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size);
  return 0;
}

}  // namespace rbf::data
