// Tests of the terminal progress line: durations with units, the node count against its
// growth's cap, the remaining-time estimate, and the label of a cross-validation fold.
#include <doctest/doctest.h>

#include <string>

#include "app/progress_line.hpp"

using rbf::app::duration_text;
using rbf::app::ProgressLine;

namespace {

rbf::model::IterationRecord iteration(std::size_t nodes, double ms) {
  rbf::model::IterationRecord r;
  r.iteration = nodes;
  r.nodes = nodes;
  r.backend = "cpu";
  r.total_ms = ms;
  r.train_rmse = 0.5;
  return r;
}

}  // namespace

TEST_CASE("progress line: durations carry their unit") {
  CHECK(duration_text(0.0123) == "12 ms");
  CHECK(duration_text(12.34) == "12.3 s");
  CHECK(duration_text(245) == "4 min 05 s");
  CHECK(duration_text(7380) == "2 h 03 min");
}

TEST_CASE("progress line: the node count against the cap, and at most the time the rest would take") {
  ProgressLine line(10);
  CHECK(line.text(iteration(1, 2.0), 0.5) ==
        "node 1/10  cpu  2.00 ms/node  train_rmse 0.5  elapsed 500 ms, up to 18 ms left");
  CHECK(line.text(iteration(10, 4.0), 0.6) == "node 10/10  cpu  3.00 ms/node  train_rmse 0.5  elapsed 600 ms");
}

TEST_CASE("progress line: a cross-validated run's growths say which they are and count to their own cap") {
  ProgressLine fold(300, "cross-validation fold 2 of 5, widths 1,2");
  CHECK(fold.text(iteration(300, 1.0), 1.0).rfind("cross-validation fold 2 of 5, widths 1,2: node 300/300  cpu", 0) == 0);
  ProgressLine all(4, "all rows");
  CHECK(all.text(iteration(2, 1.0), 1.0) ==
        "all rows: node 2/4  cpu  1.00 ms/node  train_rmse 0.5  elapsed 1.0 s, up to 2 ms left");
}
