// `rbfnet bench`: the same training on every requested backend (R times each with --repeat), then
// costs.csv, spread.csv, summary.md and the cost curves (cost_curves.png through gnuplot,
// cost_curves.gp always).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "app/bench_plot_scale.hpp"
#include "app/bench_report.hpp"
#include "app/commands.hpp"
#include "app/gnuplot_script.hpp"
#include "app/machine_facts.hpp"
#include "app/raw_columns.hpp"
#include "app/task_hint.hpp"
#include "data/atomic_file.hpp"
#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/file_plan.hpp"
#include "data/paths.hpp"
#include "data/synthetic.hpp"
#include "data/text.hpp"
#include "contracts/gpu_entry_points.hpp"
#include "contracts/host_memory.hpp"
#include "model/cross_validation.hpp"
#include "model/trainer.hpp"

namespace rbf::app {

namespace {

// Friedman #1 has 5 informative features; its noise is the textbook 1.0.
constexpr std::size_t kSyntheticMinDims = 5;
constexpr double kSyntheticNoise = 1.0;

data::Dataset load_data(const BenchOptions& options) {
  if (options.synthetic_rows > 0) {
    if (options.synthetic_dims < kSyntheticMinDims) {
      throw InputError("--synthetic needs DIMS >= 5 (Friedman #1 has 5 informative features), got '" +
                       std::to_string(options.synthetic_rows) + "," + std::to_string(options.synthetic_dims) + "'");
    }
    return data::make_friedman1(options.synthetic_rows, options.synthetic_dims, kSyntheticNoise,
                                options.config.data.seed);
  }
  data::ColumnSpec columns;
  columns.targets = options.target;
  columns.features = options.config.data.features;
  data::Dataset raw = data::read_csv(options.data, training_csv_options(options.config, nullptr), columns,
                                     task_hint(options.config.data.task));
  // Encoded once here, so that every timed run trains on the same numbers.
  data::apply_encoding(data::fit_encoding(raw, model::encoding_options(options.config)), raw);
  return raw;
}

model::BackendKind kind_of(const std::string& backend) {
  if (backend == "cpu") return model::BackendKind::cpu;
  if (backend == "gpu") return model::BackendKind::gpu;
  return model::BackendKind::auto_select;
}

// Empty when the GPU backend can run here, else why not.
std::string why_no_gpu(int device) {
  const gpu::DeviceReport report = gpu::query_devices();
  if (report.devices.empty()) return report.why_none;
  if (device < 0 || static_cast<std::size_t>(device) >= report.devices.size()) {
    return "backend.gpu_device is " + std::to_string(device) + " but this machine has CUDA devices 0.." +
           std::to_string(report.devices.size() - 1);
  }
  return std::string();
}

// A progress line on a terminal, one debug line per iteration otherwise.
class Progress {
 public:
  Progress(const std::string& backend, std::size_t max_nodes, bool enabled)
      : backend_(backend),
        max_nodes_(max_nodes),
        tty_(enabled && ::isatty(::fileno(stderr)) && spdlog::get_level() <= spdlog::level::info) {}
  void operator()(const model::IterationRecord& r) {
    if (tty_) {
      std::fprintf(stderr, "\r  %s: node %zu/%zu on %s, %.2f ms   ", backend_.c_str(), r.nodes, max_nodes_,
                   r.backend.c_str(), r.total_ms);
      std::fflush(stderr);
      shown_ = true;
    } else {
      spdlog::debug("bench {}: iteration {} nodes {} on {}: {:.3f} ms", backend_, r.iteration, r.nodes, r.backend,
                    r.total_ms);
    }
    if (!r.event.empty()) {
      finish();
      spdlog::info("bench {}: {}", backend_, r.event);
    }
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\n");
    shown_ = false;
  }

 private:
  std::string backend_;
  std::size_t max_nodes_;
  bool tty_;
  bool shown_ = false;
};

// The first run would otherwise pay alone for starting the CPU's thread pool and faulting in
// fresh memory; a one-node run on a slice of the data pays it before anything is measured.
void warm_up(const data::Dataset& dataset, const model::Config& shared) {
  constexpr std::size_t kRows = 1000, kPool = 100;
  data::Dataset slice = dataset;
  slice.rows = std::min(dataset.rows, kRows);
  slice.x.resize(slice.rows * slice.features);
  slice.y.resize(slice.rows * slice.targets);
  slice.weights.clear();
  model::Config config = shared;
  config.backend.kind = model::BackendKind::cpu;
  config.stopping.max_nodes = 1;
  config.candidates.pool = std::min(config.candidates.pool, kPool);
  config.logging.iteration_log.clear();
  try {
    model::train(slice, config);
  } catch (const std::exception& e) {
    spdlog::debug("bench: warm-up run failed ({}); measuring without it", e.what());
  }
}

// "cpu", or "cpu #2" when the backend runs more than once.
std::string run_name(const std::string& backend, std::size_t repeat, std::size_t repeats) {
  return repeats > 1 ? backend + " #" + std::to_string(repeat) : backend;
}

BenchRun run_backend(const std::string& backend, std::size_t repeat, std::size_t repeats,
                     const data::Dataset& dataset, const model::Config& shared) {
  BenchRun run;
  run.backend = backend;
  run.repeat = repeat;
  const std::string name = run_name(backend, repeat, repeats);
  model::Config config = shared;
  config.backend.kind = kind_of(backend);
  config.stopping.patience = 0;  // every backend grows the same nodes
  config.logging.iteration_log.clear();
  spdlog::info("bench {}: training up to {} nodes", name, config.stopping.max_nodes);
  Progress progress(name, config.stopping.max_nodes, config.logging.progress);
  try {
    run.result = model::train(dataset, config, [&progress](const model::IterationRecord& r) { progress(r); });
  } catch (const InputError&) {
    throw;  // the data or config is wrong for every backend alike
  } catch (const std::exception& e) {
    progress.finish();
    run.failed = true;
    run.note = e.what();
    spdlog::error("bench {}: {}", name, run.note);
    return run;
  }
  progress.finish();
  const auto& records = run.result.iterations;
  spdlog::info("bench {}: {} nodes in {} iterations, {:.3f} s (setup {:.3f} s)", name,
               records.empty() ? 0 : records.back().nodes, records.size(), run.result.seconds,
               run.result.setup_seconds);
  return run;
}

// Every backend, `repeats` times. The backends take turns, so that a machine that slows down
// over the bench (heat, other load) weighs on every backend alike rather than on the last one.
std::vector<BenchRun> run_backends(const std::vector<std::string>& backends, std::size_t repeats,
                                   const data::Dataset& dataset, const model::Config& config,
                                   const std::string& gpu_missing) {
  std::vector<BenchRun> runs;
  std::vector<std::string> failed;
  for (std::size_t repeat = 1; repeat <= repeats; ++repeat) {
    for (const std::string& backend : backends) {
      if (backend == "gpu" && !gpu_missing.empty()) {
        if (repeat > 1) continue;  // a backend this machine lacks is skipped once, not once per repeat
        BenchRun skipped;
        skipped.backend = backend;
        skipped.skipped = true;
        skipped.note = gpu_missing;
        spdlog::warn("bench: skipping the gpu backend: {}", skipped.note);
        runs.push_back(skipped);
        continue;
      }
      if (std::find(failed.begin(), failed.end(), backend) != failed.end()) continue;  // fails again
      runs.push_back(run_backend(backend, repeat, repeats, dataset, config));
      if (runs.back().failed) failed.push_back(backend);
    }
  }
  return runs;
}

BenchSetup bench_setup(const BenchOptions& options, const data::Dataset& dataset, std::size_t repeats,
                       const std::string& gpu_missing) {
  BenchSetup setup;
  setup.data = options.synthetic_rows > 0
                   ? "Friedman #1 (synthetic, seed " + std::to_string(options.config.data.seed) + ")"
                   : data::printable(options.data);  // a line of the summary, whatever the name holds
  setup.rows = dataset.rows;
  setup.features = dataset.features;
  setup.max_nodes = options.config.stopping.max_nodes;
  setup.pool = options.config.candidates.pool;
  const model::Config resolved = model::resolve_auto_arithmetic(options.config, options.config.data.folds > 0);
  setup.precision = resolved.trainer.precision == model::Precision::float64 ? "float64" : "float32";
  setup.seed = options.config.data.seed;
  setup.validation = options.config.data.validation;
  setup.repeats = repeats;
  setup.machine = machine_facts(options.config.trainer.threads, gpu_missing.empty(), options.config.backend.gpu_device,
                                gpu_missing);
  return setup;
}

// The gnuplot script of the cost curves, with each time axis logarithmic where its curves
// differ by more than 10x; `scales` says which.
std::string cost_curves(const BenchSetup& setup, const std::vector<BenchRun>& runs,
                        const std::vector<std::string>& backends, std::size_t repeats, const Crossover& crossover,
                        PlotScales& scales) {
  PlotSpec plot;
  plot.title = "rbfnet bench: " + setup.data + ", " + std::to_string(setup.rows) + " rows x " +
               std::to_string(setup.features) + " features";
  plot.repeats = repeats;
  std::vector<NodeCurve> ms_curves, cumulative_curves, phase_curves;
  for (const std::string& backend : backends) {
    const std::vector<const BenchRun*> done = completed_runs(runs, backend);
    if (done.empty()) continue;
    plot.backends.push_back(backend);
    for (const BenchRun* run : done) {
      for (double ms : smoothed_ms(run->result.iterations)) plot.ms_max = std::max(plot.ms_max, 1.25 * ms);
    }
    if (backend == "auto") {
      const SwitchPoint point = find_switch(*done.front());
      if (point.switched) plot.switch_nodes = point.nodes;
      const std::string used = devices_used(*done.front());
      if (used != "-" && used.find("->") == std::string::npos) plot.labels[backend] = "auto (on " + used + " throughout)";
    }
    const auto& records = done.front()->result.iterations;
    if (!records.empty()) plot.max_nodes = std::max(plot.max_nodes, records.back().nodes);
    NodeCurve ms, cumulative, select, add, update, evaluate;
    for (const NodeSpread& n : node_spread(done)) {
      ms[n.nodes] = n.smoothed_ms.median;
      cumulative[n.nodes] = n.cumulative_ms.median;
      select[n.nodes] = n.select_ms;
      add[n.nodes] = n.add_ms;
      update[n.nodes] = n.update_ms;
      evaluate[n.nodes] = n.evaluate_ms;
      if (n.val_rmse >= 0) plot.validation = true;
    }
    ms_curves.push_back(ms);
    cumulative_curves.push_back(cumulative);
    for (const NodeCurve& phase : {select, add, update, evaluate}) phase_curves.push_back(phase);
  }
  scales.ms = time_axis_scale(ms_curves);
  scales.cumulative = time_axis_scale(cumulative_curves);
  scales.phases = time_axis_scale(phase_curves);
  plot.ms_log = scales.ms.log;
  plot.cumulative_log = scales.cumulative.log;
  plot.phases_log = scales.phases.log;
  if (crossover.found) plot.crossover_nodes = crossover.nodes;
  return cost_curves_script(plot);
}

// Writes the script and, where a backend ran and gnuplot is there, the image.
PlotOutcome draw_cost_curves(const std::string& dir, const std::string& script, bool any_ran) {
  data::write_file_atomically(dir + "/" + kPlotScript, script.data(), script.size());
  PlotOutcome drawn;
  if (!any_ran) {
    drawn.note = "not drawn: no backend ran";
    std::remove((dir + "/" + kPlotImage).c_str());  // an image of an earlier bench must not pass for this one
    spdlog::warn("bench: no backend ran, so there are no costs to compare");
    return drawn;
  }
  drawn = render_cost_curves(dir);
  if (!drawn.rendered) spdlog::warn("bench: {}: {}", kPlotImage, drawn.note);
  return drawn;
}

void print_bench_results(const std::string& dir, const std::vector<BenchRun>& runs, std::size_t repeats,
                         const Crossover& crossover, const PlotOutcome& drawn) {
  std::printf("bench results in %s/\n", dir.c_str());
  for (const BenchRun& run : runs) {
    const std::string name = run_name(run.backend, run.repeat, repeats);
    if (run.skipped || run.failed) {
      std::printf("  %-4s %s: %s\n", name.c_str(), run.skipped ? "skipped" : "failed", run.note.c_str());
      continue;
    }
    const auto& records = run.result.iterations;
    std::printf("  %-4s %zu nodes, %.3f s (setup %.3f s + growth %.3f s)\n", name.c_str(),
                records.empty() ? std::size_t{0} : records.back().nodes, run.result.setup_seconds + run.result.seconds,
                run.result.setup_seconds, run.result.seconds);
  }
  std::string crossover_text = crossover.text;
  for (auto bold = crossover_text.find("**"); bold != std::string::npos; bold = crossover_text.find("**"))
    crossover_text.erase(bold, 2);
  std::printf("  crossover: %s\n", crossover_text.c_str());
  const std::string image = drawn.rendered ? std::string(", ") + kPlotImage : " (no image: see summary.md)";
  std::printf("  written: %s, %s, summary.md, %s%s\n", kCostsFile, kSpreadFile, kPlotScript, image.c_str());
}

}  // namespace

int run_bench(const BenchOptions& asked) {
  // A bench times one growth per backend: data.folds auto would cross-validate small data
  // (several growths) on some sizes and not others. An explicit fold count stays.
  BenchOptions options = asked;
  if (options.config.data.folds == model::kFoldsAuto) options.config.data.folds = 0;
  // The generated data is allocated whole: a --synthetic too large for the machine fails now,
  // before the output folder is made, not with "out of memory" after a long wait.
  if (options.synthetic_rows > 0) {
    const double bytes = static_cast<double>(options.synthetic_rows) *
                         (static_cast<double>(options.synthetic_dims) + 1.0) * sizeof(double);
    const std::string shortfall = model::host_memory_shortfall(bytes);
    if (!shortfall.empty())
      throw RuntimeError("--synthetic " + std::to_string(options.synthetic_rows) + "," +
                         std::to_string(options.synthetic_dims) + ": the generated data " + shortfall);
  }
  // The folder and every file in it are checked before the data is read or any run starts.
  const std::string dir = options.out_dir.empty() ? std::string(".") : options.out_dir;
  data::make_directories(dir, "output folder");
  data::FilePlan files;
  if (options.synthetic_rows == 0) files.input(options.data, "--data");
  for (const char* name : {kCostsFile, kSpreadFile, kPlotScript, kPlotImage, "summary.md"})
    files.output(dir + "/" + name, "--out");
  const data::Dataset dataset = load_data(options);
  spdlog::info("bench: {}: {} rows, {} features; results in {}", dataset.source, dataset.rows, dataset.features, dir);

  std::vector<std::string> backends;
  for (const std::string& backend : options.backends) {
    if (std::find(backends.begin(), backends.end(), backend) == backends.end()) backends.push_back(backend);
  }
  const std::size_t repeats = std::max<std::size_t>(options.repeats, 1);
  const bool gpu_wanted = std::any_of(backends.begin(), backends.end(),
                                     [](const std::string& b) { return b == "gpu" || b == "auto"; });
  const std::string gpu_missing = gpu_wanted ? why_no_gpu(options.config.backend.gpu_device)
                                             : std::string("not requested: --backends has neither gpu nor auto");
  warm_up(dataset, options.config);
  const std::vector<BenchRun> runs = run_backends(backends, repeats, dataset, options.config, gpu_missing);

  write_costs_csv(dir + "/" + kCostsFile, runs);
  write_spread_csv(dir + "/" + kSpreadFile, runs, backends);
  const Crossover crossover = find_crossover(runs);
  const BenchSetup setup = bench_setup(options, dataset, repeats, gpu_missing);
  PlotScales scales;
  const std::string script = cost_curves(setup, runs, backends, repeats, crossover, scales);
  const bool any_ran = std::any_of(runs.begin(), runs.end(), [](const BenchRun& r) { return !r.skipped && !r.failed; });
  const PlotOutcome drawn = draw_cost_curves(dir, script, any_ran);
  const std::string summary = summary_markdown(setup, runs, crossover, scales, drawn.note);
  data::write_file_atomically(dir + "/summary.md", summary.data(), summary.size());
  print_bench_results(dir, runs, repeats, crossover, drawn);

  for (const BenchRun& run : runs) {
    if (run.failed) {
      throw RuntimeError("the " + run.backend + " run of 'rbfnet bench' failed (" + run.note +
                         "); the other results are in " + dir);
    }
  }
  return 0;
}

}  // namespace rbf::app
