// Maps rbfnet's C++ exceptions to the Python exceptions a scikit-learn user expects.
#pragma once

#include <pybind11/pybind11.h>

namespace rbf::python {

// rbf::InputError (bad data or setting) -> ValueError; rbf::RuntimeError (I/O, device) -> RuntimeError.
void register_errors();

}  // namespace rbf::python
