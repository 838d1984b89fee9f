// The cost-curve plot of `rbfnet bench`: a gnuplot script beside costs.csv, and running gnuplot
// on it when it is installed.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace rbf::app {

// File names inside the bench folder; the script refers to the data and the image by these
// relative names, so it renders from inside the folder wherever the folder is moved.
extern const char* const kCostsFile;   // costs.csv
extern const char* const kSpreadFile;  // spread.csv
extern const char* const kPlotScript;  // cost_curves.gp
extern const char* const kPlotImage;   // cost_curves.png

struct PlotSpec {
  std::string title;                  // over both panels
  std::vector<std::string> backends;  // runs present in costs.csv, in order
  // The legend's name of a run where it is not the backend's ("auto (on cpu throughout)").
  std::map<std::string, std::string> labels;
  std::size_t max_nodes = 0;          // the node axis' extent, to keep the legend off the labels
  std::size_t crossover_nodes = 0;    // marked when > 0
  std::size_t switch_nodes = 0;       // auto's move to the GPU, marked when > 0
  double ms_max = 0;                  // top of the ms axis (single slow iterations such as a
                                      // migration would flatten the curves); 0 = gnuplot's choice
  std::size_t repeats = 1;            // > 1: the spread over the repeats is drawn as a band
  bool ms_log = false;                // logarithmic time axes (see time_axis_scale)
  bool cumulative_log = false;
  bool phases_log = false;
  bool validation = false;            // the runs measured a validation RMSE
};

// Four panels: ms per iteration vs nodes (median lines, a band over the repeats, each iteration
// as a dot, crossover and auto's switch marked), cumulative seconds vs nodes, validation RMSE vs
// nodes and the time of each phase vs nodes. The dots come from costs.csv, the rest from
// spread.csv. PNG through pngcairo, else png.
std::string cost_curves_script(const PlotSpec& spec);

struct PlotOutcome {
  bool rendered = false;
  std::string note;  // what the image shows, or why it was not drawn and how to draw it
};

// Runs gnuplot on `dir`/cost_curves.gp inside `dir`. Never throws: without gnuplot, or when it
// fails, `note` says so and gives the command that renders the script later.
PlotOutcome render_cost_curves(const std::string& dir);

}  // namespace rbf::app
