// `rbfnet inspect`: what a model file holds (task, nodes, columns, widths, linear terms, provenance and the
// configuration it was trained with), as text for people or JSON for scripts.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/commands.hpp"
#include "app/json_writer.hpp"
#include "data/text.hpp"
#include "model/model_file.hpp"

namespace rbf::app {

namespace {

struct WidthSummary {
  double min = 0, median = 0, max = 0;
};

WidthSummary summarize(std::vector<double> widths) {
  WidthSummary s;
  if (widths.empty()) return s;
  std::sort(widths.begin(), widths.end());
  s.min = widths.front();
  s.max = widths.back();
  const std::size_t mid = widths.size() / 2;
  s.median = widths.size() % 2 ? widths[mid] : (widths[mid - 1] + widths[mid]) / 2;
  return s;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The names of the k outputs the linear terms map to: targets, or classes for classification.
const std::vector<std::string>& output_names(const model::Network& net) {
  return net.task == data::Task::classification ? net.class_names : net.target_names;
}

// One line per output; beyond 20 features only the largest weight, which is what a reader
// scans such a line for anyway.
void print_linear_terms(const model::Network& net) {
  if (net.linear.empty()) return;
  const std::size_t d = net.inputs, k = net.outputs;
  std::printf("  linear terms (standardized inputs and outputs):\n");
  for (std::size_t j = 0; j < k; ++j) {
    std::string line;
    std::size_t largest = 0;
    for (std::size_t f = 0; f < d; ++f) {
      const double w = net.linear[f * k + j];
      if (std::abs(w) > std::abs(net.linear[largest * k + j])) largest = f;
      char number[32];
      std::snprintf(number, sizeof number, "%.4g", w);
      line += (line.empty() ? "" : ", ") + net.feature_names[f] + " " + number;
    }
    if (d > 20) {
      char summary[64];
      std::snprintf(summary, sizeof summary, "%zu weights, largest %.4g for ", d, net.linear[largest * k + j]);
      line = summary + net.feature_names[largest];
    }
    std::printf("    %s: %s\n", output_names(net)[j].c_str(), line.c_str());
  }
}

std::string task_name(const model::Network& net) {
  return net.task == data::Task::classification ? "classification" : "regression";
}

void print_json(const std::string& path, const model::Network& net, const WidthSummary& widths) {
  JsonWriter json;
  json.begin_object();
  json.key("model").value(path);
  json.key("task").value(task_name(net));
  json.key("nodes").value(net.total_nodes());
  json.key("features").strings(net.feature_names);
  // Raw tabular columns and how each became features; empty for a model trained on numbers.
  json.key("columns").begin_array();
  for (const data::EncodedColumn& c : net.encoding.columns) {
    json.begin_object().key("name").value(c.name);
    json.key("kind").value(c.kind == data::ColumnKind::categorical ? "categorical" : "numeric");
    if (c.kind == data::ColumnKind::numeric) {
      json.key("fill").value(c.fill).key("missing_indicator").value(c.indicator);
    } else {
      json.key("levels").strings(c.levels).key("other").value(c.pooled);
    }
    json.end_object();
  }
  json.end_array();
  json.key("targets").strings(net.target_names);
  json.key("classes").strings(net.class_names);
  // A partitioned model's parts (trainer.partitions): each part's nodes; empty for one network.
  json.key("parts").begin_array();
  for (const model::Network& part : net.parts) json.begin_object().key("nodes").value(part.nodes()).end_object();
  json.end_array();
  // One row of k weights per feature, in the order of "features"; null without linear terms.
  json.key("linear_terms");
  if (net.linear.empty()) {
    json.null();
  } else {
    json.begin_object().key("outputs").strings(output_names(net)).key("weights").begin_array();
    for (std::size_t f = 0; f < net.inputs; ++f) {
      const auto row = net.linear.begin() + static_cast<std::ptrdiff_t>(f * net.outputs);
      json.numbers(std::vector<double>(row, row + static_cast<std::ptrdiff_t>(net.outputs)));
    }
    json.end_array().end_object();
  }
  json.key("widths");
  if (net.nodes() > 0) {
    json.begin_object();
    json.key("min").value(widths.min).key("median").value(widths.median).key("max").value(widths.max);
    json.end_object();
  } else {
    json.null();  // no Gaussians, so no widths (not widths of 0)
  }
  const model::Provenance& p = net.provenance;
  json.key("proba_scale");  // classification: the probabilities' scale; null without one
  if (net.proba_scale > 0)
    json.value(net.proba_scale);
  else
    json.null();
  json.key("provenance").begin_object();
  json.key("rbfnet_version").value(p.rbfnet_version);
  json.key("created_utc").value(p.created_utc);
  json.key("backend").value(p.backend);
  json.key("data_file").value(p.data_file);
  json.key("data_sha256").value(p.data_sha256);
  json.end_object();
  json.key("resumable").value(!net.training_state.empty());
  json.key("config_yaml").value(p.config_yaml);
  json.end_object();
  std::fputs(json.str().c_str(), stdout);
}

// The network with every name as printable text: a column or class name from a file may hold
// terminal escapes, which the text report would otherwise send to the terminal as they are.
model::Network shown_on_a_terminal(const model::Network& net) {
  model::Network shown = net;
  for (std::vector<std::string>* names : {&shown.feature_names, &shown.target_names, &shown.class_names})
    for (std::string& name : *names) name = data::printable(name);
  for (data::EncodedColumn& column : shown.encoding.columns) {
    column.name = data::printable(column.name);
    for (std::string& level : column.levels) level = data::printable(level);
  }
  shown.provenance.data_file = data::printable(shown.provenance.data_file);
  return shown;
}

void print_text(const std::string& path, const model::Network& net, const WidthSummary& widths) {
  std::printf("model %s: %s, %zu nodes\n", path.c_str(), task_name(net).c_str(), net.total_nodes());
  if (!net.encoding.empty()) {
    std::printf("  columns (%zu), encoded as the features:\n", net.encoding.columns.size());
    for (const std::string& line : data::describe_encoding(net.encoding)) std::printf("    %s\n", line.c_str());
  }
  std::printf("  features (%zu): %s\n", net.feature_names.size(), joined(net.feature_names).c_str());
  std::printf("  target%s: %s\n", net.target_names.size() == 1 ? "" : "s", joined(net.target_names).c_str());
  if (!net.class_names.empty())
    std::printf("  classes (%zu): %s\n", net.class_names.size(), joined(net.class_names).c_str());
  // Widths live in standardized input space (each feature scaled to unit variance).
  if (!net.parts.empty()) {
    std::printf("  %zu parts (sub-models over regions of the inputs, blended), nodes per part:", net.parts.size());
    for (const model::Network& part : net.parts) std::printf(" %zu", part.nodes());
    std::printf("\n");
  } else if (net.nodes() > 0)
    std::printf("  widths (standardized inputs): min %.4g, median %.4g, max %.4g\n", widths.min, widths.median,
                widths.max);
  else
    std::printf("  no Gaussian nodes: the model is %s\n",
                net.linear.empty() ? "its bias alone" : "its linear terms and bias");

  print_linear_terms(net);
  if (net.task == data::Task::classification) {
    if (net.proba_scale > 0)
      std::printf("  probabilities: softmax of %.6g x the class scores\n", net.proba_scale);
    else
      std::printf("  probabilities: the class scores clipped at 0 and normalized (a model from before the "
                  "probability scale)\n");
  }
  const model::Provenance& p = net.provenance;
  std::printf("  trained by rbfnet %s on %s at %s\n", p.rbfnet_version.c_str(), p.backend.c_str(),
              p.created_utc.c_str());
  std::printf("  data: %s (sha256 %s)\n", p.data_file.c_str(), p.data_sha256.empty() ? "unknown" : p.data_sha256.c_str());
  if (!net.training_state.empty()) std::printf("  checkpoint: resumable with rbfnet train --resume %s\n", path.c_str());
  std::printf("  training config:\n");
  std::string line;
  for (char c : p.config_yaml) {
    if (c != '\n') {
      line += c;
      continue;
    }
    std::printf("    %s\n", line.c_str());
    line.clear();
  }
  if (!line.empty()) std::printf("    %s\n", line.c_str());
}

}  // namespace

int run_inspect(const InspectOptions& options) {
  const model::Network net = model::load_network(options.model);
  const WidthSummary widths = summarize(net.widths);
  if (options.json) {
    print_json(options.model, net, widths);
  } else {
    print_text(data::printable(options.model), shown_on_a_terminal(net), widths);
  }
  return 0;
}

}  // namespace rbf::app
