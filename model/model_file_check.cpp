// A network's internal consistency, refused by the model file's writer (no save) and reader (no load).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/model_file.hpp"

namespace rbf::model {
namespace {

std::string first_bad_value(const std::vector<double>& values, const char* what, bool must_be_positive) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return std::string(what) + "[" + std::to_string(i) + "] is not finite";
    }
    if (must_be_positive && !(values[i] > 0.0)) {
      return std::string(what) + "[" + std::to_string(i) + "] is not positive";
    }
  }
  return {};
}

std::string count_mismatch(const char* what, std::size_t have, std::size_t want, const char* expected) {
  return std::string(what) + " has " + std::to_string(have) + " entries, expected " + std::to_string(want) + " (" +
         expected + ")";
}

std::string scaler_problem(const data::Standardizer& s, const char* what) {
  const std::size_t cols = s.mean.size();
  if (s.scale.size() != cols || s.constant.size() != cols) {
    return std::string(what) + " has " + std::to_string(cols) + " means, " + std::to_string(s.scale.size()) +
           " scales and " + std::to_string(s.constant.size()) + " constant flags";
  }
  const std::string mean_name = std::string(what) + ".mean";
  const std::string scale_name = std::string(what) + ".scale";
  std::string problem = first_bad_value(s.mean, mean_name.c_str(), false);
  if (problem.empty()) problem = first_bad_value(s.scale, scale_name.c_str(), true);
  return problem;
}

std::string strings_problem(const std::vector<std::string>& list, const char* what) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].size() > kMaxModelStringBytes) {
      return std::string(what) + "[" + std::to_string(i) + "] is longer than " + std::to_string(kMaxModelStringBytes) +
             " bytes";
    }
  }
  return {};
}

// An encoding must make exactly the network's features from uniquely named columns.
std::string encoding_problem(const Network& net) {
  const data::FeatureEncoding& e = net.encoding;
  if (e.empty()) return {};
  if (e.feature_names() != net.feature_names) return "the encoding does not make the model's features";
  std::vector<std::string> names = e.raw_names();
  std::sort(names.begin(), names.end());
  if (std::adjacent_find(names.begin(), names.end()) != names.end()) return "the encoding names a column twice";
  for (const data::EncodedColumn& c : e.columns)
    if (!std::isfinite(c.fill)) return "the encoding's fill value of '" + c.name + "' is not finite";
  return strings_problem(names, "encoded columns");
}

}  // namespace

namespace {

// A partitioned model's parts: the centres, width and blend count of model/partitions.hpp, and
// parts that are whole networks of the same features, outputs and classes, none partitioned.
std::string partition_problem(const Network& net) {
  if (net.parts.empty()) {
    return net.part_centres.empty() && net.part_width == 0 && net.part_blend == 0 ? "" : "a partition without parts";
  }
  if (net.nodes() != 0 || !net.linear.empty()) return "a partitioned model has nodes or linear terms of its own";
  if (net.part_centres.size() != net.parts.size() * net.inputs)
    return count_mismatch("part_centres", net.part_centres.size(), net.parts.size() * net.inputs, "parts x inputs");
  if (!(net.part_width > 0) || !std::isfinite(net.part_width)) return "the parts' blend width is not a positive number";
  if (net.part_blend < 1 || net.part_blend > net.parts.size()) return "the parts' blend count is outside 1..parts";
  std::string problem = first_bad_value(net.part_centres, "part_centres", false);
  for (std::size_t p = 0; p < net.parts.size() && problem.empty(); ++p) {
    const Network& part = net.parts[p];
    if (!part.parts.empty() || part.task != net.task || part.inputs != net.inputs || part.outputs != net.outputs ||
        part.class_names != net.class_names || part.feature_names != net.feature_names)
      return "part " + std::to_string(p + 1) + " does not predict the model's outputs from its features";
    problem = find_network_problem(part);
    if (!problem.empty()) problem = "part " + std::to_string(p + 1) + ": " + problem;
  }
  return problem;
}

}  // namespace

std::string find_network_problem(const Network& net) {
  const bool classification = net.task == data::Task::classification;
  if (!classification && net.task != data::Task::regression) return "unknown task";
  if (net.inputs < 1 || net.inputs > kMaxModelInputs) {
    return "inputs is " + std::to_string(net.inputs) + ", outside 1.." + std::to_string(kMaxModelInputs);
  }
  if (net.outputs < 1 || net.outputs > kMaxModelOutputs) {
    return "outputs is " + std::to_string(net.outputs) + ", outside 1.." + std::to_string(kMaxModelOutputs);
  }
  if (net.proba_scale != 0 && (!classification || !(net.proba_scale > 0) || !std::isfinite(net.proba_scale)))
    return "a probability scale belongs to classifiers only, and must be a positive number";
  const std::size_t d = net.inputs;
  const std::size_t k = net.outputs;
  const std::size_t nodes = net.nodes();
  if (nodes > kMaxModelNodes) {
    return "the network has " + std::to_string(nodes) + " nodes, more than " + std::to_string(kMaxModelNodes);
  }
  if (net.feature_names.size() != d) {
    return count_mismatch("feature_names", net.feature_names.size(), d, "inputs");
  }
  if (net.target_names.size() != (classification ? 1 : k)) {
    return count_mismatch("target_names", net.target_names.size(), classification ? 1 : k,
                          classification ? "one label column" : "outputs");
  }
  if (net.class_names.size() != (classification ? k : 0)) {
    return count_mismatch("class_names", net.class_names.size(), classification ? k : 0,
                          classification ? "outputs" : "none for regression");
  }
  if (net.x_scaler.mean.size() != d) {
    return count_mismatch("x_scaler", net.x_scaler.mean.size(), d, "inputs");
  }
  // A classifier's outputs are class scores, never rescaled: its y scaler may be empty.
  const std::size_t y_cols = net.y_scaler.mean.size();
  if (y_cols != k && !(classification && y_cols == 0)) {
    return count_mismatch("y_scaler", y_cols, k, "outputs");
  }
  if (net.centers.size() != nodes * d) {
    return count_mismatch("centers", net.centers.size(), nodes * d, "nodes x inputs");
  }
  if (net.weights.size() != nodes * k) {
    return count_mismatch("weights", net.weights.size(), nodes * k, "nodes x outputs");
  }
  if (net.bias.size() != k) return count_mismatch("bias", net.bias.size(), k, "outputs");
  if (!net.linear.empty() && net.linear.size() != d * k) {
    return count_mismatch("linear", net.linear.size(), d * k, "inputs x outputs, or none");
  }

  std::string problem = scaler_problem(net.x_scaler, "x_scaler");
  if (problem.empty()) problem = scaler_problem(net.y_scaler, "y_scaler");
  if (problem.empty()) problem = first_bad_value(net.centers, "centers", false);
  if (problem.empty()) problem = first_bad_value(net.widths, "widths", true);
  if (problem.empty()) problem = first_bad_value(net.weights, "weights", false);
  if (problem.empty()) problem = first_bad_value(net.bias, "bias", false);
  if (problem.empty()) problem = first_bad_value(net.linear, "linear", false);
  if (problem.empty()) problem = strings_problem(net.feature_names, "feature_names");
  if (problem.empty()) problem = strings_problem(net.target_names, "target_names");
  if (problem.empty()) problem = strings_problem(net.class_names, "class_names");
  if (problem.empty()) problem = encoding_problem(net);
  if (problem.empty()) problem = partition_problem(net);
  if (problem.empty()) {
    const Provenance& p = net.provenance;
    problem = strings_problem({p.rbfnet_version, p.data_file, p.data_sha256, p.created_utc, p.config_yaml, p.backend},
                              "provenance");
  }
  return problem;
}

}  // namespace rbf::model
