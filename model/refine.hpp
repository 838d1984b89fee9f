// Refinement optimizers: Adam and Levenberg-Marquardt over a RefineEngine, with the
// validation guard that keeps the best parameters seen and stops early.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "model/config.hpp"
#include "contracts/refine_engine.hpp"

namespace rbf::model {

// Scores parameters on held-out data (lower is better), e.g. validation RMSE.
using RefineScorer = std::function<double(const NodeParams&)>;

// The most parameters Levenberg-Marquardt accepts: its P x P system takes 8 P^2 bytes.
constexpr std::size_t kMaxLmParameters = 6000;

// The most parameters refine.method auto gives to Levenberg-Marquardt. Its epoch costs about
// n k P^2 + P^3 / 3 multiply-adds: up to here an epoch takes well under a second on one core
// for a few thousand rows; beyond, auto uses adam, whose epoch costs n k P.
constexpr std::size_t kAutoLmParameters = 2000;

// The optimizer `method` stands for on a model of `parameters` values: auto is lm up to
// kAutoLmParameters (on the benchmarks of docs/REFINEMENT.md only lm lowered the held-out
// error noticeably), adam beyond; adam and lm are themselves.
RefineMethod resolve_refine_method(RefineMethod method, std::size_t parameters);

// The name of a method as refine.method spells it.
const char* refine_method_name(RefineMethod method);

struct RefineOutcome {
  RefineMethod method = RefineMethod::adam;  // the optimizer that ran (auto resolved)
  NodeParams best;               // the best parameters seen, the start included
  double start_objective = 0;    // 0.5 * (mean squared error + ridge ||W||^2) at the start
  double best_objective = 0;     // ... at `best`
  double start_score = 0;        // scorer at the start (the objective without a scorer)
  double best_score = 0;         // ... at `best`
  std::size_t epochs = 0;        // epochs run
  std::size_t best_epoch = 0;    // epoch after which `best` was found (0: the start)
  std::string stop_reason;       // why the optimizer stopped
  bool interrupted = false;      // stopped because `stop` was set; `best` is then partial
  bool improved() const { return best_score < start_score; }
};

// The refinement objective at p from engine's 0.5 ||E||^2 over n rows and k outputs.
double refine_objective(double half_sse, const NodeParams& p, std::size_t rows, double ridge);

// Runs config.method for at most config.epochs epochs from `start` on the engine's training
// rows (n of them). After every epoch the parameters are scored (by `scorer`, else by the
// objective); the best are kept, and config.patience epochs without a better score stop
// the run. A step that makes the objective non-finite stops it too. Widths are kept within
// [1e-3, 1e3] standardized units (a projected step). Throws InputError when
// lm is asked for a model too large to solve directly. When `stop` becomes true (SIGINT)
// the run ends after the current epoch with `interrupted` set.
template <typename T>
RefineOutcome refine(RefineEngine<T>& engine, const NodeParams& start, std::size_t rows, const RefineConfig& config,
                     const RefineScorer& scorer, const std::atomic<bool>* stop = nullptr);

}  // namespace rbf::model
