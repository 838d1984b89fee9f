// NumPy matrices in and out of the bindings without copies: float64 or float32 C-contiguous
// rows read in place, and C++ vectors handed to NumPy by moving their storage.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "data/dataset.hpp"

namespace rbf::python {

// A 2-D C-contiguous float64 or float32 array, read in place. It holds a reference to the
// array, so the memory stays valid while the view lives (also with the GIL released).
class MatrixView {
 public:
  // Throws ValueError for anything else; `what` names the argument in the message.
  MatrixView(const pybind11::handle& array, const char* what);

  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }
  // The float64 data when the array is float64, else nullptr.
  const double* float64() const { return is_float32_ ? nullptr : static_cast<const double*>(data_); }
  // Copies rows [first, first + count) into `out` (count x cols), widening float32.
  void copy_rows(std::size_t first, std::size_t count, double* out) const;

 private:
  pybind11::array array_;
  const void* data_ = nullptr;
  bool is_float32_ = false;
  std::size_t rows_ = 0, cols_ = 0;
};

// Raw tabular columns from Python: (feature index, one text cell per row, "" where missing).
using TextColumns = std::vector<std::pair<std::size_t, std::vector<std::string>>>;

// Gives `ds` (rows and features set) its text columns; ValueError for an index or a length
// that does not fit it.
void attach_text_columns(data::Dataset& ds, const TextColumns& columns);

// A NumPy array of `shape` that takes over `values`' storage (no copy); size must match.
pybind11::array_t<double> to_numpy(std::vector<double>&& values, const std::vector<std::size_t>& shape);

}  // namespace rbf::python
