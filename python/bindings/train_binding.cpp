// Training from Python: arrays become the trainer's data set, estimator parameters become
// config overrides (validated by the same schema as YAML files and flags), and the trainer
// runs with the GIL released, checking for Ctrl-C between iterations.
#include "python/bindings/train_binding.hpp"

#include <pybind11/stl.h>
#include <spdlog/sinks/sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "data/dataset.hpp"
#include "data/sample_weights.hpp"
#include "model/config_yaml.hpp"
#include "model/provenance.hpp"
#include "model/train_result_fields.hpp"
#include "model/trainer.hpp"
#include "python/bindings/arrays.hpp"
#include "python/bindings/c_locale.hpp"
#include "python/bindings/fork_state.hpp"

namespace py = pybind11;

namespace rbf::python {

namespace {

// (config key path, values as text, parameter name for messages), e.g. ("stopping.max_nodes", ["50"], "max_nodes").
using Setting = std::tuple<std::string, std::vector<std::string>, std::string>;

data::Dataset make_dataset(const MatrixView& x, const MatrixView& y, const std::vector<std::string>& classes,
                           const std::vector<std::string>& feature_names, const std::vector<std::string>& target_names) {
  if (y.rows() != x.rows()) {
    throw py::value_error("X has " + std::to_string(x.rows()) + " rows but y has " + std::to_string(y.rows()));
  }
  data::Dataset ds;
  ds.source = "the training arrays";
  ds.rows = x.rows();
  ds.features = x.cols();
  ds.targets = y.cols();
  // The trainer's own copy in double precision: its one read of X.
  ds.x.resize(ds.rows * ds.features);
  x.copy_rows(0, ds.rows, ds.x.data());
  ds.y.resize(ds.rows * ds.targets);
  y.copy_rows(0, ds.rows, ds.y.data());
  ds.feature_names = feature_names;
  ds.target_names = target_names;
  ds.class_names = classes;
  ds.task = classes.empty() ? data::Task::regression : data::Task::classification;
  if (ds.feature_names.size() != ds.features) throw py::value_error("one feature name per column of X is needed");
  if (ds.target_names.size() != ds.targets) throw py::value_error("one target name per column of y is needed");
  return ds;
}

model::Config make_config(const std::vector<Setting>& settings, bool classification) {
  model::Config config;
  std::vector<model::ConfigOverride> overrides;
  for (const Setting& s : settings) overrides.push_back({std::get<0>(s), std::get<1>(s), std::get<2>(s)});
  model::apply_overrides(config, overrides);
  config.data.task = classification ? model::TaskKind::classification : model::TaskKind::regression;
  config.logging.progress = false;
  return config;
}

template <typename T, typename Get>
py::array_t<T> column(const std::vector<model::IterationRecord>& records, Get get) {
  py::array_t<T> out(static_cast<py::ssize_t>(records.size()));
  T* p = out.mutable_data();
  for (std::size_t i = 0; i < records.size(); ++i) p[i] = static_cast<T>(get(records[i]));
  return out;
}

// The per-iteration cost log, one array per column of the CLI's --log-iter CSV; a missing
// validation figure is NaN here (an empty cell there).
py::dict history(const std::vector<model::IterationRecord>& r) {
  using Rec = model::IterationRecord;
  auto optional = [](double v) { return v < 0 ? std::nan("") : v; };
  py::dict h;
  h["iteration"] = column<std::int64_t>(r, [](const Rec& x) { return x.iteration; });
  h["nodes"] = column<std::int64_t>(r, [](const Rec& x) { return x.nodes; });
  std::vector<std::string> backend, event;
  for (const Rec& x : r) {
    backend.push_back(x.backend);
    event.push_back(x.event);
  }
  h["backend"] = backend;
  h["select_ms"] = column<double>(r, [](const Rec& x) { return x.select_ms; });
  h["add_ms"] = column<double>(r, [](const Rec& x) { return x.add_ms; });
  h["update_ms"] = column<double>(r, [](const Rec& x) { return x.update_ms; });
  h["evaluate_ms"] = column<double>(r, [](const Rec& x) { return x.evaluate_ms; });
  h["total_ms"] = column<double>(r, [](const Rec& x) { return x.total_ms; });
  h["train_rmse"] = column<double>(r, [](const Rec& x) { return x.train_rmse; });
  h["val_rmse"] = column<double>(r, [&](const Rec& x) { return optional(x.val_rmse); });
  h["val_accuracy"] = column<double>(r, [&](const Rec& x) { return optional(x.val_accuracy); });
  h["row"] = column<std::int64_t>(r, [](const Rec& x) { return x.row; });
  h["width"] = column<double>(r, [](const Rec& x) { return x.width; });
  h["dependent"] = column<bool>(r, [](const Rec& x) { return x.dependent; });
  h["refine_ms"] = column<double>(r, [](const Rec& x) { return x.refine_ms; });
  h["event"] = event;
  return h;
}

// model::visit_train_result's fields as the items of a dict (nested objects as dicts).
class DictFields {
 public:
  explicit DictFields(py::dict& out) : current_(&out) {}
  template <typename V>
  void field(const char* name, const V& value) {
    (*current_)[name] = value;
  }
  void none(const char* name) { (*current_)[name] = py::none(); }
  template <typename Fn>
  void object(const char* name, Fn members) {
    py::dict inner;
    py::dict* outer = current_;
    current_ = &inner;
    members();
    current_ = outer;
    (*current_)[name] = inner;
  }

 private:
  py::dict* current_;
};

py::dict summary(const model::TrainResult& result) {
  py::dict s;
  DictFields fields(s);
  model::visit_train_result(result, fields);
  return s;
}

// A progress line at level info whatever the level now is: the trainer raises it while model
// selection's folds grow, to keep their own log lines out.
void log_progress(const std::string& text) {
  const std::shared_ptr<spdlog::logger> logger = spdlog::default_logger();
  const spdlog::details::log_msg message(logger->name(), spdlog::level::info, text);
  for (const spdlog::sink_ptr& sink : logger->sinks()) sink->log(message);
}

// Sets spdlog's level for one training run and puts the previous one back.
class LogLevelScope {
 public:
  explicit LogLevelScope(const std::string& level) : previous_(spdlog::get_level()) {
    spdlog::set_level(spdlog::level::from_str(level));
  }
  ~LogLevelScope() { spdlog::set_level(previous_); }
  LogLevelScope(const LogLevelScope&) = delete;
  LogLevelScope& operator=(const LogLevelScope&) = delete;

 private:
  spdlog::level::level_enum previous_;
};

py::tuple train(const py::handle& x_array, const py::handle& y_array, const std::vector<std::string>& classes,
                const std::vector<std::string>& feature_names, const std::vector<std::string>& target_names,
                const std::vector<Setting>& settings, const py::object& init, const TextColumns& text_columns,
                const py::object& sample_weight) {
  const CLocaleScope c_locale;  // this thread; the trainer's own threads format no text
  const MatrixView x(x_array, "X"), y(y_array, "y");
  model::Config config = make_config(settings, !classes.empty());
  if (in_forked_child()) config.trainer.threads = 1;  // fork_state.hpp: no thread pool here
  data::Dataset ds = make_dataset(x, y, classes, feature_names, target_names);
  attach_text_columns(ds, text_columns);
  if (!sample_weight.is_none()) {
    ds.weights = sample_weight.cast<std::vector<double>>();
    if (ds.weights.size() != ds.rows)
      throw py::value_error("sample_weight has " + std::to_string(ds.weights.size()) + " values but X has " +
                            std::to_string(ds.rows) + " rows");
    data::check_weights(ds.weights, "the sample weights (sample_weight)");
  }

  std::vector<model::IterationRecord> records;
  std::atomic<bool> stop{false};
  std::unique_ptr<py::error_already_set> signal_error;
  model::TrainOptions options;
  options.stop_requested = &stop;
  // warm_start / partial_fit: continue from this network (model/growth_init.cpp).
  std::shared_ptr<model::Network> init_network;
  if (!init.is_none()) init_network = init.cast<std::shared_ptr<model::Network>>();
  options.init = init_network.get();
  // Python runs signal handlers only when asked with the GIL held: ask after each iteration.
  // A handler that raises (Ctrl-C's KeyboardInterrupt) stops the run; the error is re-raised below.
  auto check_signals = [&]() {
    py::gil_scoped_acquire gil;
    if (!signal_error && PyErr_CheckSignals() != 0) {
      signal_error.reset(new py::error_already_set());
      stop.store(true);
    }
  };
  // At log level info (verbose=1) a progress line at most every second, as the CLI's, for
  // every growth: model selection's folds too, whose own log lines the trainer quiets.
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  auto last_progress = started;
  const bool show_progress = spdlog::level::from_str(config.logging.level) <= spdlog::level::info;
  std::string growth = "growing";
  auto progress = [&](const model::IterationRecord& rec) {
    const auto now = Clock::now();
    if (!show_progress || now - last_progress < std::chrono::seconds(1)) return;
    last_progress = now;
    log_progress(fmt::format("{}: {} nodes, training RMSE {:.4g} (standardized), {} validation, {:.1f} s", growth,
                             rec.nodes, rec.train_rmse,
                             rec.val_rmse >= 0 ? fmt::format("RMSE {:.4g}", rec.val_rmse) : std::string("no"),
                             std::chrono::duration<double>(now - started).count()));
  };
  options.on_growth_start = [&](const std::string& name, std::size_t, std::size_t) { growth = name; };
  options.on_iteration = [&](const model::IterationRecord& rec) {
    records.push_back(rec);
    progress(rec);
    check_signals();
  };
  options.on_fold_iteration = [&](const model::IterationRecord& rec) {
    progress(rec);
    check_signals();
  };

  model::TrainResult result;
  {
    LogLevelScope log_level(config.logging.level);
    py::gil_scoped_release release;
    result = model::train(ds, config, options);
  }
  if (signal_error) {
    signal_error->restore();
    throw py::error_already_set();
  }
  // An explicit GPU that ran out of memory mid-run stopped early: the model it kept is
  // returned, and the caller is told (a warning filter may make it an error).
  if (result.out_of_device_memory) {
    const std::string message = result.stop_reason + "; the model has the " +
                                std::to_string(result.network.nodes()) +
                                " nodes grown so far: fit with fewer max_nodes, more gpu_devices or backend='cpu'";
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw py::error_already_set();
  }
  py::dict figures = summary(result);
  model::Network& net = result.network;
  const std::string backend = net.provenance.backend;
  net.provenance = model::training_provenance(
      config, "NumPy arrays, " + std::to_string(ds.rows) + " rows x " + std::to_string(ds.features) + " features", "");
  net.provenance.backend = backend;
  auto shared = std::make_shared<model::Network>(std::move(net));
  return py::make_tuple(shared, history(records), figures);
}

}  // namespace

void bind_train(py::module_& m) {
  m.def("train", &train, py::arg("X"), py::arg("y"), py::arg("classes"), py::arg("feature_names"),
        py::arg("target_names"), py::arg("settings"), py::arg("init") = py::none(),
        py::arg("text_columns") = TextColumns(), py::arg("sample_weight") = py::none(),
        "Trains a network. y is (n, targets), or (n, 1) class indices when `classes` names the classes; "
        "settings are (config key, values, parameter name) triples; `init`, a Model to continue from its "
        "nodes, or None; `text_columns`, (column index, cells) pairs of raw tabular X, whose missing "
        "numbers are NaN; `sample_weight`, one weight >= 0 per row, or None. Returns (Model, history, summary).");
}

}  // namespace rbf::python
