// rbfnet._rbfnet.train: the incremental trainer on NumPy arrays, with the GIL released.
#pragma once

#include <pybind11/pybind11.h>

namespace rbf::python {

void bind_train(pybind11::module_& m);

}  // namespace rbf::python
