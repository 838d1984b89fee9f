// How much host memory the machine has free, for the default limit on a stored Phi_C
// (declared here, defined in cpu/host_memory.cpp).
#pragma once

#include <cstddef>

namespace rbf::model {

// Share of the available host memory a stored Phi_C may take; the rest stays for X, Q, E,
// the statistics and the other programs on the machine (a Jetson shares it with its GPU).
constexpr double kHostMemoryShare = 0.5;

// MemAvailable from /proc/meminfo, else the free physical pages; 0 when neither is known.
std::size_t available_host_memory_bytes();

// kHostMemoryShare of the available host memory, in bytes.
inline double host_candidate_limit_bytes() {
  return kHostMemoryShare * static_cast<double>(available_host_memory_bytes());
}

}  // namespace rbf::model
