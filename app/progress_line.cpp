// Progress text and the remaining-time estimate.
#include "app/progress_line.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numeric>

namespace rbf::app {

namespace {

// An iteration's cost grows with the model, so the estimate follows the latest iterations
// rather than the average since the start.
constexpr std::size_t kRecentIterations = 10;

}  // namespace

std::atomic<bool>& progress_line_open() {
  static std::atomic<bool> open{false};
  return open;
}

std::string duration_text(double seconds) {
  if (seconds < 1) return fmt::format("{:.0f} ms", seconds * 1000);
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 3600) return fmt::format("{} min {:02} s", whole / 60, whole % 60);
  return fmt::format("{} h {:02} min", whole / 3600, whole % 3600 / 60);
}

std::string ProgressLine::text(const model::IterationRecord& r, double elapsed_s) {
  recent_ms_.push_back(r.total_ms + r.refine_ms);
  if (recent_ms_.size() > kRecentIterations) recent_ms_.pop_front();
  const double ms_per_node =
      std::accumulate(recent_ms_.begin(), recent_ms_.end(), 0.0) / static_cast<double>(recent_ms_.size());
  std::string line = label_.empty() ? std::string() : label_ + ": ";
  line += fmt::format("node {}/{}  {}  {:.2f} ms/node  train_rmse {:.5g}", r.nodes, max_nodes_, r.backend,
                      ms_per_node, r.train_rmse);
  if (r.val_rmse >= 0) line += fmt::format("  val_rmse {:.5g}", r.val_rmse);
  if (r.val_accuracy >= 0) line += fmt::format("  val_acc {:.4f}", r.val_accuracy);
  line += "  elapsed " + duration_text(elapsed_s);
  // At most this much: early stopping or the goal may end the growth sooner.
  const double growth_left =
      r.nodes < max_nodes_ ? ms_per_node / 1000 * static_cast<double>(max_nodes_ - r.nodes) : 0.0;
  if (later_s_ > 0) {
    // The later growths at the pace of the finished ones: an estimate, not a bound.
    line += ", about " + duration_text(growth_left + later_s_) + " left in all";
  } else if (r.nodes < max_nodes_) {
    line += ", up to " + duration_text(growth_left) + " left";
  }
  return line;
}

}  // namespace rbf::app
