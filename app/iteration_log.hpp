// The per-iteration cost log: CSV rows for machines, spdlog lines or a progress line for people.
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "app/progress_line.hpp"
#include "model/trainer.hpp"

namespace rbf::app {

class IterationLog {
 public:
  // csv_path empty: no CSV. progress: a compact updating line when stderr is a terminal, a
  // log line per iteration otherwise; without it (--quiet) iterations are logged at debug level.
  // append: continue an existing CSV (a resumed run) instead of starting a new one.
  IterationLog(const std::string& csv_path, bool progress, std::size_t max_nodes, bool append = false);
  ~IterationLog();
  IterationLog(const IterationLog&) = delete;
  IterationLog& operator=(const IterationLog&) = delete;

  void record(const model::IterationRecord& rec);
  // Ends the progress line, if one is showing.
  void finish();

  static const char* csv_header();
  static std::string csv_row(const model::IterationRecord& rec);

 private:
  std::string csv_path_;
  std::FILE* csv_ = nullptr;
  bool quiet_ = false;
  bool progress_ = false;
  bool progress_shown_ = false;
  ProgressLine line_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace rbf::app
