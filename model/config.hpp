// The full rbfnet configuration: every field, its default, and what it controls.
// configs/default.yaml documents the same fields; model/config_yaml.cpp loads and validates them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "contracts/backend_options.hpp"

namespace rbf::model {

enum class TaskKind { auto_detect, regression, classification };
enum class Strategy { ols, max_residual };
// auto: float64 when data.folds auto chooses among several growths (cross-validation, or the
// widths on held-out rows), float32 otherwise (resolve_auto_arithmetic).
enum class Precision { float32, float64, auto_select };
enum class RefineMethod { adam, lm, auto_select };
// trainer.linear_terms: a linear part b + X W_lin beside the Gaussians (model/linear_terms.hpp).
enum class LinearTerms { auto_select, on, off };

// data.folds: auto = 5 folds for small data (model/cross_validation.hpp), else off.
constexpr std::size_t kFoldsAuto = static_cast<std::size_t>(-1);

struct DataConfig {
  std::string path;                   // training CSV
  std::vector<std::string> target;    // target column names or 0-based indices (as text)
  std::vector<std::string> features;  // feature columns; empty = every non-target column
  std::string weight;                 // column of per-row sample weights; "" = every row weighs 1
  char delimiter = 0;                 // 0 = detect among , ; and tab
  std::size_t skip_rows = 0;          // metadata lines before the header
  TaskKind task = TaskKind::auto_detect;  // auto: classification when the target is not numeric
  double validation = 0.2;            // fraction held out for validation, in [0, 0.9]
  std::uint64_t seed = 42;            // split, candidate sampling
  bool stratify = true;               // classification: hold out each class in proportion
  std::string validation_path;        // separate validation CSV; "" = hold out `validation`
  // K-fold cross-validation choosing the node count and widths (model/cross_validation.hpp):
  // 0 = off (hold out `validation`), K in [2, 20], or kFoldsAuto.
  std::size_t folds = kFoldsAuto;
  // With cross-validation: the saved model averages the model grown on every row with one
  // grown on each fold's training rows to the same node count and widths.
  bool average_folds = true;
  // Raw tabular data (data/feature_encoding.hpp): feature columns with text one-hot encoded
  // (false: an error), missing cells filled with the training median or a "(missing)" level
  // (false: an error), levels in fewer than rare_level_rows rows pooled into "(other)", and at
  // most max_levels levels of a column with a feature of their own.
  bool categorical = true;
  bool missing = true;
  std::size_t rare_level_rows = 10;
  std::size_t max_levels = 30;
};

// candidates.memory_budget_mb: auto.
constexpr double kMachineMemory = std::numeric_limits<double>::infinity();

struct CandidateConfig {
  std::size_t pool = 1000;                         // P: training rows sampled as centers (all when N <= P)
  std::vector<double> width_factors{0.5, 1.0, 2.0};  // S widths = factor * sigma0
  double sigma0 = 0.0;                             // base width; 0 = median-distance heuristic
  std::size_t sigma0_sample = 1000;                // rows sampled for the heuristic
  // Cap on the memory (MB) of a stored Phi_C; above it, or above what the backend's machine
  // has (half the available host memory, 80% of free device memory), Phi_C is evaluated tile
  // by tile on every pass. kMachineMemory ("auto") = no cap beyond the machine's.
  double memory_budget_mb = kMachineMemory;
};

// trainer.output_ridge: auto.
constexpr double kOutputRidgeAuto = -1.0;
// trainer.dependency_tol: auto.
constexpr double kDependencyTolAuto = -1.0;

struct TrainerConfig {
  Strategy strategy = Strategy::ols;
  double lambda = 0.0;          // regularized-OLS term, >= 0
  // Ridge penalty on the kept model's output weights (relative to the training rows), >= 0;
  // kOutputRidgeAuto ("auto") = the value of output_ridge_grid() best on validation, 0 without.
  double output_ridge = kOutputRidgeAuto;
  // Linear terms X W_lin fitted by ridge on the training rows before growth, the nodes then
  // grown on what they leave; auto = on unless the features outnumber the candidates or
  // the fit would take more than about a second (linear_terms_wanted).
  LinearTerms linear_terms = LinearTerms::auto_select;
  // Candidates with n_c - s_c <= tol * n_c are skipped; kDependencyTolAuto = 1e-4 in float32,
  // 1e-9 in float64 (resolved_config).
  double dependency_tol = kDependencyTolAuto;
  Precision precision = Precision::auto_select;
  int threads = 0;              // CPU threads; 0 = all cores
  // Sub-models: K > 1 splits the inputs into K regions and grows one network per region,
  // their predictions blended (model/partitioned_training.hpp); 1 = one network.
  std::size_t partitions = 1;
};

struct StoppingConfig {
  std::size_t max_nodes = 300;  // Gaussian nodes, bias excluded
  double goal = 0.0;            // stop when training RMSE (standardized units) <= goal
  std::size_t patience = 30;    // iterations without validation improvement; 0 = off
  // With validation: once growth stops, grow the kept node count again on every row
  // (training and validation) and keep that model instead.
  bool refit = false;
  double max_seconds = 0.0;     // wall-clock limit; 0 = none
};

// Refinement minimizes the unweighted squared error: a weighted run refuses it, with this.
inline constexpr const char* kRefinementIgnoresWeights =
    "refinement does not weigh rows: train without sample weights (data.weight, --weight), or leave refine.every "
    "at 0 and refine.at_end off";

// Refinement: joint optimization of every center, width (as log sigma) and output weight on
// 0.5 * (mean squared standardized error + ridge * ||W||^2), guarded by validation.
struct RefineConfig {
  std::size_t every = 0;        // refine after every K nodes during growth; 0 = never
  bool at_end = false;          // refine the kept model once growth stops
  // adam (full-batch gradients), lm (Levenberg-Marquardt), or auto: lm for models small enough
  // (resolve_refine_method), adam beyond.
  RefineMethod method = RefineMethod::auto_select;
  std::size_t epochs = 50;      // adam: gradient steps; lm: accepted damped Gauss-Newton steps
  double learning_rate = 0.01;  // adam step size, in standardized units
  double damping = 1e-3;        // lm: initial damping, relative to diag(J^T J)
  double ridge = 0.0;           // L2 penalty on the output weights, >= 0
  std::size_t patience = 10;    // epochs without improvement before stopping early; 0 = off
};

struct BackendConfig {
  BackendKind kind = BackendKind::auto_select;
  std::size_t switch_at_nodes = 0;  // auto: force the switch at this node count; 0 = cost model
  std::size_t confirm = 3;          // auto: iterations the GPU must win before switching
  int gpu_device = 0;
  // Row sharding over several GPUs: one shard per entry, each holding its block of the rows
  // (docs/MULTI_GPU.md); a repeated device holds several shards. Empty = gpu_device alone.
  std::vector<int> gpu_devices;
  double gpu_memory_budget_mb = 0.0;  // 0 = 80% of free device memory
  GpuMemory gpu_memory = GpuMemory::auto_select;
  GpuBasis gpu_basis = GpuBasis::auto_select;  // Q in full or half precision on the GPU
  // auto: the switch's cost model; each 0 = take it from this machine's calibration
  // (cached per host and device, `rbfnet calibrate` redoes it).
  double gpu_overhead_ms = 0.0;     // fixed GPU cost per iteration (launches, synchronizations), ms
  double gpu_bandwidth_gbs = 0.0;   // GPU memory bandwidth of the training passes, GB/s
  double gpu_gflops = 0.0;          // GPU rate of matrix-free candidate evaluation, GFLOP/s
  double migration_fixed_ms = 0.0;  // one-time cost of moving to the GPU besides the copies, ms
  double migration_gbs = 0.0;       // host -> device copy rate while migrating, GB/s
};

// The device of what a run does on one GPU (an unsharded backend, refinement, auto's
// calibration): the first of gpu_devices when they are given, else gpu_device.
inline int first_gpu_device(const BackendConfig& backend) {
  return backend.gpu_devices.empty() ? backend.gpu_device : backend.gpu_devices.front();
}

struct LoggingConfig {
  std::string level = "info";   // trace, debug, info, warn, error, off
  std::string iteration_log;    // CSV of per-iteration costs; empty = none
  bool progress = true;         // compact progress line on a terminal
};

struct OutputConfig {
  std::string model = "model.rbfn";
  std::size_t checkpoint_every = 0;  // write a checkpoint every K iterations; 0 = only on interrupt
  std::string checkpoint;            // checkpoint file; "" = "<model>.ckpt"
};

struct Config {
  DataConfig data;
  CandidateConfig candidates;
  TrainerConfig trainer;
  StoppingConfig stopping;
  RefineConfig refine;
  BackendConfig backend;
  LoggingConfig logging;
  OutputConfig output;
};

}  // namespace rbf::model
