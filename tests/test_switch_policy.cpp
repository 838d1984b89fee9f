// Tests of the automatic switch: cost models, the decision rule with fake costs, and the
// per-host calibration cache that feeds it.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "model/switching/start_rule.hpp"
#include "contracts/gpu_entry_points.hpp"
#include "model/switching/calibration_cache.hpp"
#include "model/switching/switch_rule.hpp"

using namespace rbf::model;

namespace {

// A shape so small that a fast model's prediction is its overhead plus next to nothing.
IterationShape tiny_shape(std::size_t nodes) {
  IterationShape shape;
  shape.rows = 10;
  shape.features = 2;
  shape.outputs = 1;
  shape.candidates_unused = 5;
  shape.nodes = nodes;
  return shape;
}

// A GPU that always costs `overhead_ms` (bandwidth and arithmetic practically free).
CostModel flat_gpu(double overhead_ms) {
  CostModel gpu;
  gpu.overhead_ms = overhead_ms;
  gpu.bandwidth_gbs = 1e9;
  gpu.gflops = 1e9;
  return gpu;
}

MigrationModel free_migration() {
  MigrationModel migration;
  migration.fixed_ms = 0;
  migration.transfer_gbs = 1e9;
  return migration;
}

BackendConfig auto_config(std::size_t confirm) {
  BackendConfig config;
  config.kind = BackendKind::auto_select;
  config.confirm = confirm;
  return config;
}

// Grows from 1 to max_nodes nodes, the CPU measured at cpu_ms(nodes); returns the node count
// at which the policy said "switch" (0: never) and counts every "switch".
std::size_t grow(SwitchPolicy& policy, const std::function<double(std::size_t)>& cpu_ms, std::size_t max_nodes,
                 int* switches = nullptr) {
  std::size_t at = 0;
  int count = 0;
  for (std::size_t nodes = 1; nodes <= max_nodes; ++nodes) {
    if (policy.should_switch(tiny_shape(nodes), cpu_ms(nodes), max_nodes - nodes, 0.0)) {
      ++count;
      if (at == 0) at = nodes;
    }
  }
  if (switches != nullptr) *switches = count;
  return at;
}

const auto kLinearCpu = [](std::size_t nodes) { return 0.25 * static_cast<double>(nodes); };

}  // namespace

TEST_CASE("switch policy: iteration bytes and flops follow the shape") {
  IterationShape shape;
  shape.rows = 1000;
  shape.features = 8;
  shape.outputs = 2;
  shape.candidates_unused = 300;
  shape.nodes = 10;
  shape.validation_rows = 200;
  shape.scalar_bytes = 4;
  const double stored = iteration_bytes(shape);
  // The scoring pass dominates: at least one read of the unused columns of Phi_C.
  CHECK(stored >= 300.0 * 1000 * 4);
  CHECK(iteration_flops(shape) == 0.0);

  IterationShape bigger = shape;
  bigger.nodes = 11;
  // One more column of Q is read twice by CGS2 and once more by validation predictions.
  CHECK(iteration_bytes(bigger) - stored == doctest::Approx(2.0 * 1000 * 4 + 200 * 4));

  IterationShape doubled = shape;
  doubled.scalar_bytes = 8;
  CHECK(iteration_bytes(doubled) == doctest::Approx(2 * stored));

  IterationShape matrix_free = shape;
  matrix_free.candidates_stored = false;
  CHECK(iteration_bytes(matrix_free) < stored);
  CHECK(iteration_flops(matrix_free) == doctest::Approx(300.0 * 1000 * (3 * 8 + 20)));
}

TEST_CASE("switch policy: cost models are overhead plus bytes over bandwidth") {
  IterationShape shape = tiny_shape(3);
  CostModel gpu;
  gpu.overhead_ms = 0.5;
  gpu.bandwidth_gbs = 2;  // 2e9 bytes per second
  gpu.gflops = 1;
  CHECK(gpu.predict_ms(shape) == doctest::Approx(0.5 + iteration_bytes(shape) / 2e9 * 1e3));
  shape.candidates_stored = false;
  CHECK(gpu.predict_ms(shape) ==
        doctest::Approx(0.5 + iteration_bytes(shape) / 2e9 * 1e3 + iteration_flops(shape) / 1e9 * 1e3));
  gpu.bandwidth_gbs = 0;
  CHECK(std::isinf(gpu.predict_ms(shape)));

  MigrationModel migration;
  migration.fixed_ms = 100;
  migration.transfer_gbs = 4;
  CHECK(migration.predict_ms(0) == doctest::Approx(100));
  CHECK(migration.predict_ms(8e9) == doctest::Approx(2100));
}

TEST_CASE("switch policy: switches at the first node count where the GPU wins") {
  // CPU 0.25 ms per node; GPU 5.1 ms flat: the GPU wins from 21 nodes (5.25 > 5.1).
  SwitchPolicy policy(auto_config(1), flat_gpu(5.1), free_migration());
  int switches = 0;
  CHECK(grow(policy, kLinearCpu, 100, &switches) == 21);
  CHECK(switches == 1);
  CHECK(policy.switched());
  CHECK(policy.predicted_gpu_ms() == doctest::Approx(5.1).epsilon(1e-6));

  SUBCASE("a GPU that never wins is never chosen") {
    SwitchPolicy slow(auto_config(1), flat_gpu(1000), free_migration());
    CHECK(grow(slow, kLinearCpu, 100) == 0);
    CHECK_FALSE(slow.switched());
    CHECK(slow.reason() == "no iterations left to amortize the migration");  // the last call
    CHECK_FALSE(slow.should_switch(tiny_shape(50), 12.5, 10, 0));
    CHECK(slow.reason().find(">= CPU 12.5 ms measured") != std::string::npos);
  }
}

TEST_CASE("switch policy: hysteresis needs confirm wins in a row") {
  SUBCASE("a steady crossing is confirmed confirm - 1 nodes later") {
    SwitchPolicy policy(auto_config(3), flat_gpu(5.1), free_migration());
    CHECK(grow(policy, kLinearCpu, 100) == 23);
  }
  SUBCASE("one slow or fast iteration does not decide") {
    SwitchPolicy policy(auto_config(3), flat_gpu(5.0), free_migration());
    const IterationShape shape = tiny_shape(10);
    // A single noisy CPU iteration above the GPU's prediction, then the CPU is faster again.
    CHECK_FALSE(policy.should_switch(shape, 9.0, 50, 0));
    CHECK_FALSE(policy.should_switch(shape, 9.0, 50, 0));
    CHECK_FALSE(policy.should_switch(shape, 1.0, 50, 0));  // streak broken
    CHECK(policy.reason().find(">= CPU") != std::string::npos);
    CHECK_FALSE(policy.should_switch(shape, 9.0, 50, 0));
    CHECK_FALSE(policy.should_switch(shape, 9.0, 50, 0));
    CHECK(policy.reason().find("2 of 3") != std::string::npos);
    CHECK(policy.should_switch(shape, 9.0, 50, 0));  // third in a row
  }
  SUBCASE("confirm 0 acts as 1") {
    SwitchPolicy policy(auto_config(0), flat_gpu(5.1), free_migration());
    CHECK(grow(policy, kLinearCpu, 100) == 21);
  }
}

TEST_CASE("switch policy: no flip-flop after the switch") {
  SwitchPolicy policy(auto_config(1), flat_gpu(1.0), free_migration());
  CHECK(policy.should_switch(tiny_shape(5), 10.0, 50, 0));
  // Whatever comes next (the GPU clearly slower, clearly faster, the forced node count), the
  // answer stays no: the trainer has moved already.
  for (double cpu : {0.001, 1000.0, 10.0, 0.5}) {
    CHECK_FALSE(policy.should_switch(tiny_shape(6), cpu, 44, 0));
    CHECK(policy.reason() == "already switched");
  }
  CHECK(policy.switched());

  BackendConfig forced = auto_config(1);
  forced.switch_at_nodes = 3;
  SwitchPolicy forced_policy(forced, flat_gpu(1.0), free_migration());
  int switches = 0;
  CHECK(grow(forced_policy, kLinearCpu, 30, &switches) == 3);
  CHECK(switches == 1);
}

TEST_CASE("switch policy: the migration is amortized over the remaining iterations") {
  // GPU 1 ms vs CPU 2 ms, but moving costs 1000 ms: worth it only with more than 1000
  // iterations left (1 + 1000 / r < 2).
  MigrationModel migration;
  migration.fixed_ms = 1000;
  migration.transfer_gbs = 1e9;
  const IterationShape shape = tiny_shape(50);

  SUBCASE("few iterations left: never switches") {
    SwitchPolicy policy(auto_config(1), flat_gpu(1.0), migration);
    for (std::size_t remaining : {500u, 999u, 1000u, 10u, 1u}) {
      CAPTURE(remaining);
      CHECK_FALSE(policy.should_switch(shape, 2.0, remaining, 0));
    }
    CHECK(policy.predicted_migration_ms() == doctest::Approx(1000));
  }
  SUBCASE("many iterations left: switches") {
    SwitchPolicy policy(auto_config(1), flat_gpu(1.0), migration);
    CHECK(policy.should_switch(shape, 2.0, 1001, 0));
  }
  SUBCASE("a growing CPU cost catches up with a large migration") {
    // CPU 0.25 ms per node, GPU 1 ms, 200 nodes in all. Without a migration cost the GPU
    // wins from t = 5; with 100 ms the switch waits until 0.25 t > 1 + 100 / (200 - t).
    MigrationModel hundred;
    hundred.fixed_ms = 100;
    hundred.transfer_gbs = 1e9;
    SwitchPolicy with_cost(auto_config(1), flat_gpu(1.0), hundred);
    SwitchPolicy without_cost(auto_config(1), flat_gpu(1.0), free_migration());
    const std::size_t late = grow(with_cost, kLinearCpu, 200);
    const std::size_t early = grow(without_cost, kLinearCpu, 200);
    CHECK(early == 5);
    CHECK(late == 7);  // t = 6: 1.5 < 1 + 100 / 194; t = 7: 1.75 > 1 + 100 / 193
  }
  SUBCASE("migration bytes count through the transfer rate") {
    MigrationModel slow_link;
    slow_link.fixed_ms = 0;
    slow_link.transfer_gbs = 1;  // 1e9 bytes per second: 2e9 bytes take 2000 ms
    SwitchPolicy policy(auto_config(1), flat_gpu(1.0), slow_link);
    CHECK_FALSE(policy.should_switch(shape, 2.0, 1500, 2e9));  // 1 + 2000 / 1500 > 2
    CHECK(policy.should_switch(shape, 2.0, 2500, 2e9));        // 1 + 2000 / 2500 < 2
  }
  SUBCASE("no iterations left: never switches even with a free migration") {
    SwitchPolicy policy(auto_config(1), flat_gpu(1.0), free_migration());
    CHECK_FALSE(policy.should_switch(shape, 100.0, 0, 0));
    CHECK(policy.should_switch(shape, 100.0, 1, 0));
  }
}

TEST_CASE("switch policy: switch_at_nodes forces the threshold and ignores the models") {
  BackendConfig config = auto_config(5);
  config.switch_at_nodes = 7;
  SUBCASE("a GPU predicted hopeless still switches at exactly 7 nodes") {
    SwitchPolicy policy(config, flat_gpu(1e9), free_migration());
    CHECK(grow(
              policy, [](std::size_t) { return 0.001; }, 50) == 7);
  }
  SUBCASE("a GPU predicted far faster waits for 7 nodes") {
    SwitchPolicy policy(config, flat_gpu(1e-6), free_migration());
    for (std::size_t nodes = 0; nodes < 7; ++nodes) {
      CHECK_FALSE(policy.should_switch(tiny_shape(nodes), 1000.0, 100, 0));
      CHECK(policy.reason().find("waiting for backend.switch_at_nodes = 7") != std::string::npos);
    }
    CHECK(policy.should_switch(tiny_shape(7), 1000.0, 100, 0));
    CHECK(policy.reason().find("forced") != std::string::npos);
  }
  SUBCASE("a jump past the threshold switches at the first count at or above it") {
    SwitchPolicy policy(config, flat_gpu(1.0), free_migration());
    CHECK_FALSE(policy.should_switch(tiny_shape(5), 0.1, 10, 0));
    CHECK(policy.should_switch(tiny_shape(9), 0.1, 10, 0));
  }
}

TEST_CASE("calibration cache: the file round-trips and rejects other machines") {
  GpuCalibration cal;
  cal.device = 1;
  cal.device_name = "NVIDIA Tegra X2 \"test\"";
  cal.integrated = true;
  cal.startup_ms = 210.5;
  cal.alloc_ms = 0.75;
  cal.sync_ms = 0.02;
  cal.launch_ms = 0.004;
  cal.overhead_ms = 0.18;
  cal.bandwidth_gbs = 45.25;
  cal.transfer_gbs = 12;
  cal.pageable_transfer_gbs = 6.5;
  cal.gflops = 200;
  cal.probe_ms = 333;
  const std::string text = calibration_to_text(cal, "jetson-1");

  GpuCalibration back;
  REQUIRE(calibration_from_text(text, "jetson-1", 1, cal.device_name, back));
  CHECK(back.device == 1);
  CHECK(back.device_name == cal.device_name);
  CHECK(back.integrated);
  CHECK(back.startup_ms == 210.5);
  CHECK(back.bandwidth_gbs == 45.25);
  CHECK(back.pageable_transfer_gbs == 6.5);
  CHECK(back.probe_ms == 333);

  CHECK_FALSE(calibration_from_text(text, "other-host", 1, cal.device_name, back));
  CHECK_FALSE(calibration_from_text(text, "jetson-1", 0, cal.device_name, back));
  CHECK_FALSE(calibration_from_text(text, "jetson-1", 1, "another GPU", back));
  std::string negative = text;
  negative.replace(negative.find("gflops: 200"), 11, "gflops: -5");
  CHECK_FALSE(calibration_from_text(negative, "jetson-1", 1, cal.device_name, back));
  std::string missing = text;
  missing.erase(missing.find("sync_ms"), missing.find('\n', missing.find("sync_ms")) - missing.find("sync_ms") + 1);
  CHECK_FALSE(calibration_from_text(missing, "jetson-1", 1, cal.device_name, back));
  CHECK_FALSE(calibration_from_text("host: jetson-1\n", "jetson-1", 1, cal.device_name, back));
}

TEST_CASE("calibration cache: saved under XDG_CACHE_HOME per host and device") {
  char dir_template[] = "/tmp/rbfnet-cache-test-XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::string root = dir_template;
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("XDG_CACHE_HOME", (root + "/nested").c_str(), 1);

  GpuCalibration cal;
  cal.device = 0;
  cal.device_name = "Fake GPU/1";
  cal.overhead_ms = 0.1;
  cal.bandwidth_gbs = 500;
  const std::string path = save_calibration(cal);
  CHECK(path.find(root + "/nested/rbfnet/gpu-") == 0);
  CHECK(path.find("Fake_GPU_1.yaml") != std::string::npos);
  GpuCalibration back;
  CHECK(load_cached_calibration(0, "Fake GPU/1", back));
  CHECK(back.bandwidth_gbs == 500);
  CHECK_FALSE(load_cached_calibration(0, "Fake GPU 2", back));
  CHECK_FALSE(load_cached_calibration(1, "Fake GPU/1", back));

  std::remove(path.c_str());
  ::rmdir((root + "/nested/rbfnet").c_str());
  ::rmdir((root + "/nested").c_str());
  ::rmdir(root.c_str());
  if (old != nullptr) {
    ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
}

TEST_CASE("calibration cache: config figures win over the calibration") {
  GpuCalibration cal;
  cal.device_name = "Fake";
  cal.overhead_ms = 0.2;
  cal.bandwidth_gbs = 800;
  cal.gflops = 9000;
  cal.startup_ms = 150;
  cal.alloc_ms = 0.5;
  cal.transfer_gbs = 20;
  cal.pageable_transfer_gbs = 8;

  BackendConfig config;
  SwitchCosts costs = switch_costs(config, cal);
  CHECK(costs.gpu.overhead_ms == 0.2);
  CHECK(costs.gpu.bandwidth_gbs == 800);
  CHECK(costs.gpu.gflops == 9000);
  CHECK(costs.migration.fixed_ms == doctest::Approx(150 + kMigrationAllocations * 0.5));
  CHECK(costs.migration.transfer_gbs == 8);  // the state is copied from ordinary host memory

  config.gpu_bandwidth_gbs = 100;
  config.migration_fixed_ms = 42;
  costs = switch_costs(config, cal);
  CHECK(costs.gpu.bandwidth_gbs == 100);
  CHECK(costs.migration.fixed_ms == 42);
  CHECK(costs.gpu.overhead_ms == 0.2);

  // No GPU: the config's figures where given, the built-in ones elsewhere, and why; no probe.
  GpuProbe none_there;
  none_there.device_name = []() -> std::string { throw rbf::InputError("no CUDA device found"); };
  none_there.calibrate = []() -> GpuCalibration { FAIL("a missing GPU was probed"); return {}; };
  const SwitchCosts none = switch_costs(config, none_there);
  CHECK_FALSE(none.gpu_available);
  CHECK(none.why_no_gpu == "no CUDA device found");
  CHECK(none.gpu.bandwidth_gbs == 100);
  CHECK(none.gpu.overhead_ms == CostModel().overhead_ms);
}

TEST_CASE("switch: refinement during growth adds its amortized cost to the GPU prediction") {
  IterationShape shape;
  shape.rows = 200000;
  shape.features = 20;
  shape.outputs = 1;
  shape.candidates_unused = 2000;
  shape.nodes = 500;
  CostModel gpu;
  gpu.overhead_ms = 0.1;
  gpu.bandwidth_gbs = 3000;
  gpu.gflops = 20000;
  const double growth = gpu.predict_ms(shape);
  CHECK(growth == gpu.predict_growth_ms(shape));

  shape.refine_every = 10;
  shape.refine_epochs = 50;
  const double epoch = gpu.overhead_ms + refine_epoch_bytes(shape) / 3000e9 * 1e3 + refine_epoch_flops(shape) / 20000e9 * 1e3;
  // One Adam epoch at this size moves about ten N x nodes float matrices: 4 GB, 1.3 ms here.
  CHECK(refine_epoch_bytes(shape) == doctest::Approx(10.0 * 200000 * 500 * 4).epsilon(0.01));
  CHECK(gpu.predict_refine_ms(shape) == doctest::Approx(50 * epoch + 500 * growth));
  CHECK(gpu.predict_ms(shape) == doctest::Approx(growth + gpu.predict_refine_ms(shape) / 10));

  // Levenberg-Marquardt epochs cost at least the J^T J product more.
  IterationShape lm = shape;
  lm.refine_lm = true;
  const double params = 500.0 * (20 + 1 + 1) + 1;
  CHECK(refine_epoch_flops(lm) >= refine_epoch_flops(shape) + 200000.0 * params * params);
  CHECK(gpu.predict_ms(lm) > gpu.predict_ms(shape));
}
