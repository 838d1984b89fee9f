// What `rbfnet bench` measured and how it reports it: costs.csv, the crossover, the automatic
// switch and summary.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "app/bench_plot_scale.hpp"
#include "app/machine_facts.hpp"
#include "model/trainer.hpp"

namespace rbf::app {

// One training of one backend (or why there was none); --repeat R gives R per backend.
struct BenchRun {
  std::string backend;   // as requested: cpu, gpu or auto
  std::size_t repeat = 1;  // 1-based
  bool skipped = false;  // not available here; `note` says why
  bool failed = false;   // started and failed; `note` holds the error
  std::string note;
  model::TrainResult result;  // valid when neither skipped nor failed
};

// Facts about the data and settings every run shared, for the summary's header.
struct BenchSetup {
  std::string data;  // file name or the synthetic generator's description
  std::size_t rows = 0, features = 0;
  std::size_t max_nodes = 0;
  std::size_t pool = 0;
  std::string precision;
  unsigned long long seed = 0;
  double validation = 0;
  std::size_t repeats = 1;
  MachineFacts machine;
};

// costs.csv: one row per iteration of every run, runs one after another. `backend` is the run,
// `device` where that iteration ran; smoothed_ms is the median total_ms of the 5 iterations
// centered on this one; cumulative_ms includes the run's setup; `repeat` (the last column, so
// that readers of the older columns by position keep working) numbers the run's repeat from 1.
const std::vector<std::string>& costs_columns();
// 1-based column of `name` in costs.csv (for the gnuplot script); throws std::out_of_range.
int costs_column(const std::string& name);
void write_costs_csv(const std::string& path, const std::vector<BenchRun>& runs);

// Median of the `window` iterations' total_ms centered on each iteration (clipped at the ends).
std::vector<double> smoothed_ms(const std::vector<model::IterationRecord>& records, std::size_t window = 5);
// The same for any of the record's times (select_ms, add_ms, ...).
std::vector<double> smoothed(const std::vector<model::IterationRecord>& records, double model::IterationRecord::*ms,
                             std::size_t window = 5);

// The runs of `backend` that completed, in repeat order.
std::vector<const BenchRun*> completed_runs(const std::vector<BenchRun>& runs, const std::string& backend);

// One backend at one node count over its repeats: median, smallest and largest (the spread).
struct Spread {
  double median = 0, min = 0, max = 0;
};
Spread spread_of(std::vector<double> values);  // values must not be empty

struct NodeSpread {
  std::size_t nodes = 0;
  std::size_t repeats = 0;  // how many repeats reached this node count
  Spread smoothed_ms;       // smoothed ms/iteration
  Spread cumulative_ms;     // from the start of setup
  // Medians over the repeats of each phase's smoothed ms, and of the validation RMSE (< 0: none).
  double select_ms = 0, add_ms = 0, update_ms = 0, evaluate_ms = 0;
  double val_rmse = -1;
};
// Per node count (each run's last iteration at that count), ascending.
std::vector<NodeSpread> node_spread(const std::vector<const BenchRun*>& repeats);

// spread.csv: node_spread of every backend that ran, the curves cost_curves.gp draws.
const std::vector<std::string>& spread_columns();
int spread_column(const std::string& name);  // 1-based; throws std::out_of_range
void write_spread_csv(const std::string& path, const std::vector<BenchRun>& runs,
                      const std::vector<std::string>& backends);

// The node count from which the GPU's smoothed ms/iteration (median over the repeats) stays below
// the CPU's up to the largest node count both reached.
struct Crossover {
  bool measured = false;  // both a cpu and a gpu run exist
  bool found = false;     // the GPU ends up faster
  std::size_t nodes = 0;  // crossover node count when found
  std::size_t compared_up_to = 0;
  std::string text;  // one sentence for the summary
};
Crossover find_crossover(const std::vector<BenchRun>& runs);

// Where the auto run moved (the first iteration that ran on another backend than the one
// before), and every event the trainer reported.
struct SwitchPoint {
  bool switched = false;
  std::size_t iteration = 0;  // last iteration before the move
  std::size_t nodes = 0;
  std::string event;  // the trainer's event text for the move, if any
};
SwitchPoint find_switch(const BenchRun& run);

// "cpu", "gpu", "cpu->gpu", "cpu->gpu->cpu": where the run's iterations went, in order; "-"
// for a run without iterations.
std::string devices_used(const BenchRun& run);

// How the plot's time axes were chosen, for the summary.
struct PlotScales {
  AxisScale ms, cumulative, phases;
};

// summary.md; `plot_note` is a sentence about cost_curves.png (rendered, or how to render it).
std::string summary_markdown(const BenchSetup& setup, const std::vector<BenchRun>& runs, const Crossover& crossover,
                             const PlotScales& scales, const std::string& plot_note);

}  // namespace rbf::app
