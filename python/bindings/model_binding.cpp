// Model: a model::Network seen from Python. Predictions release the GIL; files are the CLI's.
#include "python/bindings/model_binding.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "data/feature_encoding.hpp"
#include "model/metrics.hpp"
#include "model/model_file.hpp"
#include "model/network.hpp"
#include "python/bindings/arrays.hpp"
#include "python/bindings/c_locale.hpp"

namespace py = pybind11;

namespace rbf::python {

namespace {

using model::Network;

// float32 rows are widened this many at a time, so predicting never doubles the input's memory.
constexpr std::size_t kRowsPerBlock = 8192;

// A model with an encoding reads raw tabular X (its columns, NaN where missing, and the text
// columns): encoded here, with a Python warning for what training did not show.
py::array_t<double> predict_raw(const Network& net, const MatrixView& view, const TextColumns& text) {
  data::Dataset ds;
  ds.source = "X";
  ds.rows = view.rows();
  ds.features = view.cols();
  ds.feature_names = net.input_columns();
  if (view.cols() != ds.feature_names.size())
    throw py::value_error("X has " + std::to_string(view.cols()) + " columns, but the model reads " +
                          std::to_string(ds.feature_names.size()));
  ds.x.resize(ds.rows * ds.features);
  view.copy_rows(0, ds.rows, ds.x.data());
  attach_text_columns(ds, text);
  const data::EncodingReport report = data::apply_encoding(net.encoding, ds);
  if (!report.empty() && PyErr_WarnEx(PyExc_UserWarning, report.sentence().c_str(), 2) != 0)
    throw py::error_already_set();
  std::vector<double> out;
  {
    py::gil_scoped_release release;
    net.predict(ds.x.data(), ds.rows, out);
  }
  return to_numpy(std::move(out), {ds.rows, net.outputs});
}

py::array_t<double> predict(const Network& net, const py::handle& x, const TextColumns& text) {
  const CLocaleScope c_locale;
  const MatrixView view(x, "X");
  if (!net.encoding.empty()) return predict_raw(net, view, text);
  if (view.cols() != net.inputs) {
    throw py::value_error("X has " + std::to_string(view.cols()) + " features, but the model expects " +
                          std::to_string(net.inputs));
  }
  const std::size_t rows = view.rows(), k = net.outputs;
  std::vector<double> out;
  {
    py::gil_scoped_release release;
    if (const double* in = view.float64()) {
      net.predict(in, rows, out);
    } else {
      out.resize(rows * k);
      std::vector<double> block, part;
      for (std::size_t first = 0; first < rows; first += kRowsPerBlock) {
        const std::size_t count = std::min(kRowsPerBlock, rows - first);
        block.resize(count * view.cols());
        view.copy_rows(first, count, block.data());
        net.predict(block.data(), count, part);
        std::copy(part.begin(), part.end(), out.begin() + static_cast<std::ptrdiff_t>(first * k));
      }
    }
  }
  return to_numpy(std::move(out), {rows, k});
}

py::array_t<double> vector_array(const std::vector<double>& values, std::size_t rows, std::size_t cols) {
  return to_numpy(std::vector<double>(values), {rows, cols});
}

py::array_t<double> vector_array(const std::vector<double>& values) {
  return to_numpy(std::vector<double>(values), {values.size()});
}

py::bytes to_bytes(const Network& net) {
  const std::vector<std::uint8_t> bytes = model::serialize_network(net);
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

Network from_bytes(const py::bytes& data, const std::string& name) {
  const std::string text = data;
  return model::parse_network(reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), name);
}

py::dict provenance(const Network& net) {
  py::dict d;
  d["rbfnet_version"] = net.provenance.rbfnet_version;
  d["data_file"] = net.provenance.data_file;
  d["data_sha256"] = net.provenance.data_sha256;
  d["created_utc"] = net.provenance.created_utc;
  d["backend"] = net.provenance.backend;
  return d;
}

}  // namespace

void bind_model(py::module_& m) {
  py::class_<Network, std::shared_ptr<Network>>(m, "Model", "A trained RBF network (the CLI's model, in memory).")
      .def_static(
          "load",
          [](const std::string& path) {
            const CLocaleScope c_locale;
            return model::load_network(path);
          },
          py::arg("path"), "Reads a model file written by rbfnet or save().")
      .def(
          "save",
          [](const Network& net, const std::string& path) {
            const CLocaleScope c_locale;
            model::save_network(net, path);
          },
           py::arg("path"), "Writes the model file atomically, in the format `rbfnet predict` reads.")
      .def("to_bytes", &to_bytes, "The model file's bytes.")
      .def_static("from_bytes", &from_bytes, py::arg("data"), py::arg("name") = "<bytes>",
                  "A model from a model file's bytes.")
      .def("predict", &predict, py::arg("X"), py::arg("text_columns") = TextColumns(),
           "Raw outputs (n, k): target units for regression, class scores for classification. A model "
           "trained on raw tabular data reads its columns (`columns`), NaN where missing, with the text "
           "columns as (index, cells) pairs.")
      .def(
          "probabilities",
          [](const Network& net, const py::handle& x, const TextColumns& text) {
            if (net.task != data::Task::classification) throw py::value_error("a regression model has no classes");
            py::array_t<double> scores = predict(net, x, text);
            const std::size_t rows = static_cast<std::size_t>(scores.shape(0)), k = net.outputs;
            std::vector<double> p = model::class_probabilities(scores.data(), rows, k, net.proba_scale);
            return to_numpy(std::move(p), {rows, k});
          },
          py::arg("X"), py::arg("text_columns") = TextColumns(),
          "Class probabilities (n, k), as `rbfnet predict --proba` writes them.")
      .def_property_readonly(
          "columns", &Network::input_columns,
          "The columns a prediction reads: the raw tabular columns, or the features of a model trained on numbers.")
      .def_property_readonly(
          "text_columns", [](const Network& n) { return n.encoding.text_columns(); },
          "The columns read as categories (one-hot encoded); empty for a model trained on numbers.")
      .def_property_readonly("encoding",
                             [](const Network& n) {
                               const CLocaleScope c_locale;
                               return data::describe_encoding(n.encoding);
                             },
                             "How each raw column becomes features, one line each, as `rbfnet inspect` shows.")
      .def_readonly("proba_scale", &Network::proba_scale)
      .def_property_readonly("task", [](const Network& n) {
        return n.task == data::Task::classification ? "classification" : "regression";
      })
      .def_property_readonly("inputs", [](const Network& n) { return n.inputs; })
      .def_property_readonly("outputs", [](const Network& n) { return n.outputs; })
      .def_property_readonly("nodes", &Network::total_nodes)
      .def_property_readonly("parts", [](const Network& n) { return n.parts.size(); })
      .def_property_readonly("centers", [](const Network& n) { return vector_array(n.centers, n.nodes(), n.inputs); })
      .def_property_readonly("widths", [](const Network& n) { return vector_array(n.widths); })
      .def_property_readonly("weights", [](const Network& n) { return vector_array(n.weights, n.nodes(), n.outputs); })
      .def_property_readonly("bias", [](const Network& n) { return vector_array(n.bias); })
      .def_property_readonly(
          "linear",
          [](const Network& n) -> py::object {
            if (n.linear.empty()) return py::none();
            return vector_array(n.linear, n.inputs, n.outputs);
          },
          "Linear terms (inputs, outputs) in standardized units, or None for a model without them.")
      .def_property_readonly("x_mean", [](const Network& n) { return vector_array(n.x_scaler.mean); })
      .def_property_readonly("x_scale", [](const Network& n) { return vector_array(n.x_scaler.scale); })
      .def_property_readonly("y_mean", [](const Network& n) { return vector_array(n.y_scaler.mean); })
      .def_property_readonly("y_scale", [](const Network& n) { return vector_array(n.y_scaler.scale); })
      .def_readonly("feature_names", &Network::feature_names)
      .def_readonly("target_names", &Network::target_names)
      .def_readonly("class_names", &Network::class_names)
      .def_property_readonly("config_yaml", [](const Network& n) { return n.provenance.config_yaml; })
      .def_property_readonly("provenance", &provenance)
      .def(py::pickle([](const Network& net) { return to_bytes(net); },
                      [](const py::bytes& data) { return from_bytes(data, "<pickle>"); }));
}

}  // namespace rbf::python
