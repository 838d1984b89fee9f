// NumPy views and hand-overs for the bindings.
#include "python/bindings/arrays.hpp"

#include <algorithm>
#include <string>

namespace py = pybind11;

namespace rbf::python {

MatrixView::MatrixView(const py::handle& array, const char* what) {
  const bool f64 = py::isinstance<py::array_t<double>>(array);
  const bool f32 = !f64 && py::isinstance<py::array_t<float>>(array);
  if (!f64 && !f32) throw py::value_error(std::string(what) + " must be a float64 or float32 NumPy array");
  array_ = py::reinterpret_borrow<py::array>(array);
  if (array_.ndim() != 2) throw py::value_error(std::string(what) + " must be a 2-D array");
  if (!(array_.flags() & py::array::c_style)) throw py::value_error(std::string(what) + " must be C-contiguous");
  data_ = array_.data();
  is_float32_ = f32;
  rows_ = static_cast<std::size_t>(array_.shape(0));
  cols_ = static_cast<std::size_t>(array_.shape(1));
}

void MatrixView::copy_rows(std::size_t first, std::size_t count, double* out) const {
  const std::size_t begin = first * cols_, size = count * cols_;
  if (is_float32_) {
    const float* in = static_cast<const float*>(data_) + begin;
    std::copy(in, in + size, out);
  } else {
    const double* in = static_cast<const double*>(data_) + begin;
    std::copy(in, in + size, out);
  }
}

py::array_t<double> to_numpy(std::vector<double>&& values, const std::vector<std::size_t>& shape) {
  auto* owner = new std::vector<double>(std::move(values));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  return py::array_t<double>(dims, owner->data(), free_when_done);
}

void attach_text_columns(data::Dataset& ds, const TextColumns& columns) {
  for (const auto& column : columns) {
    if (column.first >= ds.features || column.second.size() != ds.rows)
      throw pybind11::value_error("a text column (index " + std::to_string(column.first) + ", " +
                                  std::to_string(column.second.size()) + " cells) does not fit X (" +
                                  std::to_string(ds.rows) + " x " + std::to_string(ds.features) + ")");
    ds.text_features.push_back(data::TextFeature{column.first, column.second});
  }
}

}  // namespace rbf::python
