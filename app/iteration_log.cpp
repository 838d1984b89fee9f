// Per-iteration cost log: streamed CSV rows, and one line per iteration for people.
#include "app/iteration_log.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "data/errors.hpp"
#include "data/text.hpp"

namespace rbf::app {

IterationLog::IterationLog(const data::OutputTarget& csv, bool progress, std::size_t max_nodes, bool append,
                           std::size_t resumed_at)
    : target_(csv), append_(append), resumed_at_(resumed_at), quiet_(!progress), line_(max_nodes) {
  progress_ = progress && ::isatty(::fileno(stderr)) && spdlog::get_level() <= spdlog::level::info;
}

IterationLog::~IterationLog() {
  if (csv_) std::fclose(csv_);
}

namespace {

// The log's rows up to `iteration` (and its header), as the file holds them: what a resumed
// run keeps of a log it continues.
std::string rows_up_to(const std::string& path, std::size_t iteration) {
  std::FILE* in = std::fopen(path.c_str(), "r");
  if (!in) return std::string();
  std::string kept, line;
  char buf[4096];
  bool header = true;
  while (std::fgets(buf, sizeof buf, in)) {
    line += buf;
    if (line.empty() || line.back() != '\n') continue;  // a row longer than the buffer
    const unsigned long long number = std::strtoull(line.c_str(), nullptr, 10);
    if (header || number <= iteration) kept += line;
    header = false;
    line.clear();
  }
  std::fclose(in);
  return kept;  // an unfinished last row (a kill mid-write) is dropped
}

}  // namespace

void IterationLog::open_csv() {
  if (append_ && resumed_at_ > 0 && target_.stream_fd < 0 && !target_.in_place) {
    // Rewritten in place (the log is streamed, not replaced: see the class comment).
    const std::string kept = rows_up_to(target_.resolved, resumed_at_);
    std::FILE* out = std::fopen(target_.resolved.c_str(), "w");
    const bool written = out && std::fputs(kept.c_str(), out) >= 0;
    if (!(out && std::fclose(out) == 0 && written))
      throw RuntimeError("cannot write the iteration log '" + target_.path + "': " + std::strerror(errno));
  }
  const char* mode = append_ ? "a" : "w";
  if (target_.stream_fd >= 0) {
    const int fd = ::dup(target_.stream_fd);  // fclose must not close the process's own stream
    csv_ = fd >= 0 ? ::fdopen(fd, mode) : nullptr;
    if (!csv_ && fd >= 0) ::close(fd);
  } else {
    csv_ = std::fopen(target_.resolved.c_str(), mode);
  }
  if (!csv_) throw RuntimeError("cannot write the iteration log '" + target_.path + "': " + std::strerror(errno));
  if (!append_ || std::ftell(csv_) <= 0) std::fprintf(csv_, "%s%s\n", csv_header(), part_column_ ? ",part" : "");
}

const char* IterationLog::csv_header() {
  return "iteration,nodes,backend,select_ms,add_ms,update_ms,evaluate_ms,total_ms,train_rmse,"
         "val_rmse,val_accuracy,row,width,dependent,refine_ms,event";
}

std::string IterationLog::csv_row(const model::IterationRecord& r) {
  // Every number exactly (data::round_trip_text): the log is read by programs, and a rounded
  // RMSE or width is not the one the run used. A negative validation figure means "none".
  const auto number = [](double v) { return data::round_trip_text(v); };
  const auto optional = [](double v) { return v < 0 ? std::string() : data::round_trip_text(v); };
  std::string row = std::to_string(r.iteration) + ',' + std::to_string(r.nodes) + ',' + r.backend;
  for (const double v : {r.select_ms, r.add_ms, r.update_ms, r.evaluate_ms, r.total_ms, r.train_rmse})
    row += ',' + number(v);
  row += ',' + optional(r.val_rmse) + ',' + optional(r.val_accuracy) + ',' + std::to_string(r.row) + ',' +
         number(r.width) + ',' + (r.dependent ? "1" : "0") + ',' + number(r.refine_ms) + ',';
  // The event is free text: quote it (RFC 4180) so commas in it cannot shift columns.
  if (!r.event.empty()) {
    row += '"';
    for (char c : r.event) row += c == '"' ? std::string("\"\"") : std::string(1, c);
    row += '"';
  }
  return row;
}

void IterationLog::record(const model::IterationRecord& r) {
  if (!csv_ && !target_.path.empty() && !log_failed_) open_csv();
  if (csv_) {
    const std::string row = csv_row(r) + (part_column_ ? "," + std::to_string(r.part) : std::string());
    if (std::fprintf(csv_, "%s\n", row.c_str()) < 0 || std::fflush(csv_) != 0) {
      // The log is a by-product: a full disk or a file-size limit ends it, not the training,
      // whose model and checkpoints are what the run is for.
      spdlog::warn("cannot write the iteration log '{}' at iteration {} ({}); training goes on without it",
                   target_.path, r.iteration, std::strerror(errno));
      std::fclose(csv_);
      csv_ = nullptr;
      log_failed_ = true;
    }
  }
  if (progress_) {
    show_progress(r);
    return;
  }
  std::string val;
  if (r.val_rmse >= 0) val = fmt::format(" val_rmse {:.5g}", r.val_rmse);
  if (r.val_accuracy >= 0) val += fmt::format(" val_acc {:.4f}", r.val_accuracy);
  // A quiet run prints its summary only, terminal or not; --log-level debug still shows these.
  spdlog::log(quiet_ ? spdlog::level::debug : spdlog::level::info,
              "iter {:4} nodes {:4} {} {:8.3f} ms (select {:.3f} ms, add {:.3f} ms, update {:.3f} ms, eval {:.3f} ms) "
              "train_rmse {:.5g} (standardized){}{}",
              r.iteration, r.nodes, r.backend, r.total_ms, r.select_ms, r.add_ms, r.update_ms, r.evaluate_ms,
              r.train_rmse, val, r.dependent ? " (dependent candidate skipped)" : "");
}

void IterationLog::show_progress(const model::IterationRecord& r) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // Clears to the end of the line: a fold's line can be longer than the next one.
  std::fprintf(stderr, "\r  %s\x1b[K", line_.text(r, elapsed).c_str());
  std::fflush(stderr);
  progress_shown_ = true;
  progress_line_open() = true;
}

void IterationLog::begin_growth(const std::string& growth, std::size_t max_nodes, std::size_t growths_after) {
  finish();  // the previous growth's last line stays on the screen
  log_fold_growth();
  const auto now = std::chrono::steady_clock::now();
  if (!growth_.empty()) {
    ++growths_done_;
    growths_seconds_ += std::chrono::duration<double>(now - growth_start_).count();
  }
  growth_ = growth;
  growth_start_ = now;
  const double per_growth = growths_done_ > 0 ? growths_seconds_ / static_cast<double>(growths_done_) : 0.0;
  line_ = ProgressLine(max_nodes, growth, per_growth * static_cast<double>(growths_after));
}

void IterationLog::record_fold(const model::IterationRecord& r) {
  if (progress_) {
    show_progress(r);
    return;
  }
  fold_nodes_ = r.nodes;
  if (r.val_rmse >= 0 && (fold_best_rmse_ < 0 || r.val_rmse < fold_best_rmse_)) {
    fold_best_rmse_ = r.val_rmse;
    fold_best_nodes_ = r.nodes;
  }
}

// Off a terminal, one line per fold growth: a line per fold iteration would be hundreds.
void IterationLog::log_fold_growth() {
  if (fold_nodes_ == 0) return;
  const std::string best = fold_best_rmse_ >= 0 ? fmt::format(", lowest validation RMSE {:.5g} at {} nodes",
                                                              fold_best_rmse_, fold_best_nodes_)
                                                : std::string();
  spdlog::log(quiet_ ? spdlog::level::debug : spdlog::level::info, "{}: grew {} nodes{}", growth_, fold_nodes_, best);
  fold_nodes_ = fold_best_nodes_ = 0;
  fold_best_rmse_ = -1;
}

void IterationLog::finish() {
  if (!progress_) log_fold_growth();
  // A log line since may have ended the progress line already.
  if (progress_shown_ && progress_line_open().exchange(false)) std::fprintf(stderr, "\n");
  progress_shown_ = false;
}

}  // namespace rbf::app
