// `rbfnet bench`: same training on several backends with cost curves (arrives with the
// backend-switching work; until then it says so instead of pretending).
#include "app/commands.hpp"
#include "data/errors.hpp"

namespace rbf::app {

int run_bench(const BenchOptions&) {
  throw RuntimeError("'rbfnet bench' is not built yet; it arrives with the backend-switching work");
}

}  // namespace rbf::app
