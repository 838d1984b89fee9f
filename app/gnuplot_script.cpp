// Writes the gnuplot script for the bench's cost curves and runs gnuplot on it when present.
#include "app/gnuplot_script.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "app/bench_report.hpp"
#include "data/text.hpp"

namespace rbf::app {

const char* const kCostsFile = "costs.csv";
const char* const kSpreadFile = "spread.csv";
const char* const kPlotScript = "cost_curves.gp";
const char* const kPlotImage = "cost_curves.png";

namespace {

// A gnuplot single-quoted string: backslashes stay literal, a quote is doubled.
// A gnuplot string literal of `text`: data, never code. In single quotes nothing is
// interpreted but a doubled quote; a line break would end the command and start another (a
// file name with "\nsystem \"...\"" in it ran that command), so every control character is
// written as visible text instead.
std::string gp_string(const std::string& text) {
  std::string out = "'";
  for (const char c : data::printable(text)) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

struct Colors {
  const char* line;
  const char* dots;
};

Colors colors_of(const std::string& backend) {
  if (backend == "cpu") return {"#1f77b4", "#9ecae1"};
  if (backend == "gpu") return {"#2ca02c", "#a1d99b"};
  return {"#d62728", "#fcae91"};
}

// The phases of one iteration, in the order the trainer runs them, and their colors.
struct Phase {
  const char* column;
  const char* name;
  const char* color;
};
const Phase kPhases[] = {{"select_ms", "select", "#9467bd"},
                         {"add_ms", "add", "#8c564b"},
                         {"update_ms", "update", "#e377c2"},
                         {"evaluate_ms", "evaluate", "#17becf"}};

// The phase lines of each backend differ by dash type.
int dash_of(const std::string& backend) { return backend == "cpu" ? 1 : backend == "gpu" ? 2 : 3; }

// The y value of costs.csv's `column` for rows of `backend` only; other rows are undefined and
// not drawn.
std::string series(const std::string& backend, const std::string& column, const char* scale = "") {
  return "(strcol(" + std::to_string(costs_column("backend")) + ") eq " + gp_string(backend) + " ? column(" +
         std::to_string(costs_column(column)) + ")" + scale + " : NaN)";
}

// The same over spread.csv.
std::string spread_series(const std::string& backend, const std::string& column, const char* scale = "") {
  return "(strcol(" + std::to_string(spread_column("backend")) + ") eq " + gp_string(backend) + " ? column(" +
         std::to_string(spread_column(column)) + ")" + scale + " : NaN)";
}

std::string y_axis(bool log, const std::string& label) {
  return log ? "set logscale y\nset yrange [*:*]\nset ylabel " + gp_string(label + " (log scale)") + "\n"
             : "unset logscale y\nset yrange [0:*]\nset ylabel " + gp_string(label) + "\n";
}

// Runs `command` through the shell; returns its exit status (-1 when it could not run) and
// everything it printed.
int run_shell(const std::string& command, std::string& output) {
  output.clear();
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) output += buf;
  const int status = ::pclose(pipe);
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string first_line(const std::string& text) {
  const auto first = text.find_first_not_of("\r\n ");
  if (first == std::string::npos) return std::string();
  return text.substr(first, text.find_first_of("\r\n", first) - first);
}

}  // namespace

namespace {

// The names every panel uses: the CSV files and the node columns, as gnuplot text.
struct PlotFiles {
  std::string costs = gp_string(kCostsFile), spread = gp_string(kSpreadFile);
  std::string nodes = std::to_string(costs_column("nodes"));
  std::string spread_nodes = std::to_string(spread_column("nodes"));
};

// The terminal, the output image, the 2 x 2 layout and the crossover and switch markers.
void write_preamble(std::ostream& gp, const PlotSpec& spec) {
  gp << "# Cost curves of `rbfnet bench`, drawn from " << kCostsFile << " and " << kSpreadFile
     << " beside this file.\n";
  gp << "# Render: cd <this folder> && gnuplot " << kPlotScript << "\n";
  gp << "set datafile separator ','\n";
  gp << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n";
  gp << "  set terminal pngcairo noenhanced size 1400,1000 font 'sans,10'\n";
  gp << "} else {\n";
  gp << "  set terminal png noenhanced size 1400,1000\n";
  gp << "}\n";
  gp << "set output " << gp_string(kPlotImage) << "\n";
  gp << "set multiplot layout 2,2 title " << gp_string(spec.title) << "\n";
  // The legend goes to the side away from the crossover and switch labels, which sit at the top.
  const std::size_t marked = std::max(spec.crossover_nodes, spec.switch_nodes);
  const bool key_right = marked > 0 && 2 * marked < spec.max_nodes;
  gp << "set grid\nset key top " << (key_right ? "right" : "left") << "\nset xlabel 'Gaussian nodes'\nset xrange [0:*]\n";
  gp << "set style fill transparent solid 0.25 noborder\n";
  if (spec.crossover_nodes > 0) {
    const std::string x = std::to_string(spec.crossover_nodes);
    gp << "set arrow 1 from " << x << ", graph 0 to " << x
       << ", graph 1 nohead dashtype 2 linewidth 1.5 linecolor rgb '#444444'\n";
    gp << "set label 1 " << gp_string("crossover: " + x + " nodes") << " at " << x
       << ", graph 0.95 offset 1,0 textcolor rgb '#444444'\n";
  }
  if (spec.switch_nodes > 0) {
    const std::string x = std::to_string(spec.switch_nodes);
    gp << "set arrow 2 from " << x << ", graph 0 to " << x
       << ", graph 1 nohead dashtype 3 linewidth 1.5 linecolor rgb '" << colors_of("auto").line << "'\n";
    gp << "set label 2 " << gp_string("auto -> gpu: " + x + " nodes") << " at " << x
       << ", graph 0.87 offset 1,0 textcolor rgb '" << colors_of("auto").line << "'\n";
  }
}

// " over R repeats" when the runs were repeated, else "".
std::string over_repeats(const PlotSpec& spec) {
  return spec.repeats > 1 ? " over " + std::to_string(spec.repeats) + " repeats" : std::string();
}

// The legend's name of a run: the backend, and for auto where it ran when that was one device.
std::string run_label(const PlotSpec& spec, const std::string& backend) {
  const auto found = spec.labels.find(backend);
  return found != spec.labels.end() ? found->second : backend;
}

// Panel 1: ms per iteration, each iteration a dot, the smoothed median a line (and a band).
void write_iteration_panel(std::ostream& gp, const PlotSpec& spec, const PlotFiles& f) {
  const bool band = spec.repeats > 1;
  gp << "set title " << gp_string("Time per iteration (lines: median of 5 iterations" + over_repeats(spec) +
                                  (band ? ", band: min-max" : "; one run, no spread: --repeat 3 draws it") +
                                  "; dots: each iteration)")
     << "\n";
  gp << y_axis(spec.ms_log, "ms per iteration");
  if (spec.ms_max > 0) {
    char range[64];
    std::snprintf(range, sizeof range, "set yrange [%s:%.4g]\n", spec.ms_log ? "*" : "0", spec.ms_max);
    gp << range;
  }
  std::string sep = "plot ";
  for (const std::string& backend : spec.backends) {
    const Colors c = colors_of(backend);
    gp << sep << f.costs << " skip 1 using " << f.nodes << ":" << series(backend, "total_ms")
       << " with points pointtype 7 pointsize 0.4 linecolor rgb '" << c.dots << "' notitle, \\\n";
    if (band) {
      gp << "     " << f.spread << " skip 1 using " << f.spread_nodes << ":"
         << spread_series(backend, "smoothed_ms_min") << ":" << spread_series(backend, "smoothed_ms_max")
         << " with filledcurves fillcolor rgb '" << c.line << "' notitle, \\\n";
    }
    gp << "     " << f.spread << " skip 1 using " << f.spread_nodes << ":"
       << spread_series(backend, "smoothed_ms_median") << " with lines linewidth 2 linecolor rgb '" << c.line
       << "' title " << gp_string(run_label(spec, backend));
    sep = ", \\\n     ";
  }
  if (spec.backends.empty()) gp << "plot NaN notitle";
  gp << "\n";
  gp << "unset label\n";
}

// Panel 2: cumulative seconds, set-up included.
void write_cumulative_panel(std::ostream& gp, const PlotSpec& spec, const PlotFiles& f) {
  const bool band = spec.repeats > 1;
  gp << "set title "
     << gp_string("Cumulative time, setup included" +
                  (band ? " (median" + over_repeats(spec) + ", band: min-max)" : std::string()))
     << "\n";
  gp << y_axis(spec.cumulative_log, "seconds");
  std::string sep = "plot ";
  for (const std::string& backend : spec.backends) {
    const Colors c = colors_of(backend);
    if (band) {
      gp << sep << f.spread << " skip 1 using " << f.spread_nodes << ":"
         << spread_series(backend, "cumulative_ms_min", "/1000.0") << ":"
         << spread_series(backend, "cumulative_ms_max", "/1000.0") << " with filledcurves fillcolor rgb '" << c.line
         << "' notitle";
      sep = ", \\\n     ";
    }
    gp << sep << f.spread << " skip 1 using " << f.spread_nodes << ":"
       << spread_series(backend, "cumulative_ms_median", "/1000.0") << " with lines linewidth 2 linecolor rgb '"
       << c.line << "' title " << gp_string(run_label(spec, backend));
    sep = ", \\\n     ";
  }
  if (spec.backends.empty()) gp << "plot NaN notitle";
  gp << "\n";
}

// Panel 3: the validation error per backend, or a note that there were no validation rows.
void write_validation_panel(std::ostream& gp, const PlotSpec& spec, const PlotFiles& f) {
  gp << "set title 'Validation error (RMSE on the held-out rows, target units)'\n";
  gp << "unset logscale y\nset yrange [*:*]\nset ylabel 'validation RMSE'\n";
  if (spec.validation && !spec.backends.empty()) {
    std::string sep = "plot ";
    for (const std::string& backend : spec.backends) {
      gp << sep << f.spread << " skip 1 using " << f.spread_nodes << ":" << spread_series(backend, "val_rmse")
         << " with lines linewidth 2 dashtype " << dash_of(backend) << " linecolor rgb '" << colors_of(backend).line
         << "' title " << gp_string(run_label(spec, backend));
      sep = ", \\\n     ";
    }
    gp << "\n";
  } else {
    gp << "set label 3 'no validation rows (--validation 0)' at graph 0.5, graph 0.5 center\n";
    gp << "set yrange [0:1]\nplot NaN notitle\nunset label 3\n";
  }
}

// Panel 4: each phase's smoothed ms, colour by phase, line style by backend.
void write_phase_panel(std::ostream& gp, const PlotSpec& spec, const PlotFiles& f) {
  gp << "set title 'Time per phase against Gaussian nodes (median of 5 iterations" << over_repeats(spec)
     << "; line style: backend)'\n";
  gp << y_axis(spec.phases_log, "ms per iteration");
  // Up to 12 lines: inside the panel they would hide the curves. Below it, the axis label
  // would sit on the legend's first row, so the title names the axis instead.
  gp << "set key below horizontal\nunset xlabel\n";
  std::string sep = "plot ";
  for (const std::string& backend : spec.backends) {
    for (const Phase& phase : kPhases) {
      gp << sep << f.spread << " skip 1 using " << f.spread_nodes << ":" << spread_series(backend, phase.column)
         << " with lines linewidth 1.5 dashtype " << dash_of(backend) << " linecolor rgb '" << phase.color
         << "' title " << gp_string(backend + " " + phase.name);
      sep = ", \\\n     ";
    }
  }
  if (spec.backends.empty()) gp << "plot NaN notitle";
  gp << "\n";
}

}  // namespace

std::string cost_curves_script(const PlotSpec& spec) {
  const PlotFiles files;
  std::ostringstream gp;
  write_preamble(gp, spec);
  write_iteration_panel(gp, spec, files);
  write_cumulative_panel(gp, spec, files);
  write_validation_panel(gp, spec, files);
  write_phase_panel(gp, spec, files);
  gp << "unset multiplot\n";
  return gp.str();
}

PlotOutcome render_cost_curves(const std::string& dir) {
  PlotOutcome outcome;
  const std::string how = "render it with `cd " + shell_quoted(dir) + " && gnuplot " + kPlotScript + "`";
  std::string output;
  if (run_shell("command -v gnuplot 2>/dev/null", output) != 0 || first_line(output).empty()) {
    outcome.note = "not drawn: gnuplot was not found (Debian/Ubuntu: apt-get install gnuplot-nox); " + how;
    return outcome;
  }
  const std::string image = dir + "/" + kPlotImage;
  std::remove(image.c_str());  // a stale image must not pass for this run's
  const int status = run_shell("cd " + shell_quoted(dir) + " && gnuplot " + kPlotScript + " 2>&1", output);
  struct stat st {};
  const bool written = ::stat(image.c_str(), &st) == 0 && st.st_size > 0;
  if (status != 0 || !written) {
    std::remove(image.c_str());  // gnuplot may leave a partial image behind
    const std::string said = first_line(output);
    outcome.note = "not drawn: gnuplot failed" + (said.empty() ? std::string() : " (" + said + ")") + "; " + how;
    return outcome;
  }
  if (!output.empty()) spdlog::debug("gnuplot said: {}", output);
  outcome.rendered = true;
  outcome.note =
      "milliseconds per iteration against the node count, one line per backend, the crossover and auto's switch "
      "marked; beside it the cumulative time; below, the validation error and the time of each phase against the "
      "node count";
  return outcome;
}

}  // namespace rbf::app
