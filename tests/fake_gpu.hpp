// A fake GPU for trainer tests on machines without a device: the Eigen backend under the
// name "gpu", optionally without state transfer or with a memory that holds only so many nodes.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "contracts/backend.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "model/forwarding_backend.hpp"
#include "model/trainer.hpp"

namespace rbf::test {

// The Eigen backend calling itself "gpu"; `portable` = false hides its state transfer so that
// migration has to rebuild the model instead. With `node_limit` > 0 its memory plan holds
// that many nodes and no more (memory_shortfall), as a device whose Q would not fit.
template <typename T>
class FakeGpu final : public model::ForwardingBackend<T> {
 public:
  explicit FakeGpu(bool portable, std::size_t node_limit = 0)
      : model::ForwardingBackend<T>(cpu::make_backend<T>(model::CpuOptions{2})), portable_(portable),
        node_limit_(node_limit) {}
  model::BackendKind kind() const override { return model::BackendKind::gpu; }
  void export_state(model::BackendState<T>& s) const override {
    if (!portable_) throw std::logic_error("no state transfer");
    model::ForwardingBackend<T>::export_state(s);
  }
  void import_state(const model::BackendState<T>& s) override {
    if (!portable_) throw std::logic_error("no state transfer");
    model::ForwardingBackend<T>::import_state(s);
  }
  std::string memory_shortfall(std::size_t nodes) const override {
    if (node_limit_ == 0 || nodes <= node_limit_) return "";
    return "needs more than the fake device has: at most " + std::to_string(node_limit_) + " nodes fit";
  }

 private:
  bool portable_;
  std::size_t node_limit_;
};

// Hooks that make float "gpu" backends FakeGpus (and say a GPU is usable).
inline model::TrainerHooks fake_gpu_hooks(bool portable = true, std::size_t node_limit = 0) {
  model::TrainerHooks hooks;
  hooks.make_float = [portable, node_limit](model::BackendKind kind) -> std::unique_ptr<model::Backend<float>> {
    if (kind == model::BackendKind::gpu) return std::make_unique<FakeGpu<float>>(portable, node_limit);
    return cpu::make_backend<float>(model::CpuOptions{2});
  };
  hooks.gpu_available = [](std::string&) { return true; };
  return hooks;
}

}  // namespace rbf::test
