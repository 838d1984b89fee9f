// Tests of the YAML config: defaults, the shipped configs, the round trip and the auto values
// (its errors: test_config_errors.cpp).
#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "model/config.hpp"
#include "model/config_yaml.hpp"
#include "tests/text_checks.hpp"

namespace {

using rbf::InputError;
using rbf::model::Config;

const std::string kConfigsDir = std::string(RBF_TEST_DATA_DIR) + "/../../configs";

// Compares every field; a new Config field must be added here and to the schema.
void check_same(const Config& a, const Config& b) {
  CHECK(a.data.path == b.data.path);
  CHECK(a.data.target == b.data.target);
  CHECK(a.data.features == b.data.features);
  CHECK(a.data.delimiter == b.data.delimiter);
  CHECK(a.data.skip_rows == b.data.skip_rows);
  CHECK(a.data.task == b.data.task);
  CHECK(a.data.validation == b.data.validation);
  CHECK(a.data.seed == b.data.seed);
  CHECK(a.candidates.pool == b.candidates.pool);
  CHECK(a.candidates.width_factors == b.candidates.width_factors);
  CHECK(a.candidates.sigma0 == b.candidates.sigma0);
  CHECK(a.candidates.sigma0_sample == b.candidates.sigma0_sample);
  CHECK(a.candidates.memory_budget_mb == b.candidates.memory_budget_mb);
  CHECK(a.trainer.strategy == b.trainer.strategy);
  CHECK(a.trainer.lambda == b.trainer.lambda);
  CHECK(a.trainer.output_ridge == b.trainer.output_ridge);
  CHECK(a.trainer.dependency_tol == b.trainer.dependency_tol);
  CHECK(a.trainer.precision == b.trainer.precision);
  CHECK(a.trainer.threads == b.trainer.threads);
  CHECK(a.stopping.max_nodes == b.stopping.max_nodes);
  CHECK(a.stopping.goal == b.stopping.goal);
  CHECK(a.stopping.patience == b.stopping.patience);
  CHECK(a.stopping.max_seconds == b.stopping.max_seconds);
  CHECK(a.refine.every == b.refine.every);
  CHECK(a.refine.at_end == b.refine.at_end);
  CHECK(a.refine.method == b.refine.method);
  CHECK(a.refine.epochs == b.refine.epochs);
  CHECK(a.refine.learning_rate == b.refine.learning_rate);
  CHECK(a.refine.damping == b.refine.damping);
  CHECK(a.refine.ridge == b.refine.ridge);
  CHECK(a.refine.patience == b.refine.patience);
  CHECK(a.backend.kind == b.backend.kind);
  CHECK(a.backend.switch_at_nodes == b.backend.switch_at_nodes);
  CHECK(a.backend.confirm == b.backend.confirm);
  CHECK(a.backend.gpu_device == b.backend.gpu_device);
  CHECK(a.backend.gpu_devices == b.backend.gpu_devices);
  CHECK(a.backend.gpu_memory_budget_mb == b.backend.gpu_memory_budget_mb);
  CHECK(a.backend.gpu_memory == b.backend.gpu_memory);
  CHECK(a.backend.gpu_overhead_ms == b.backend.gpu_overhead_ms);
  CHECK(a.backend.gpu_bandwidth_gbs == b.backend.gpu_bandwidth_gbs);
  CHECK(a.backend.gpu_gflops == b.backend.gpu_gflops);
  CHECK(a.backend.migration_fixed_ms == b.backend.migration_fixed_ms);
  CHECK(a.backend.migration_gbs == b.backend.migration_gbs);
  CHECK(a.logging.level == b.logging.level);
  CHECK(a.logging.iteration_log == b.logging.iteration_log);
  CHECK(a.logging.progress == b.logging.progress);
  CHECK(a.output.model == b.output.model);
}

// A config in which every field differs from its default.
Config all_changed() {
  using namespace rbf::model;
  Config c;
  c.data.path = "dir with space/train #1.csv";
  c.data.target = {"price", "3", "say \"hi\""};
  c.data.features = {"a", "b: c"};
  c.data.delimiter = ';';
  c.data.skip_rows = 2;
  c.data.task = TaskKind::classification;
  c.data.validation = 0.1;
  c.data.seed = 18446744073709551615ULL;
  c.candidates.pool = 77;
  c.candidates.width_factors = {0.1, 1.0 / 3.0, 7.5};
  c.candidates.sigma0 = 2.718281828459045;
  c.candidates.sigma0_sample = 99;
  c.candidates.memory_budget_mb = 12.5;
  c.trainer.strategy = Strategy::max_residual;
  c.trainer.lambda = 1e-9;
  c.trainer.output_ridge = 3e-4;
  c.trainer.dependency_tol = 3e-7;
  c.trainer.precision = Precision::float64;
  c.trainer.threads = 6;
  c.stopping.max_nodes = 12345;
  c.stopping.goal = 0.01;
  c.stopping.patience = 0;
  c.stopping.max_seconds = 3600.5;
  c.refine.every = 7;
  c.refine.at_end = true;
  c.refine.method = rbf::model::RefineMethod::lm;
  c.refine.epochs = 33;
  c.refine.learning_rate = 0.003;
  c.refine.damping = 0.25;
  c.refine.ridge = 1e-4;
  c.refine.patience = 4;
  c.backend.kind = BackendKind::gpu;
  c.backend.switch_at_nodes = 40;
  c.backend.confirm = 1;
  c.backend.gpu_device = 1;
  c.backend.gpu_devices = {0, 2, 2};
  c.backend.gpu_memory_budget_mb = 2048;
  c.backend.gpu_memory = GpuMemory::mapped;
  c.backend.gpu_overhead_ms = 0.125;
  c.backend.gpu_bandwidth_gbs = 900;
  c.backend.gpu_gflops = 12000.5;
  c.backend.migration_fixed_ms = 250;
  c.backend.migration_gbs = 11.5;
  c.logging.level = "debug";
  c.logging.iteration_log = "log\tfile.csv";
  c.logging.progress = false;
  c.output.model = "out/m.rbfn";
  return c;
}

using rbf::test::contains;

}  // namespace

TEST_CASE("config: the struct defaults are valid and an empty file means all defaults") {
  const Config defaults;
  CHECK_NOTHROW(rbf::model::validate_config(defaults));
  check_same(rbf::model::parse_config("", "empty.yaml"), defaults);
  check_same(rbf::model::parse_config("# only a comment\n\n", "c.yaml"), defaults);
  check_same(rbf::model::parse_config("trainer:\nstopping: ~\n", "c.yaml"), defaults);
}

TEST_CASE("config: configs/default.yaml equals the struct defaults exactly") {
  check_same(rbf::model::load_config(kConfigsDir + "/default.yaml"), Config());
  // Every key is written out (so it is documented), not merely defaulted.
  const YAML::Node root = YAML::LoadFile(kConfigsDir + "/default.yaml");
  for (const std::string& path : rbf::model::config_key_paths()) {
    const auto dot = path.find('.');
    CAPTURE(path);
    CHECK(root[path.substr(0, dot)][path.substr(dot + 1)].IsDefined());
  }
}

TEST_CASE("config: the shipped configs load and say what they promise") {
  const Config large = rbf::model::load_config(kConfigsDir + "/large-data.yaml");
  CHECK(large.candidates.pool > Config().candidates.pool);
  CHECK(large.data.validation < Config().data.validation);
  CHECK(std::isinf(large.candidates.memory_budget_mb));  // auto: the machine's memory decides

  const Config tx2 = rbf::model::load_config(kConfigsDir + "/tx2.yaml");
  CHECK(tx2.trainer.precision == rbf::model::Precision::float32);
  CHECK(tx2.backend.gpu_memory_budget_mb > 0.0);
  CHECK(tx2.backend.gpu_memory_budget_mb <= 4096.0);
  CHECK(tx2.candidates.pool < Config().candidates.pool);
}

TEST_CASE("config: config_to_yaml round-trips through parse_config") {
  SUBCASE("defaults") { check_same(rbf::model::parse_config(rbf::model::config_to_yaml(Config()), "rt"), Config()); }
  SUBCASE("every field changed") {
    const Config changed = all_changed();
    const std::string yaml = rbf::model::config_to_yaml(changed);
    CAPTURE(yaml);
    const Config back = rbf::model::parse_config(yaml, "rt");
    check_same(back, changed);
    CHECK(rbf::model::config_to_yaml(back) == yaml);
  }
  SUBCASE("tab delimiter and automatic detection") {
    Config c;
    c.data.delimiter = '\t';
    CHECK(rbf::model::parse_config(rbf::model::config_to_yaml(c), "rt").data.delimiter == '\t');
    CHECK(contains(rbf::model::config_to_yaml(Config()), "delimiter: auto"));
  }
}

TEST_CASE("config: trainer.output_ridge is auto or a penalty") {
  CHECK(Config().trainer.output_ridge == rbf::model::kOutputRidgeAuto);
  CHECK(contains(rbf::model::config_to_yaml(Config()), "output_ridge: auto"));
  CHECK(rbf::model::parse_config("trainer: {output_ridge: auto}", "c").trainer.output_ridge ==
        rbf::model::kOutputRidgeAuto);
  CHECK(rbf::model::parse_config("trainer: {output_ridge: 0}", "c").trainer.output_ridge == 0);
  CHECK(rbf::model::parse_config("trainer: {output_ridge: 0.01}", "c").trainer.output_ridge == 0.01);
  Config fixed;
  fixed.trainer.output_ridge = 1e-5;
  CHECK(rbf::model::parse_config(rbf::model::config_to_yaml(fixed), "rt").trainer.output_ridge == 1e-5);
}

TEST_CASE("config: data.folds, trainer.precision and trainer.dependency_tol default to auto") {
  const std::string yaml = rbf::model::config_to_yaml(Config());
  CHECK(contains(yaml, "folds: auto"));
  CHECK(contains(yaml, "precision: auto"));
  CHECK(contains(yaml, "dependency_tol: auto"));
  const Config c = rbf::model::parse_config("data: {folds: 3}\ntrainer: {precision: float64, dependency_tol: 1e-8}", "c");
  CHECK(c.data.folds == 3);
  CHECK(c.trainer.precision == rbf::model::Precision::float64);
  CHECK(c.trainer.dependency_tol == 1e-8);
  CHECK(rbf::model::parse_config("data: {folds: 0}", "c").data.folds == 0);
  CHECK(rbf::model::parse_config("data: {folds: auto}", "c").data.folds == rbf::model::kFoldsAuto);
  CHECK(contains(rbf::model::config_to_yaml(c), "folds: 3"));
}

TEST_CASE("config: candidates.memory_budget_mb is auto or a cap in MB") {
  CHECK(std::isinf(Config().candidates.memory_budget_mb));
  CHECK(contains(rbf::model::config_to_yaml(Config()), "memory_budget_mb: auto"));
  CHECK(std::isinf(rbf::model::parse_config("candidates: {memory_budget_mb: auto}", "c").candidates.memory_budget_mb));
  CHECK(rbf::model::parse_config("candidates: {memory_budget_mb: 512}", "c").candidates.memory_budget_mb == 512);
  CHECK(rbf::model::parse_config("candidates: {memory_budget_mb: 0}", "c").candidates.memory_budget_mb == 0);
  Config capped;
  capped.candidates.memory_budget_mb = 64;
  check_same(rbf::model::parse_config(rbf::model::config_to_yaml(capped), "rt"), capped);
  for (const char* bad : {"-1", "Auto", "inf", "[auto]", "lots"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(rbf::model::parse_config(std::string("candidates: {memory_budget_mb: ") + bad + "}", "c"),
                         doctest::Contains("'auto' or a number >= 0"), rbf::InputError);
  }
}
