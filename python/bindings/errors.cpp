// Exception translation: the message is already one sentence for the user, so it passes through.
#include "python/bindings/errors.hpp"

#include "data/errors.hpp"

namespace rbf::python {

void register_errors() {
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const RuntimeError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace rbf::python
