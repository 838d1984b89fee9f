// Config keys and values as YAML text, so that the estimators' parameters can be checked
// against the schema and a loaded model's settings read back.
#include "python/bindings/config_binding.hpp"

#include <pybind11/stl.h>

#include <map>
#include <string>

#include "model/config_yaml.hpp"
#include "python/bindings/c_locale.hpp"

namespace py = pybind11;

namespace rbf::python {

namespace {

// Every key path with its value as YAML text ("100", "auto", "[0.5, 1, 2]").
std::map<std::string, std::string> values_of(const model::Config& config) {
  std::map<std::string, std::string> out;
  for (const std::string& key : model::config_key_paths()) out[key] = model::config_value_to_yaml(config, key);
  return out;
}

}  // namespace

void bind_config(py::module_& m) {
  m.def("config_keys", &model::config_key_paths, "Every config key path, in the order of configs/default.yaml.");
  m.def(
      "config_defaults",
      [] {
        const CLocaleScope c_locale;
        return values_of(model::Config());
      },
      "Every key's default, as YAML text.");
  m.def(
      "config_values",
      [](const std::string& yaml) {
        const CLocaleScope c_locale;
        return values_of(model::parse_config(yaml, "the model's config"));
      },
      py::arg("yaml"), "Every key's value in a YAML config (as a model file records it), as YAML text.");
}

}  // namespace rbf::python
