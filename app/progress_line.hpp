// The one-line training progress shown on a terminal: node count, cost per node, errors, and
// elapsed and estimated remaining time, each figure with its unit.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <utility>

#include "model/trainer.hpp"

namespace rbf::app {

// "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min".
std::string duration_text(double seconds);

class ProgressLine {
 public:
  // `label`, when given, starts the line: which growth of a cross-validated run it shows.
  explicit ProgressLine(std::size_t max_nodes, std::string label = "")
      : max_nodes_(max_nodes), label_(std::move(label)) {}

  // The line for `rec`, `elapsed_s` seconds into the run.
  std::string text(const model::IterationRecord& rec, double elapsed_s);

 private:
  std::size_t max_nodes_;
  std::string label_;
  std::deque<double> recent_ms_;  // the last iterations' times, for the estimate
};

}  // namespace rbf::app
