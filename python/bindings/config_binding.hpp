// The configuration schema seen from Python: its keys, defaults, and a model's own settings.
#pragma once

#include <pybind11/pybind11.h>

namespace rbf::python {

void bind_config(pybind11::module_& m);

}  // namespace rbf::python
