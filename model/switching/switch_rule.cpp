// The automatic CPU -> GPU switch rule: migrate once the GPU's predicted cost, migration
// amortized, beats the CPU's measured one for `confirm` iterations in a row.
#include "model/switching/switch_rule.hpp"

#include <algorithm>
#include <cstdio>

namespace rbf::model {

namespace {

std::string format(const char* pattern, double a, double b, double c, double d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, pattern, a, b, c, d);
  return buf;
}

}  // namespace

SwitchPolicy::SwitchPolicy(const BackendConfig& config, const CostModel& gpu, const MigrationModel& migration)
    : config_(config), gpu_(gpu), migration_(migration) {}

bool SwitchPolicy::should_switch(const IterationShape& shape, double measured_cpu_ms, std::size_t remaining_iterations,
                                 double migration_bytes) {
  if (switched_) {
    // The trainer migrates once; a second "yes" would ask it to move a state that has moved.
    reason_ = "already switched";
    return false;
  }
  if (config_.switch_at_nodes > 0) {
    if (shape.nodes >= config_.switch_at_nodes) {
      switched_ = true;
      reason_ = "forced by backend.switch_at_nodes = " + std::to_string(config_.switch_at_nodes) + " at " +
                std::to_string(shape.nodes) + " nodes";
      return true;
    }
    reason_ = "waiting for backend.switch_at_nodes = " + std::to_string(config_.switch_at_nodes) + " (now " +
              std::to_string(shape.nodes) + " nodes)";
    return false;
  }

  last_gpu_ms_ = gpu_.predict_ms(shape);
  last_migration_ms_ = migration_.predict_ms(migration_bytes);
  if (remaining_iterations == 0) {
    // Nothing is left to run on the GPU, so moving there can only cost time.
    wins_in_a_row_ = 0;
    reason_ = "no iterations left to amortize the migration";
    return false;
  }
  const double amortized = last_migration_ms_ / static_cast<double>(std::max<std::size_t>(1, remaining_iterations));
  const double gpu_total = last_gpu_ms_ + amortized;
  const std::size_t confirm = std::max<std::size_t>(1, config_.confirm);
  const std::string figures =
      format("GPU %.4g ms predicted + migration %.4g ms / %.0f iterations = %.4g ms", last_gpu_ms_, last_migration_ms_,
             static_cast<double>(remaining_iterations), gpu_total);
  if (gpu_total < measured_cpu_ms) {
    ++wins_in_a_row_;
    const std::string vs = format(" < CPU %.4g ms measured", measured_cpu_ms, 0, 0, 0);
    if (wins_in_a_row_ >= confirm) {
      switched_ = true;
      reason_ = figures + vs + " (" + std::to_string(wins_in_a_row_) + " in a row)";
      return true;
    }
    reason_ = figures + vs + " (" + std::to_string(wins_in_a_row_) + " of " + std::to_string(confirm) + " in a row)";
    return false;
  }
  wins_in_a_row_ = 0;
  reason_ = figures + format(" >= CPU %.4g ms measured", measured_cpu_ms, 0, 0, 0);
  return false;
}

}  // namespace rbf::model
