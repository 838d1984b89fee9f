// The one-line training progress shown on a terminal: node count, cost per node, errors, and
// elapsed and estimated remaining time, each figure with its unit.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <string>
#include <utility>

#include "model/trainer.hpp"

namespace rbf::app {

// Whether a progress line is on the terminal without its newline: the log's sink ends it
// before a log line, so that the two never share a line (app/logging_setup.cpp).
std::atomic<bool>& progress_line_open();

// "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min".
std::string duration_text(double seconds);

class ProgressLine {
 public:
  // `label`, when given, starts the line: which growth of a cross-validated run it shows.
  // `later_s`: the estimated time of the growths that follow this one (0: none).
  explicit ProgressLine(std::size_t max_nodes, std::string label = "", double later_s = 0)
      : max_nodes_(max_nodes), label_(std::move(label)), later_s_(later_s) {}

  // The line for `rec`, `elapsed_s` seconds into the run.
  std::string text(const model::IterationRecord& rec, double elapsed_s);

 private:
  std::size_t max_nodes_;
  std::string label_;
  double later_s_ = 0;
  std::deque<double> recent_ms_;  // the last iterations' times, for the estimate
};

}  // namespace rbf::app
