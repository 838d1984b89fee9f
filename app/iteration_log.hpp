// The per-iteration cost log: CSV rows for machines, spdlog lines or a progress line for people.
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "app/progress_line.hpp"
#include "data/output_target.hpp"
#include "model/trainer.hpp"

namespace rbf::app {

// The CSV goes where the output-path policy resolved it (data::FilePlan::output: never an input
// or another output, symlinks followed, devices and streams in place, the folder checked). It
// is streamed, not replaced atomically like the other outputs, on purpose: it is read while the
// run goes (tail -f, plots), a resumed run appends to it, and a run that fails keeps the rows
// of the iterations it did, which show where it failed. It is opened at the first iteration,
// so a run that fails before one (bad data, memory, set-up) leaves the previous log as it was;
// an existing file keeps its mode, as truncating a file in place does.
class IterationLog {
 public:
  // csv.path empty: no CSV. progress: a compact updating line when stderr is a terminal, a
  // log line per iteration otherwise; without it (--quiet) iterations are logged at debug level.
  // append: continue an existing CSV (a resumed run) instead of starting a new one; its rows
  // past `resumed_at` (the checkpoint's iteration) are cut first: a run killed after its last
  // checkpoint had logged iterations the resumed run does again.
  IterationLog(const data::OutputTarget& csv, bool progress, std::size_t max_nodes, bool append = false,
               std::size_t resumed_at = 0);
  ~IterationLog();
  IterationLog(const IterationLog&) = delete;
  IterationLog& operator=(const IterationLog&) = delete;

  // A partitioned run (trainer.partitions > 1): the CSV gains a last column `part`, the part
  // (1-based) each iteration grew. Call before the first record.
  void add_part_column() { part_column_ = true; }

  void record(const model::IterationRecord& rec);
  // A cross-validated run: the next growth is `growth` (TrainOptions::on_growth_start), to
  // `max_nodes` nodes; the progress line starts with it and counts to that.
  // `growths_after`: how many more growths the run makes after this one, for the estimate of
  // the time left in all.
  void begin_growth(const std::string& growth, std::size_t max_nodes, std::size_t growths_after = 0);
  // An iteration of a fold's growth: on the progress line, or off a terminal summed up in one
  // log line per growth (its nodes and lowest validation error); not in the CSV.
  void record_fold(const model::IterationRecord& rec);
  // Ends the progress line, if one is showing.
  void finish();

  static const char* csv_header();
  static std::string csv_row(const model::IterationRecord& rec);

 private:
  void open_csv();
  void show_progress(const model::IterationRecord& rec);
  void log_fold_growth();

  data::OutputTarget target_;
  bool append_ = false;
  std::size_t resumed_at_ = 0;
  std::FILE* csv_ = nullptr;
  bool log_failed_ = false;  // a write failed: no more rows
  bool part_column_ = false;
  bool quiet_ = false;
  bool progress_ = false;
  bool progress_shown_ = false;
  ProgressLine line_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  // The growth being shown (cross-validated runs), and what its fold iterations reached.
  std::string growth_;
  std::chrono::steady_clock::time_point growth_start_ = start_;
  std::size_t growths_done_ = 0;
  double growths_seconds_ = 0;  // the finished growths' time, for the estimate of the rest
  std::size_t fold_nodes_ = 0, fold_best_nodes_ = 0;
  double fold_best_rmse_ = -1;
};

}  // namespace rbf::app
