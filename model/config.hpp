// The full rbfnet configuration: every field, its default, and what it controls.
// configs/default.yaml documents the same fields; model/config_yaml.cpp loads and validates them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rbf::model {

enum class TaskKind { auto_detect, regression, classification };
enum class Strategy { ols, max_residual };
enum class BackendKind { cpu, gpu, auto_select };
enum class Precision { float32, float64 };
enum class GpuMemory { auto_select, device, mapped };

struct DataConfig {
  std::string path;                   // training CSV
  std::vector<std::string> target;    // target column names or 0-based indices (as text)
  std::vector<std::string> features;  // feature columns; empty = every non-target column
  char delimiter = 0;                 // 0 = detect among , ; and tab
  std::size_t skip_rows = 0;          // metadata lines before the header
  TaskKind task = TaskKind::auto_detect;  // auto: classification when the target is not numeric
  double validation = 0.2;            // fraction held out for validation, in [0, 0.9]
  std::uint64_t seed = 42;            // split, candidate sampling
};

struct CandidateConfig {
  std::size_t pool = 1000;                         // P: training rows sampled as centers (all when N <= P)
  std::vector<double> width_factors{0.5, 1.0, 2.0};  // S widths = factor * sigma0
  double sigma0 = 0.0;                             // base width; 0 = median-distance heuristic
  std::size_t sigma0_sample = 1000;                // rows sampled for the heuristic
  double memory_budget_mb = 1024.0;                // above this Phi_C is evaluated tile by tile
};

struct TrainerConfig {
  Strategy strategy = Strategy::ols;
  double lambda = 0.0;          // regularized-OLS term, >= 0
  double dependency_tol = 1e-4; // candidates with n_c - s_c <= tol * n_c are skipped
  Precision precision = Precision::float32;
  int threads = 0;              // CPU threads; 0 = all cores
};

struct StoppingConfig {
  std::size_t max_nodes = 100;  // Gaussian nodes, bias excluded
  double goal = 0.0;            // stop when training RMSE (standardized units) <= goal
  std::size_t patience = 20;    // iterations without validation improvement; 0 = off
  double max_seconds = 0.0;     // wall-clock limit; 0 = none
};

struct BackendConfig {
  BackendKind kind = BackendKind::auto_select;
  std::size_t switch_at_nodes = 0;  // auto: force the switch at this node count; 0 = cost model
  std::size_t confirm = 3;          // auto: iterations the GPU must win before switching
  int gpu_device = 0;
  double gpu_memory_budget_mb = 0.0;  // 0 = 80% of free device memory
  GpuMemory gpu_memory = GpuMemory::auto_select;
};

struct LoggingConfig {
  std::string level = "info";   // trace, debug, info, warn, error, off
  std::string iteration_log;    // CSV of per-iteration costs; empty = none
  bool progress = true;         // compact progress line on a terminal
};

struct OutputConfig {
  std::string model = "model.rbfn";
};

struct Config {
  DataConfig data;
  CandidateConfig candidates;
  TrainerConfig trainer;
  StoppingConfig stopping;
  BackendConfig backend;
  LoggingConfig logging;
  OutputConfig output;
};

}  // namespace rbf::model
