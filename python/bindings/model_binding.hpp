// The trained network as the Python class rbfnet._rbfnet.Model.
#pragma once

#include <pybind11/pybind11.h>

namespace rbf::python {

// Model: predict, the fitted parameters as NumPy arrays, model files and pickling.
void bind_model(pybind11::module_& m);

}  // namespace rbf::python
