// costs.csv, the crossover and summary.md of `rbfnet bench`.
#include "app/bench_report.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "data/atomic_file.hpp"
#include "data/errors.hpp"
#include "data/text.hpp"

namespace rbf::app {

namespace {

const BenchRun* find_run(const std::vector<BenchRun>& runs, const std::string& backend) {
  for (const BenchRun& run : runs) {
    if (run.backend == backend && !run.skipped && !run.failed) return &run;
  }
  return nullptr;
}

// RFC 4180: quote a field holding a separator, quote or line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Smoothed ms/iteration at each node count the run reached (its last iteration at that count).
std::map<std::size_t, double> per_node(const BenchRun& run) {
  const auto& records = run.result.iterations;
  const std::vector<double> smooth = smoothed_ms(records);
  std::map<std::size_t, double> out;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].nodes > 0) out[records[i].nodes] = smooth[i];
  }
  return out;
}

double growth_seconds(const BenchRun& run) { return run.result.seconds; }
double total_seconds(const BenchRun& run) { return run.result.setup_seconds + run.result.seconds; }

// "cpu", "gpu", "cpu->gpu", "cpu->gpu->cpu": where the run's iterations went, in order.
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

}  // namespace

const std::vector<std::string>& costs_columns() {
  static const std::vector<std::string> kColumns{
      "backend",     "iteration", "nodes",       "device",        "select_ms",  "add_ms",   "update_ms",
      "evaluate_ms", "total_ms",  "smoothed_ms", "cumulative_ms", "train_rmse", "val_rmse", "event"};
  return kColumns;
}

int costs_column(const std::string& name) {
  const auto& columns = costs_columns();
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) throw std::out_of_range("costs.csv has no column " + name);
  return static_cast<int>(it - columns.begin()) + 1;
}

std::vector<double> smoothed_ms(const std::vector<model::IterationRecord>& records, std::size_t window) {
  const std::size_t half = std::max<std::size_t>(window, 1) / 2;
  std::vector<double> out(records.size());
  std::vector<double> values;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::size_t first = i >= half ? i - half : 0;
    const std::size_t last = std::min(records.size() - 1, i + half);
    values.clear();
    for (std::size_t j = first; j <= last; ++j) values.push_back(records[j].total_ms);
    std::sort(values.begin(), values.end());
    const std::size_t m = values.size();
    out[i] = m % 2 == 1 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
  }
  return out;
}

void write_costs_csv(const std::string& path, const std::vector<BenchRun>& runs) {
  std::ostringstream out;
  const auto& columns = costs_columns();
  for (std::size_t c = 0; c < columns.size(); ++c) out << (c ? "," : "") << columns[c];
  out << "\n";
  for (const BenchRun& run : runs) {
    if (run.skipped || run.failed) continue;
    const auto& records = run.result.iterations;
    const std::vector<double> smooth = smoothed_ms(records);
    double cumulative = run.result.setup_seconds * 1e3;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const model::IterationRecord& r = records[i];
      cumulative += r.total_ms;
      // Every number exactly (data::round_trip_text), as in the iteration log; summary.md is
      // the rounded view for people.
      out << run.backend << ',' << r.iteration << ',' << r.nodes << ',' << r.backend;
      for (const double v : {r.select_ms, r.add_ms, r.update_ms, r.evaluate_ms, r.total_ms, smooth[i], cumulative,
                             r.train_rmse})
        out << ',' << data::round_trip_text(v);
      out << ',';
      if (r.val_rmse >= 0) out << data::round_trip_text(r.val_rmse);
      out << "," << csv_field(r.event) << "\n";
    }
  }
  const std::string text = out.str();
  data::write_file_atomically(path, text.data(), text.size());
}

Crossover find_crossover(const std::vector<BenchRun>& runs) {
  Crossover result;
  const BenchRun* cpu = find_run(runs, "cpu");
  const BenchRun* gpu = find_run(runs, "gpu");
  if (cpu == nullptr || gpu == nullptr) {
    result.text = "Not measured: it needs both a cpu and a gpu run (see the notes below).";
    return result;
  }
  result.measured = true;
  const auto cpu_ms = per_node(*cpu);
  const auto gpu_ms = per_node(*gpu);
  std::vector<std::size_t> common;
  for (const auto& entry : cpu_ms) {
    if (gpu_ms.count(entry.first) != 0) common.push_back(entry.first);
  }
  if (common.empty()) {
    result.text = "Not measured: the cpu and gpu runs reached no common node count.";
    return result;
  }
  result.compared_up_to = common.back();
  // From the largest node count down, as long as the GPU stays faster.
  std::size_t i = common.size();
  while (i > 0 && gpu_ms.at(common[i - 1]) < cpu_ms.at(common[i - 1])) --i;
  if (i == common.size()) {
    result.text = fmt::format(
        "No crossover up to {} nodes: at that size the GPU still takes {:.3f} ms per iteration against the "
        "CPU's {:.3f} ms (medians of 5 iterations).",
        result.compared_up_to, gpu_ms.at(common.back()), cpu_ms.at(common.back()));
    return result;
  }
  result.found = true;
  result.nodes = common[i];
  if (i == 0) {
    result.text = fmt::format("The GPU is faster per iteration from the first node on (up to {} nodes compared).",
                              result.compared_up_to);
  } else {
    result.text = fmt::format(
        "The GPU is faster per iteration from **{} nodes** on (medians of 5 iterations; at {} nodes: GPU "
        "{:.3f} ms, CPU {:.3f} ms).",
        result.nodes, result.compared_up_to, gpu_ms.at(common.back()), cpu_ms.at(common.back()));
  }
  return result;
}

SwitchPoint find_switch(const BenchRun& run) {
  SwitchPoint point;
  const auto& records = run.result.iterations;
  for (std::size_t i = 0; i + 1 < records.size(); ++i) {
    if (records[i + 1].backend != records[i].backend) {
      point.switched = true;
      point.iteration = records[i].iteration;
      point.nodes = records[i].nodes;
      point.event = records[i].event;
      return point;
    }
  }
  // A switch after the last iteration moves nothing that ran, but its event still tells.
  for (const model::IterationRecord& rec : records) {
    if (!rec.event.empty()) {
      point.iteration = rec.iteration;
      point.nodes = rec.nodes;
      point.event = rec.event;
    }
  }
  return point;
}

std::string summary_markdown(const BenchSetup& setup, const std::vector<BenchRun>& runs, const Crossover& crossover,
                             const std::string& plot_note) {
  std::ostringstream md;
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
       << (any->result.candidates_stored ? "stored" : "evaluated on the fly") << ")\n";
  }
  md << fmt::format("- up to {} nodes, candidate pool {}, {}, seed {}, validation {:g}\n", setup.max_nodes, setup.pool,
                    setup.precision, setup.seed, setup.validation);
  md << "- every backend ran the same data, seed and settings, with validation patience off so that each grows "
        "the same nodes\n\n";

  md << "## Time per backend\n\n";
  md << "| backend | ran on | nodes | iterations | setup (s) | growth (s) | total (s) | speedup vs cpu | "
        "ms/iteration at the end | training RMSE |\n";
  md << "|---|---|---|---|---|---|---|---|---|---|\n";
  const BenchRun* cpu = find_run(runs, "cpu");
  for (const BenchRun& run : runs) {
    if (run.skipped || run.failed) {
      md << "| " << run.backend << " | " << (run.skipped ? "skipped" : "failed") << " | | | | | | | | |\n";
      continue;
    }
    const auto& records = run.result.iterations;
    const std::vector<double> smooth = smoothed_ms(records);
    const std::string speedup = cpu != nullptr && total_seconds(run) > 0
                                    ? fmt::format("{:.2f}x", total_seconds(*cpu) / total_seconds(run))
                                    : std::string("-");
    md << fmt::format("| {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {} | {} | {:.5g} |\n", run.backend,
                      devices_used(run), records.empty() ? 0 : records.back().nodes, records.size(),
                      run.result.setup_seconds, growth_seconds(run), total_seconds(run), speedup,
                      smooth.empty() ? std::string("-") : fmt::format("{:.3f}", smooth.back()),
                      run.result.final_train_rmse);
  }
  md << "\nSetup is data transfer, candidate evaluation and the first pass; growth is the node-by-node loop. "
        "Speedup is the cpu run's total time over this run's.\n\n";

  md << "## Crossover\n\n" << crossover.text << "\n\n";

  for (const BenchRun& run : runs) {
    if (run.backend != "auto" || run.skipped || run.failed) continue;
    md << "## Automatic switch (auto)\n\n";
    const SwitchPoint point = find_switch(run);
    if (point.switched) {
      md << fmt::format("- moved after iteration {} ({} nodes)", point.iteration, point.nodes);
      md << (point.event.empty() ? std::string() : ": " + point.event) << "\n";
    } else {
      md << "- stayed on " << devices_used(run) << " for all "
         << (run.result.iterations.empty() ? 0 : run.result.iterations.back().nodes) << " nodes\n";
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

  bool notes = false;
  for (const BenchRun& run : runs) {
    if (!run.skipped && !run.failed) continue;
    if (!notes) md << "## Notes\n\n";
    notes = true;
    md << "- " << run.backend << ": " << (run.skipped ? "skipped: " : "failed: ") << run.note << "\n";
  }
  if (notes) md << "\n";

  md << "## Files\n\n";
  md << "- `costs.csv`: one row per iteration of every run (backend = the run, device = where the iteration "
        "ran, each phase in ms, smoothed_ms = median of 5 iterations, cumulative_ms from the start of setup, "
        "event = a switch or fallback after that iteration)\n";
  md << "- `cost_curves.png`: " << plot_note << "\n";
  md << "- `cost_curves.gp`: the gnuplot script that draws it from costs.csv\n";
  return md.str();
}

}  // namespace rbf::app
