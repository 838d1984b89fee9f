// How much host memory the machine has free: a fact of the host, below the backends and the
// trainer, which size what they store by it (contracts/host_memory.hpp).
#pragma once

#include <cstddef>

namespace rbf::data {

// MemAvailable from /proc/meminfo, else the free physical pages; 0 when neither is known.
std::size_t available_host_memory_bytes();

}  // namespace rbf::data
