// The trainer's validation score from a backend's own sums (Backend::validation_sums) is the
// score it computes from predictions: RMSE in target units with the linear terms' share, and
// accuracy from the class scores. A test double scores by the contract's definition on the
// host, so this runs without a GPU.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "contracts/cpu_entry_points.hpp"
#include "data/csv_reader.hpp"
#include "data/synthetic.hpp"
#include "model/forwarding_backend.hpp"
#include "model/trainer.hpp"
#include "tests/parity_support.hpp"
#include "tests/validation_sums_reference.hpp"

using namespace rbf;

namespace {

// The CPU backend standing in for a GPU (the trainer gives targets to device backends only),
// computing validation_sums from its own predictions and the targets given; `calls` (the
// test's, since the trainer destroys its backends) counts the sums it made.
class SummingBackend final : public model::ForwardingBackend<double> {
 public:
  explicit SummingBackend(std::size_t* calls)
      : model::ForwardingBackend<double>(cpu::make_backend<double>(model::CpuOptions{2})), calls_(calls) {}
  model::BackendKind kind() const override { return model::BackendKind::gpu; }
  void set_validation_targets(const model::ValidationTargets& targets) override { targets_ = targets; }
  bool validation_sums(const double* w, std::size_t columns, model::ValidationSums& sums) override {
    if (targets_.target.empty()) return false;
    std::vector<double> pred;
    this->inner().predict_validation(w, columns, pred);
    const std::size_t k = targets_.error_weight.size();
    sums = test::reference_validation_sums(pred, targets_, pred.size() / k, k);
    ++*calls_;
    return true;
  }

 private:
  std::size_t* calls_;
  model::ValidationTargets targets_;
};

model::Config score_config() {
  model::Config c;
  c.data.folds = 0;
  c.stopping.max_nodes = 15;
  c.stopping.patience = 0;
  c.logging.progress = false;
  c.trainer.threads = 2;
  c.trainer.precision = model::Precision::float64;
  c.trainer.linear_terms = model::LinearTerms::on;  // the targets then carry their share
  c.backend.kind = model::BackendKind::cpu;
  return c;
}

// Trains twice, on the plain CPU backend and on the summing double: every iteration's
// validation RMSE and accuracy agree, and the double's sums were used.
void check_same_scores(const data::Dataset& ds) {
  const model::Config c = score_config();
  const model::TrainResult plain = model::train(ds, c, model::TrainOptions());
  std::size_t made = 0, calls = 0;
  model::TrainOptions with_sums;
  with_sums.hooks.make_double = [&](model::BackendKind) -> std::unique_ptr<model::Backend<double>> {
    ++made;
    return std::make_unique<SummingBackend>(&calls);
  };
  const model::TrainResult summed = model::train(ds, c, with_sums);
  CHECK(made >= 1);
  CHECK(calls >= plain.iterations.size());
  REQUIRE(summed.iterations.size() == plain.iterations.size());
  REQUIRE_FALSE(plain.iterations.empty());
  for (std::size_t i = 0; i < plain.iterations.size(); ++i) {
    CAPTURE(i);
    REQUIRE(plain.iterations[i].val_rmse > 0);
    CHECK(test::relative(summed.iterations[i].val_rmse, plain.iterations[i].val_rmse) < 1e-12);
    CHECK(summed.iterations[i].val_accuracy == plain.iterations[i].val_accuracy);
  }
  CHECK(summed.network.nodes() == plain.network.nodes());
  CHECK(test::relative(summed.best_val_rmse, plain.best_val_rmse) < 1e-12);
}

}  // namespace

TEST_CASE("validation score: a backend's own sums give the trainer's scores, regression with two targets") {
  data::Dataset ds = data::make_friedman1(400, 6, 0.5, 3);
  // A second target on another scale, so each output's error weight matters.
  std::vector<double> y;
  for (std::size_t i = 0; i < ds.rows; ++i) {
    y.push_back(ds.y[i]);
    y.push_back(40.0 * ds.x[i * ds.features] - 3.0 + 0.01 * ds.y[i]);
  }
  ds.y = y;
  ds.targets = 2;
  ds.target_names = {"y", "z"};
  check_same_scores(ds);
}

TEST_CASE("validation score: a backend's own sums give the trainer's scores, classification") {
  const data::Dataset ds = data::read_csv(std::string(RBF_SOURCE_DIR) + "/data/iris.csv", {}, {{"species"}, {}, ""});
  REQUIRE(ds.task == data::Task::classification);
  check_same_scores(ds);
}
