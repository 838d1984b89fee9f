// The one rule for whether a backend keeps the candidate matrix Phi_C in memory or evaluates
// it tile by tile on every pass: both backends and the switch's cost model ask it, and the
// decision carries its reason, which `rbfnet train` prints.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "contracts/host_memory.hpp"

namespace rbf::model {

// What the caller of Backend::set_candidates knows: the config's cap on Phi_C and, where its
// cost model predicted them, the run's milliseconds with Phi_C stored and computed on every
// pass (0: not predicted; a backend may then measure its own). `margin`: how many times
// cheaper computing must be before storing is left (a noisy prediction asks for more).
struct StorageRequest {
  double budget_bytes = 0;
  double stored_ms = 0;
  double computed_ms = 0;
  double margin = 1.0;
};

// Everything the rule weighs: the request, Phi_C's size as the backend would hold it, and the
// memory the backend has for it (host share, or device memory free beside room for Q).
struct StorageFacts {
  double phi_bytes = 0;
  double budget_bytes = 0;
  const char* budget_key = "candidates.memory_budget_mb";  // the setting that sets budget_bytes
  double memory_bytes = 0;
  double stored_ms = 0;
  double computed_ms = 0;
  double margin = 1.0;
};

// Store or compute, and why, in words that complete "Phi_C stored: ..." or "... computed: ...".
struct StorageDecision {
  bool store = true;
  std::string reason;
};

namespace storage_detail {
inline std::string milliseconds(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g ms", ms);
  return text;
}
}  // namespace storage_detail

// Compute when Phi_C exceeds the budget or the memory, or when computing is predicted
// `margin` times cheaper than storing; else store.
inline StorageDecision decide_candidate_storage(const StorageFacts& f) {
  const std::string size = memory_text(f.phi_bytes);
  if (!(f.phi_bytes <= f.budget_bytes))
    return {false, "its " + size + " exceed the budget of " + memory_text(f.budget_bytes) + " (" +
                       f.budget_key + ")"};
  if (!(f.phi_bytes <= f.memory_bytes))
    return {false, "its " + size + " exceed the " + memory_text(f.memory_bytes) + " of memory it may take"};
  const bool costed = f.stored_ms > 0 && f.computed_ms > 0;
  const std::string costs = costed ? " (" + storage_detail::milliseconds(f.stored_ms) + " stored against " +
                                         storage_detail::milliseconds(f.computed_ms) + " computed)"
                                   : "";
  if (costed && f.computed_ms * f.margin < f.stored_ms)
    return {false, "evaluating it on every pass is predicted cheaper" + costs};
  if (costed) return {true, "it fits in " + size + " and reading it is cheaper" + costs};
  return {true, "it fits in " + size + " within the budget and memory"};
}

// The facts of a request for a Phi_C of rows x count values of scalar_bytes each, on a
// backend with `memory_bytes` for it.
inline StorageFacts storage_facts(const StorageRequest& request, std::size_t rows, std::size_t count,
                                  std::size_t scalar_bytes, double memory_bytes) {
  StorageFacts f;
  f.phi_bytes = static_cast<double>(rows) * static_cast<double>(count) * static_cast<double>(scalar_bytes);
  f.budget_bytes = request.budget_bytes;
  f.memory_bytes = memory_bytes;
  f.stored_ms = request.stored_ms;
  f.computed_ms = request.computed_ms;
  f.margin = request.margin;
  return f;
}

}  // namespace rbf::model
