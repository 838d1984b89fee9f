// The extension module rbfnet._rbfnet; the estimators in python/rbfnet/ are built on it.
#include <pybind11/pybind11.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "contracts/cpu_entry_points.hpp"
#include "python/bindings/config_binding.hpp"
#include "python/bindings/errors.hpp"
#include "python/bindings/fork_state.hpp"
#include "python/bindings/model_binding.hpp"
#include "python/bindings/train_binding.hpp"

namespace {

// The trainer's messages go to standard error, as the CLI's do, leaving standard output to
// the Python program. Another module of the process may have set a default logger already.
void setup_logging() {
  if (spdlog::get("rbfnet")) return;
  spdlog::set_default_logger(spdlog::stderr_color_mt("rbfnet"));
  spdlog::set_pattern("rbfnet %l: %v");
}

}  // namespace

PYBIND11_MODULE(_rbfnet, m) {
  m.doc() = "rbfnet's C++ trainer, networks and model files (use the estimators in rbfnet instead)";
  m.attr("__version__") = RBF_PYTHON_MODULE_VERSION;
  setup_logging();
  rbf::cpu::fit_threads_to_address_space();  // ulimit -v: libgomp would end Python itself
  rbf::python::register_errors();
  rbf::python::bind_model(m);
  rbf::python::bind_train(m);
  rbf::python::bind_config(m);
  m.def("_after_fork_in_child", &rbf::python::after_fork_in_child,
        "Called in a fork() child (os.register_at_fork): one thread from then on.");
}
