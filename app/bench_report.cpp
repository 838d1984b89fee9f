// costs.csv, spread.csv, the per-node spread and the crossover of `rbfnet bench` (summary.md: bench_summary.cpp).
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

// Median smoothed ms/iteration over the repeats at each node count they reached.
std::map<std::size_t, double> median_per_node(const std::vector<const BenchRun*>& repeats) {
  std::map<std::size_t, double> out;
  for (const NodeSpread& node : node_spread(repeats)) out[node.nodes] = node.smoothed_ms.median;
  return out;
}

int column_of(const std::vector<std::string>& columns, const std::string& name, const char* file) {
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) throw std::out_of_range(std::string(file) + " has no column " + name);
  return static_cast<int>(it - columns.begin()) + 1;
}

std::string header_line(const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + columns[c];
  return out + "\n";
}

std::string number_or_empty(double value) { return value >= 0 ? data::round_trip_text(value) : std::string(); }

}  // namespace

const std::vector<std::string>& costs_columns() {
  static const std::vector<std::string> kColumns{
      "backend",     "iteration", "nodes",       "device",        "select_ms",  "add_ms",   "update_ms",
      "evaluate_ms", "total_ms",  "smoothed_ms", "cumulative_ms", "train_rmse", "val_rmse", "event",
      "repeat"};
  return kColumns;
}

int costs_column(const std::string& name) { return column_of(costs_columns(), name, "costs.csv"); }

std::vector<double> smoothed_ms(const std::vector<model::IterationRecord>& records, std::size_t window) {
  return smoothed(records, &model::IterationRecord::total_ms, window);
}

std::vector<double> smoothed(const std::vector<model::IterationRecord>& records, double model::IterationRecord::*ms,
                             std::size_t window) {
  const std::size_t half = std::max<std::size_t>(window, 1) / 2;
  std::vector<double> out(records.size());
  std::vector<double> values;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::size_t first = i >= half ? i - half : 0;
    const std::size_t last = std::min(records.size() - 1, i + half);
    values.clear();
    for (std::size_t j = first; j <= last; ++j) values.push_back(records[j].*ms);
    std::sort(values.begin(), values.end());
    const std::size_t m = values.size();
    out[i] = m % 2 == 1 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
  }
  return out;
}

std::vector<const BenchRun*> completed_runs(const std::vector<BenchRun>& runs, const std::string& backend) {
  std::vector<const BenchRun*> out;
  for (const BenchRun& run : runs) {
    if (run.backend == backend && !run.skipped && !run.failed) out.push_back(&run);
  }
  return out;
}

Spread spread_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size();
  Spread s;
  s.min = values.front();
  s.max = values.back();
  s.median = m % 2 == 1 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
  return s;
}

std::vector<NodeSpread> node_spread(const std::vector<const BenchRun*>& repeats) {
  // Per node count, per repeat: the values of that repeat's last iteration at that count.
  struct Values {
    std::vector<double> smoothed, cumulative, select, add, update, evaluate, val;
  };
  std::map<std::size_t, Values> by_node;
  for (const BenchRun* run : repeats) {
    const auto& records = run->result.iterations;
    const std::vector<double> total = smoothed_ms(records);
    const std::vector<double> select = smoothed(records, &model::IterationRecord::select_ms);
    const std::vector<double> add = smoothed(records, &model::IterationRecord::add_ms);
    const std::vector<double> update = smoothed(records, &model::IterationRecord::update_ms);
    const std::vector<double> evaluate = smoothed(records, &model::IterationRecord::evaluate_ms);
    std::map<std::size_t, std::size_t> last;  // node count -> index of its last iteration
    double cumulative = run->result.setup_seconds * 1e3;
    std::vector<double> cumulative_at(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      cumulative += records[i].total_ms;
      cumulative_at[i] = cumulative;
      if (records[i].nodes > 0) last[records[i].nodes] = i;
    }
    for (const auto& entry : last) {
      const std::size_t i = entry.second;
      Values& v = by_node[entry.first];
      v.smoothed.push_back(total[i]);
      v.cumulative.push_back(cumulative_at[i]);
      v.select.push_back(select[i]);
      v.add.push_back(add[i]);
      v.update.push_back(update[i]);
      v.evaluate.push_back(evaluate[i]);
      if (records[i].val_rmse >= 0) v.val.push_back(records[i].val_rmse);
    }
  }
  std::vector<NodeSpread> out;
  for (const auto& entry : by_node) {
    const Values& v = entry.second;
    NodeSpread node;
    node.nodes = entry.first;
    node.repeats = v.smoothed.size();
    node.smoothed_ms = spread_of(v.smoothed);
    node.cumulative_ms = spread_of(v.cumulative);
    node.select_ms = spread_of(v.select).median;
    node.add_ms = spread_of(v.add).median;
    node.update_ms = spread_of(v.update).median;
    node.evaluate_ms = spread_of(v.evaluate).median;
    if (!v.val.empty()) node.val_rmse = spread_of(v.val).median;
    out.push_back(node);
  }
  return out;
}

const std::vector<std::string>& spread_columns() {
  static const std::vector<std::string> kColumns{
      "backend",        "nodes",          "repeats",     "smoothed_ms_median", "smoothed_ms_min",
      "smoothed_ms_max", "cumulative_ms_median", "cumulative_ms_min", "cumulative_ms_max", "select_ms",
      "add_ms",         "update_ms",      "evaluate_ms", "val_rmse"};
  return kColumns;
}

int spread_column(const std::string& name) { return column_of(spread_columns(), name, "spread.csv"); }

void write_spread_csv(const std::string& path, const std::vector<BenchRun>& runs,
                      const std::vector<std::string>& backends) {
  std::ostringstream out;
  out << header_line(spread_columns());
  for (const std::string& backend : backends) {
    for (const NodeSpread& n : node_spread(completed_runs(runs, backend))) {
      // Exact numbers, as in costs.csv.
      out << backend << ',' << n.nodes << ',' << n.repeats;
      for (const double v : {n.smoothed_ms.median, n.smoothed_ms.min, n.smoothed_ms.max, n.cumulative_ms.median,
                             n.cumulative_ms.min, n.cumulative_ms.max, n.select_ms, n.add_ms, n.update_ms,
                             n.evaluate_ms})
        out << ',' << data::round_trip_text(v);
      out << ',' << number_or_empty(n.val_rmse) << '\n';
    }
  }
  const std::string text = out.str();
  data::write_file_atomically(path, text.data(), text.size());
}

void write_costs_csv(const std::string& path, const std::vector<BenchRun>& runs) {
  std::ostringstream out;
  out << header_line(costs_columns());
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
      out << "," << csv_field(r.event) << "," << run.repeat << "\n";
    }
  }
  const std::string text = out.str();
  data::write_file_atomically(path, text.data(), text.size());
}

Crossover find_crossover(const std::vector<BenchRun>& runs) {
  Crossover result;
  const std::vector<const BenchRun*> cpu = completed_runs(runs, "cpu");
  const std::vector<const BenchRun*> gpu = completed_runs(runs, "gpu");
  if (cpu.empty() || gpu.empty()) {
    result.text = "Not measured: it needs both a cpu and a gpu run (see the notes below).";
    return result;
  }
  result.measured = true;
  const auto cpu_ms = median_per_node(cpu);
  const auto gpu_ms = median_per_node(gpu);
  const std::size_t repeats = std::min(cpu.size(), gpu.size());
  const std::string medians =
      repeats > 1 ? fmt::format("medians of 5 iterations and of {} repeats", repeats) : "medians of 5 iterations";
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
        "CPU's {:.3f} ms ({}).",
        result.compared_up_to, gpu_ms.at(common.back()), cpu_ms.at(common.back()), medians);
    return result;
  }
  result.found = true;
  result.nodes = common[i];
  if (i == 0) {
    result.text = fmt::format("The GPU is faster per iteration from the first node on (up to {} nodes compared).",
                              result.compared_up_to);
  } else {
    result.text = fmt::format(
        "The GPU is faster per iteration from **{} nodes** on ({}; at {} nodes: GPU "
        "{:.3f} ms, CPU {:.3f} ms).",
        result.nodes, medians, result.compared_up_to, gpu_ms.at(common.back()), cpu_ms.at(common.back()));
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

}  // namespace rbf::app
