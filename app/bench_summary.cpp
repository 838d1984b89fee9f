// summary.md of `rbfnet bench`: the set-up and machine, the time per backend, the crossover,
// where auto moved, notes on skipped or failed runs, and what each file holds.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "app/bench_report.hpp"

namespace rbf::app {
namespace {

double growth_seconds(const BenchRun& run) { return run.result.seconds; }
double total_seconds(const BenchRun& run) { return run.result.setup_seconds + run.result.seconds; }
double setup_seconds(const BenchRun& run) { return run.result.setup_seconds; }
double end_ms(const BenchRun& run) {
  const std::vector<double> smooth = smoothed_ms(run.result.iterations);
  return smooth.empty() ? 0.0 : smooth.back();
}

Spread spread_over(const std::vector<const BenchRun*>& repeats, double (*value)(const BenchRun&)) {
  std::vector<double> values;
  for (const BenchRun* run : repeats) values.push_back(value(*run));
  return spread_of(values);
}

// "1.234" for one repeat, "1.234 (1.200-1.300)" with the spread of several.
std::string with_spread(const Spread& s, std::size_t repeats, const char* format = "{:.3f}") {
  std::string text = fmt::format(format, s.median);
  if (repeats > 1) text += " (" + fmt::format(format, s.min) + "–" + fmt::format(format, s.max) + ")";
  return text;
}

void write_setup_section(std::ostringstream& md, const BenchSetup& setup, const std::vector<BenchRun>& runs) {
  md << "# rbfnet bench\n\n";
  md << "- data: " << setup.data << ", " << setup.rows << " rows x " << setup.features << " features\n";
  const BenchRun* any = nullptr;
  for (const BenchRun& run : runs) {
    if (!run.skipped && !run.failed) {
      any = &run;
      break;
    }
  }
  if (any != nullptr) {
    md << "- " << any->result.train_rows << " training rows, " << any->result.validation_rows << " validation rows; "
       << any->result.candidates << " candidates ("
       << (any->result.candidates_stored ? "stored" : "computed on every pass") << ")\n";
  }
  for (const BenchRun& run : runs)
    if (!run.skipped && !run.failed && !run.result.basis_storage.empty())
      md << "- " << run.backend << " run " << run.repeat << ": basis Q in " << run.result.basis_storage << "\n";
  md << fmt::format("- up to {} nodes, candidate pool {}, {}, seed {}, validation {:g}\n", setup.max_nodes, setup.pool,
                    setup.precision, setup.seed, setup.validation);
  md << "- every backend ran the same data, seed and settings, with validation patience off so that each grows "
        "the same nodes\n";
  if (setup.repeats > 1) {
    md << "- each backend trained " << setup.repeats
       << " times (--repeat), the backends taking turns; times are medians with the spread (min–max) in "
          "parentheses\n";
  }
  md << "\n";

  md << "## Machine\n\n";
  md << "- CPU: " << setup.machine.cpu_model << "\n";
  md << "- CPU threads used: " << setup.machine.threads_used;
  if (setup.machine.hardware_threads > 0) md << " of " << setup.machine.hardware_threads << " hardware threads";
  md << "\n";
  md << "- GPU: " << setup.machine.gpu << "\n";
  md << "- rbfnet: " << setup.machine.version << "\n\n";
}

void write_time_section(std::ostringstream& md, const BenchSetup& setup, const std::vector<BenchRun>& runs,
                        const std::vector<std::string>& backends) {
  md << "## Time per backend\n\n";
  md << "| backend | ran on | nodes | iterations | setup (s) | growth (s) | total (s) | speedup vs cpu | "
        "ms/iteration at the end | training RMSE |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|\n";
  const std::vector<const BenchRun*> cpu = completed_runs(runs, "cpu");
  for (const std::string& backend : backends) {
    const std::vector<const BenchRun*> repeats = completed_runs(runs, backend);
    if (repeats.empty()) {
      const bool skipped = std::any_of(runs.begin(), runs.end(), [&](const BenchRun& r) {
                             return r.backend == backend && r.skipped;
                           });
      md << "| " << backend << " | " << (skipped ? "skipped" : "failed") << " | | | | | | | | |\n";
      continue;
    }
    const BenchRun& run = *repeats.front();  // the repeats grow the same nodes
    std::string ran_on;
    for (const BenchRun* r : repeats) {
      const std::string used = devices_used(*r);
      if (ran_on.find(used) == std::string::npos) ran_on += (ran_on.empty() ? "" : ", ") + used;
    }
    const std::size_t n = repeats.size();
    const Spread total = spread_over(repeats, total_seconds);
    // A run on the cpu alone is the cpu run again: its ratio is noise and auto's own overhead,
    // not a speed-up, and says so.
    const bool same_device = backend != "cpu" && ran_on == "cpu";
    const std::string speedup =
        !cpu.empty() && total.median > 0
            ? fmt::format("{:.2f}x{}", spread_over(cpu, total_seconds).median / total.median,
                          same_device ? " (same device)" : "")
            : std::string("-");
    const auto& records = run.result.iterations;
    md << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.5g} |\n", backend, ran_on,
                      records.empty() ? 0 : records.back().nodes, records.size(),
                      with_spread(spread_over(repeats, setup_seconds), n),
                      with_spread(spread_over(repeats, growth_seconds), n), with_spread(total, n), speedup,
                      records.empty() ? std::string("-") : with_spread(spread_over(repeats, end_ms), n),
                      run.result.final_train_rmse);
  }
  md << "\nSetup is data transfer, candidate evaluation and the first pass; growth is the node-by-node loop. "
        "Speedup is the cpu run's total time over this run's; between runs on the same device it is only noise "
        "and auto's overhead"
     << (setup.repeats > 1 ? " (medians)" : "") << ".\n\n";
}

// Where auto moved, in each repeat, against the measured crossover.
void write_switch_section(std::ostringstream& md, const std::vector<const BenchRun*>& repeats,
                          const Crossover& crossover) {
  const BenchRun& run = *repeats.front();
  md << "## Automatic switch (auto)\n\n";
  const SwitchPoint point = find_switch(run);
  if (point.switched) {
    md << fmt::format("- moved after iteration {} ({} nodes)", point.iteration, point.nodes);
    md << (point.event.empty() ? std::string() : ": " + point.event) << "\n";
  } else {
    md << "- stayed on " << devices_used(run) << " for all "
       << (run.result.iterations.empty() ? 0 : run.result.iterations.back().nodes) << " nodes\n";
  }
  if (repeats.size() > 1) {
    std::string moves;
    for (const BenchRun* r : repeats) {
      const SwitchPoint p = find_switch(*r);
      moves += (moves.empty() ? "" : ", ") + (p.switched ? std::to_string(p.nodes) + " nodes" : "stayed");
    }
    md << "- in each repeat: " << moves << "\n";
  }
  if (crossover.found && point.switched) {
    md << fmt::format("- the measured crossover (cpu and gpu runs) is at {} nodes; auto moved at {} nodes\n",
                      crossover.nodes, point.nodes);
  }
  for (const std::string& event : run.result.events) {
    if (event != point.event) md << "- " << event << "\n";
  }
  md << "\n";
}

void write_notes_and_files(std::ostringstream& md, const BenchSetup& setup, const std::vector<BenchRun>& runs,
                           const PlotScales& scales, const std::string& plot_note) {
  bool notes = false;
  for (const BenchRun& run : runs) {
    if (!run.skipped && !run.failed) continue;
    if (!notes) md << "## Notes\n\n";
    notes = true;
    md << "- " << run.backend << (setup.repeats > 1 && run.failed ? " (repeat " + std::to_string(run.repeat) + ")" : "")
       << ": " << (run.skipped ? "skipped: " : "failed: ") << run.note << "\n";
  }
  if (notes) md << "\n";

  md << "## Files\n\n";
  md << "- `costs.csv`: one row per iteration of every run (backend = the run, device = where the iteration "
        "ran, each phase in ms, smoothed_ms = median of 5 iterations, cumulative_ms from the start of setup, "
        "event = a switch or fallback after that iteration, repeat = which of the --repeat trainings)\n";
  md << "- `spread.csv`: per backend and node count, the median, min and max over the repeats of smoothed_ms "
        "and cumulative_ms, the phases' median smoothed ms and the validation RMSE (the curves of the plot)\n";
  md << "- `cost_curves.png`: " << plot_note << "\n";
  const auto axis = [](const char* name, const AxisScale& scale) {
    if (scale.ratio <= 0) return fmt::format("{}: linear (nothing to compare)", name);
    return fmt::format("{}: {} (the curves differ by up to {:.1f}x{})", name, scale.log ? "logarithmic" : "linear",
                       scale.ratio, scale.log ? ", more than 10x" : "");
  };
  md << "  - time axes: " << axis("ms per iteration", scales.ms) << "; " << axis("cumulative", scales.cumulative)
     << "; " << axis("phases", scales.phases) << "\n";
  md << "- `cost_curves.gp`: the gnuplot script that draws it from costs.csv and spread.csv\n";
}

}  // namespace

std::string devices_used(const BenchRun& run) {
  std::string out;
  std::string last;
  for (const model::IterationRecord& rec : run.result.iterations) {
    if (rec.backend == last) continue;
    out += (out.empty() ? "" : "->") + rec.backend;
    last = rec.backend;
  }
  return out.empty() ? std::string("-") : out;
}


std::string summary_markdown(const BenchSetup& setup, const std::vector<BenchRun>& runs, const Crossover& crossover,
                             const PlotScales& scales, const std::string& plot_note) {
  std::ostringstream md;
  write_setup_section(md, setup, runs);
  std::vector<std::string> backends;
  for (const BenchRun& run : runs) {
    if (std::find(backends.begin(), backends.end(), run.backend) == backends.end()) backends.push_back(run.backend);
  }
  write_time_section(md, setup, runs, backends);
  md << "## Crossover\n\n" << crossover.text << "\n\n";
  const std::vector<const BenchRun*> auto_runs = completed_runs(runs, "auto");
  if (std::find(backends.begin(), backends.end(), "auto") != backends.end() && !auto_runs.empty())
    write_switch_section(md, auto_runs, crossover);
  write_notes_and_files(md, setup, runs, scales, plot_note);
  return md.str();
}

}  // namespace rbf::app
