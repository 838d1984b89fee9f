// Tests that a training run too large for the machine's memory fails before it allocates.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "data/errors.hpp"
#include "contracts/host_memory.hpp"
#include "model/trainer.hpp"
#include "model/training_memory.hpp"

using namespace rbf;

namespace {

// Only the sizes: the check comes before anything reads the values.
data::Dataset claimed_classification(std::size_t rows, std::size_t classes) {
  data::Dataset d;
  d.source = "claimed.csv";
  d.rows = rows;
  d.features = 4;
  d.targets = 1;
  d.task = data::Task::classification;
  d.class_names.resize(classes);
  return d;
}

}  // namespace

TEST_CASE("memory: 20,000 classes on too many rows fail at once, naming the size and the cause") {
  // Rows x classes one-hot targets alone: 20 million x 20,000 x 8 bytes = 2.9 TiB.
  const data::Dataset ds = claimed_classification(20000000, 20000);
  model::Config config;
  config.backend.kind = model::BackendKind::cpu;
  const double needed = model::training_host_bytes(ds, config);
  CHECK(needed > 20000000.0 * 20000 * 8);
  REQUIRE(needed > static_cast<double>(model::available_host_memory_bytes()));
  const auto start = std::chrono::steady_clock::now();
  try {
    model::train(ds, config);
    FAIL("no error");
  } catch (const RuntimeError& e) {
    const std::string message = e.what();
    CHECK(message.rfind("claimed.csv: training on 20000000 rows with 20000 classes needs " +
                            model::memory_text(needed) + " of memory, but only ",
                        0) == 0);
    CHECK(message.find("rows x classes") != std::string::npos);
  }
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0);
}

TEST_CASE("memory: the estimate grows with candidates x classes, and a GPU run keeps the backend's share off the host") {
  const data::Dataset ds = claimed_classification(10000, 5000);
  model::Config config;
  config.backend.kind = model::BackendKind::cpu;
  config.candidates.pool = 100;
  const double small_pool = model::training_host_bytes(ds, config);
  config.candidates.pool = 10000;
  const double large_pool = model::training_host_bytes(ds, config);
  // 9,900 more rows as centers, times 3 widths, times 5,000 classes of float32 statistics.
  CHECK(large_pool - small_pool >= 9900.0 * 3 * 5000 * 4);
  config.backend.kind = model::BackendKind::gpu;
  CHECK(model::training_host_bytes(ds, config) < large_pool);
}
