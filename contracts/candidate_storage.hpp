// The one rule for whether a backend keeps the candidate matrix Phi_C in memory or evaluates
// it tile by tile on every pass; both backends and the switch's cost model ask it.
#pragma once

#include <cstddef>

namespace rbf::model {

// True when Phi_C, rows x count values of scalar_bytes each, fits within budget_bytes. A
// backend passes the tightest budget it knows (the config's cap, and on a GPU also what the
// device has free); the cost model, which runs before any backend exists, the config's cap.
inline bool store_candidates(std::size_t rows, std::size_t count, std::size_t scalar_bytes, double budget_bytes) {
  return static_cast<double>(rows) * static_cast<double>(count) * static_cast<double>(scalar_bytes) <= budget_bytes;
}

}  // namespace rbf::model
