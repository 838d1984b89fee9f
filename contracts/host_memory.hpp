// The host memory a stored Phi_C may take, and the check that refuses, before anything is
// allocated, what cannot fit (the available memory itself: data/host_memory.hpp).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "data/host_memory.hpp"

namespace rbf::model {

using data::available_host_memory_bytes;

// Share of the available host memory a stored Phi_C may take; the rest stays for X, Q, E,
// the statistics and the other programs on the machine (a Jetson shares it with its GPU).
constexpr double kHostMemoryShare = 0.5;

// kHostMemoryShare of the available host memory, in bytes.
inline double host_candidate_limit_bytes() {
  return kHostMemoryShare * static_cast<double>(available_host_memory_bytes());
}

// "6.4 GiB" ("512.0 MiB" below a GiB), for messages about memory.
inline std::string memory_text(double bytes) {
  const bool gib = bytes >= 1024.0 * 1024.0 * 1024.0;
  char text[64];
  std::snprintf(text, sizeof text, "%.1f %s", bytes / (gib ? 1024.0 * 1024.0 * 1024.0 : 1024.0 * 1024.0),
                gib ? "GiB" : "MiB");
  return text;
}

// "" when `bytes` fit in the available host memory (or that is unknown), else the end of a
// sentence naming both sizes: "needs 6.4 GiB of memory, but only 2.1 GiB is available". An
// allocation past it would fail, or be killed, only after a long wait.
inline std::string host_memory_shortfall(double bytes) {
  const auto available = static_cast<double>(available_host_memory_bytes());
  if (available <= 0 || bytes <= available) return "";
  return "needs " + memory_text(bytes) + " of memory, but only " + memory_text(available) + " is available";
}

}  // namespace rbf::model
