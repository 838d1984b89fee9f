// The memory plan of a growth: a device that cannot hold the run's basis refuses it before
// growing (or, in auto, is left for the CPU), and one that runs out mid-run keeps the nodes
// grown so far. A fake GPU (tests/fake_gpu.hpp) plays the device, so these run anywhere.
#include <doctest/doctest.h>

#include <string>

#include "contracts/device_error.hpp"
#include "data/synthetic.hpp"
#include "model/trainer.hpp"
#include "tests/fake_gpu.hpp"

using namespace rbf;
using rbf::test::fake_gpu_hooks;

namespace {

model::Config plan_config(model::BackendKind kind) {
  model::Config c;
  c.data.validation = 0.2;
  c.data.folds = 0;
  c.stopping.patience = 0;
  c.stopping.max_nodes = 40;
  c.candidates.pool = 300;
  c.logging.progress = false;
  c.trainer.threads = 2;
  c.trainer.precision = model::Precision::float32;
  c.backend.kind = kind;
  return c;
}

const data::Dataset& plan_data() {
  static const data::Dataset ds = data::make_friedman1(1500, 8, 0.5, 17);
  return ds;
}

}  // namespace

TEST_CASE("memory plan: an explicit gpu that cannot hold max_nodes is refused before growing") {
  std::size_t iterations = 0;
  const auto count = [&](const model::IterationRecord&) { ++iterations; };
  try {
    model::train(plan_data(), plan_config(model::BackendKind::gpu), count, fake_gpu_hooks(true, 25));
    FAIL("the run was not refused");
  } catch (const model::DeviceMemoryError& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(message.find("cannot grow this run to 40 nodes") != std::string::npos);
    CHECK(message.find("at most 25 nodes fit") != std::string::npos);
    CHECK(message.find("stopping.max_nodes (--nodes)") != std::string::npos);
    CHECK(message.find("backend.gpu_devices") != std::string::npos);
    CHECK(message.find("candidates.pool") == std::string::npos);  // the pool does not change Q
  }
  CHECK(iterations == 0);
}

TEST_CASE("memory plan: a run that fits the device grows as usual") {
  const model::TrainResult res =
      model::train(plan_data(), plan_config(model::BackendKind::gpu), {}, fake_gpu_hooks(true, 40));
  CHECK(res.network.nodes() > 0);
  CHECK_FALSE(res.interrupted);
}

TEST_CASE("memory plan: auto does not move to a GPU that cannot hold the run, and says why") {
  model::Config c = plan_config(model::BackendKind::auto_select);
  c.backend.switch_at_nodes = 5;
  const model::TrainResult res = model::train(plan_data(), c, {}, fake_gpu_hooks(true, 25));
  std::string events;
  for (const auto& e : res.events) events += e + "\n";
  CAPTURE(events);
  CHECK(events.find("switch to the GPU failed") != std::string::npos);
  CHECK(events.find("at most 25 nodes fit") != std::string::npos);
  for (const auto& rec : res.iterations) CHECK(rec.backend == "cpu");
  const model::TrainResult cpu = model::train(plan_data(), plan_config(model::BackendKind::cpu));
  REQUIRE(cpu.iterations.size() == res.iterations.size());
  for (std::size_t i = 0; i < cpu.iterations.size(); ++i) CHECK(cpu.iterations[i].row == res.iterations[i].row);
}

TEST_CASE("memory plan: an explicit gpu that runs out mid-run keeps the nodes grown so far") {
  model::TrainerHooks hooks = fake_gpu_hooks();
  hooks.fault_gpu_at_iteration = 12;
  hooks.fault_gpu_out_of_memory = true;
  const model::TrainResult res = model::train(plan_data(), plan_config(model::BackendKind::gpu), {}, hooks);
  CHECK(res.interrupted);
  CHECK(res.out_of_device_memory);
  CHECK(res.stop_reason.find("out of GPU memory at 11 nodes") != std::string::npos);
  REQUIRE(res.iterations.size() == 11);
  // The saved state resumes the run: the training state holds the 11 nodes.
  CHECK_FALSE(res.network.training_state.empty());
  // Every node grown before the fault is the CPU's choice too.
  const model::TrainResult cpu = model::train(plan_data(), plan_config(model::BackendKind::cpu));
  for (std::size_t i = 0; i < res.iterations.size(); ++i) CHECK(cpu.iterations[i].row == res.iterations[i].row);
}

TEST_CASE("memory plan: another GPU fault with an explicit gpu backend is still an error") {
  model::TrainerHooks hooks = fake_gpu_hooks();
  hooks.fault_gpu_at_iteration = 3;
  CHECK_THROWS_AS(model::train(plan_data(), plan_config(model::BackendKind::gpu), {}, hooks), model::DeviceError);
}
