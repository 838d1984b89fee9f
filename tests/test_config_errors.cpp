// Tests of the YAML config's errors and edge values: device lists, the documented forms, unknown
// keys, wrong types, ranges, enumerations, syntax, nesting, unreadable files, overrides.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "data/errors.hpp"
#include "model/config.hpp"
#include "model/config_yaml.hpp"
#include "tests/text_checks.hpp"

namespace {

using rbf::InputError;
using rbf::model::Config;

// The InputError message of parse_config(text), or "" when it parses.
std::string parse_error(const std::string& text) {
  try {
    rbf::model::parse_config(text, "cfg.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return std::string();
}

std::string override_error(const std::vector<rbf::model::ConfigOverride>& overrides) {
  Config config;
  try {
    rbf::model::apply_overrides(config, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return std::string();
}

using rbf::test::contains;

// parse_error for inputs that once made the parser loop forever: a parse still running after
// 10 s ends the test program with a failure instead of hanging it (a thread cannot be stopped).
std::string parse_error_in_bounded_time(const std::string& text) {
  auto result = std::make_shared<std::promise<std::string>>();
  std::future<std::string> done = result->get_future();
  std::thread([text, result] { result->set_value(parse_error(text)); }).detach();
  if (done.wait_for(std::chrono::seconds(10)) == std::future_status::ready) return done.get();
  std::fprintf(stderr, "FAILED: parse_config still runs after 10 s on a %zu-byte config\n", text.size());
  std::_Exit(1);
}

}  // namespace

TEST_CASE("config: backend.gpu_devices is a list of device indices, unset by default") {
  CHECK(Config().backend.gpu_devices.empty());
  CHECK(contains(rbf::model::config_to_yaml(Config()), "gpu_devices: ~"));
  CHECK(rbf::model::parse_config("backend: {gpu_devices: [0, 1]}", "c").backend.gpu_devices == std::vector<int>{0, 1});
  CHECK(rbf::model::parse_config("backend: {gpu_devices: [0, 0]}", "c").backend.gpu_devices == std::vector<int>{0, 0});
  CHECK(rbf::model::parse_config("backend: {gpu_devices: 3}", "c").backend.gpu_devices == std::vector<int>{3});
  CHECK(rbf::model::parse_config("backend: {gpu_devices: ~}", "c").backend.gpu_devices.empty());
  CHECK_THROWS_WITH_AS(rbf::model::parse_config("backend: {gpu_devices: []}", "c"),
                       "c:1:24: 'backend.gpu_devices' must be a non-empty list of CUDA device indices >= 0, got an "
                       "empty list",
                       rbf::InputError);
  CHECK_THROWS_WITH_AS(rbf::model::parse_config("backend: {gpu_devices: [0, -1]}", "c"),
                       doctest::Contains("'backend.gpu_devices' must be a non-empty list of CUDA device indices >= 0, "
                                         "got -1"),
                       rbf::InputError);
  CHECK_THROWS_WITH_AS(rbf::model::parse_config("backend: {gpu_devices: [0, x]}", "c"),
                       doctest::Contains("'backend.gpu_devices' must be a non-empty list of CUDA device indices"),
                       rbf::InputError);
  CHECK(override_error({{"backend.gpu_devices", {}, "--gpu-devices"}}) ==
        "--gpu-devices must be a non-empty list of CUDA device indices >= 0, got an empty list");
  CHECK(override_error({{"backend.gpu_devices", {"1", "-2"}, "--gpu-devices"}}) ==
        "--gpu-devices must be a non-empty list of CUDA device indices >= 0, got -2");
  Config config;
  config.backend.gpu_devices = {1, -1};
  CHECK_THROWS_WITH_AS(rbf::model::validate_config(config),
                       "'backend.gpu_devices' must be a non-empty list of CUDA device indices >= 0, got [1, -1]",
                       InputError);
}

TEST_CASE("config: values are read in the documented forms") {
  const Config c = rbf::model::parse_config(
      "data:\n  target: y\n  delimiter: tab\n  task: Regression\n"
      "candidates:\n  width_factors: 1.5\n"
      "backend: {kind: cpu}\n"
      "logging:\n  level: WARN\n  progress: no\n  iteration_log:\n",
      "c.yaml");
  CHECK(c.data.target == std::vector<std::string>{"y"});
  CHECK(c.data.delimiter == '\t');
  CHECK(c.data.task == rbf::model::TaskKind::regression);
  CHECK(c.candidates.width_factors == std::vector<double>{1.5});
  CHECK(c.backend.kind == rbf::model::BackendKind::cpu);
  CHECK(c.logging.level == "warn");
  CHECK_FALSE(c.logging.progress);
  CHECK(c.logging.iteration_log.empty());
  // A byte-order mark does not upset the reader.
  CHECK(rbf::model::parse_config("\xEF\xBB\xBFtrainer:\n  lambda: 0.5\n", "bom.yaml").trainer.lambda == 0.5);
}

TEST_CASE("config: unknown keys name the key path and suggest the closest one") {
  CHECK(parse_error("trainer:\n  lamda: 0.1\n") ==
        "cfg.yaml:2:3: unknown key 'trainer.lamda' (did you mean 'trainer.lambda'?)");
  CHECK(parse_error("stopping:\n  max-nodes: 5\n") ==
        "cfg.yaml:2:3: unknown key 'stopping.max-nodes' (did you mean 'stopping.max_nodes'?)");
  // The right key in the wrong section points to its section.
  CHECK(parse_error("stopping:\n  lambda: 1\n") ==
        "cfg.yaml:2:3: unknown key 'stopping.lambda' (did you mean 'trainer.lambda'?)");
  CHECK(parse_error("traner:\n  lambda: 1\n") == "cfg.yaml:1:1: unknown section 'traner' (did you mean 'trainer'?)");
  CHECK(parse_error("lambda: 1\n") == "cfg.yaml:1:1: unknown section 'lambda' (did you mean 'trainer.lambda'?)");
  // Nothing close: the valid keys are listed instead.
  CHECK(parse_error("trainer:\n  colour: blue\n") ==
        "cfg.yaml:2:3: unknown key 'trainer.colour'; the keys of 'trainer' are strategy, lambda, "
        "output_ridge, linear_terms, dependency_tol, precision, threads, partitions");
}

TEST_CASE("config: wrong types name the key and the expected type") {
  CHECK(parse_error("stopping:\n  max_nodes: abc\n") ==
        "cfg.yaml:2:14: 'stopping.max_nodes' must be an integer >= 1, got 'abc'");
  CHECK(parse_error("trainer:\n  lambda: {a: 1}\n") ==
        "cfg.yaml:2:11: 'trainer.lambda' must be a number >= 0, got a map");
  CHECK(parse_error("trainer:\n  threads: 1.5\n") ==
        "cfg.yaml:2:12: 'trainer.threads' must be an integer in [0, 1024], got '1.5'");
  CHECK(parse_error("trainer: 3\n") ==
        "cfg.yaml:1:10: 'trainer' must be a map of keys (strategy, lambda, output_ridge, linear_terms, "
        "dependency_tol, precision, threads, partitions), got '3'");
  CHECK(parse_error("logging:\n  progress: maybe\n") ==
        "cfg.yaml:2:13: 'logging.progress' must be true or false, got 'maybe'");
  CHECK(parse_error("candidates:\n  pool:\n") ==
        "cfg.yaml:2:3: 'candidates.pool' must be an integer >= 1, got nothing");
  CHECK(parse_error("- a\n- b\n") ==
        "cfg.yaml:1:1: a config must be a map of sections (data, candidates, trainer, stopping, "
        "refine, backend, logging, output), got a list");
  CHECK(contains(parse_error("stopping:\n  max_nodes: 99999999999999999999999\n"),
                 "'stopping.max_nodes' must be an integer >= 1"));
  CHECK(contains(parse_error("trainer:\n  lambda: .nan\n"), "must be a number >= 0, got '.nan'"));
}

TEST_CASE("config: out-of-range values name the key and the allowed range") {
  CHECK(contains(parse_error("refine:\n  method: sgd\n"), "cfg.yaml:2:11: 'refine.method' must be one of adam, lm, auto"));
  CHECK(contains(parse_error("refine:\n  learning_rate: 0\n"), "cfg.yaml:2:18: 'refine.learning_rate' must be"));
  CHECK(contains(parse_error("refine:\n  epochs: 0\n"), "'refine.epochs' must be an integer >= 1, got 0"));
  CHECK(parse_error("trainer:\n  output_ridge: -1\n") ==
        "cfg.yaml:2:17: 'trainer.output_ridge' must be 'auto' or a number >= 0, got '-1'");
  CHECK(parse_error("trainer:\n  output_ridge: often\n") ==
        "cfg.yaml:2:17: 'trainer.output_ridge' must be 'auto' or a number >= 0, got 'often'");
  CHECK(contains(parse_error("refine:\n  ridge: -1\n"), "'refine.ridge' must be a number in [0, 1000000], got -1"));
  CHECK(parse_error("stopping:\n  max_nodes: 0\n") ==
        "cfg.yaml:2:14: 'stopping.max_nodes' must be an integer >= 1, got 0");
  CHECK(parse_error("stopping:\n  max_nodes: -3\n") ==
        "cfg.yaml:2:14: 'stopping.max_nodes' must be an integer >= 1, got '-3'");
  CHECK(parse_error("data:\n  validation: 0.95\n") ==
        "cfg.yaml:2:15: 'data.validation' must be a number in [0, 0.9], got 0.95");
  CHECK(parse_error("trainer:\n  dependency_tol: 0\n") ==
        "cfg.yaml:2:19: 'trainer.dependency_tol' must be 'auto' or a number in (0, 1), got '0'");
  CHECK(parse_error("data:\n  folds: 1\n") == "cfg.yaml:2:10: 'data.folds' must be 'auto', 0 or an integer from 2 to 20, got 1");
  CHECK(contains(parse_error("data:\n  folds: 21\n"), "'data.folds' must be 'auto', 0 or an integer from 2 to 20, got"));
  CHECK(contains(parse_error("data:\n  folds: often\n"), "'data.folds' must be 'auto', 0 or an integer from 2 to 20, got"));
  CHECK(parse_error("candidates:\n  width_factors: [1, -2]\n") ==
        "cfg.yaml:2:18: 'candidates.width_factors' must be a non-empty list of numbers > 0, got [1, -2]");
  CHECK(parse_error("output:\n  model: \"\"\n") ==
        "cfg.yaml:2:10: 'output.model' must be a non-empty file name, got \"\"");
  CHECK(parse_error("data:\n  delimiter: ';;'\n") ==
        "cfg.yaml:2:14: 'data.delimiter' must be auto, tab or a single character other than a "
        "quote or line break, got ';;'");
}

TEST_CASE("config: enumerations list the allowed values") {
  CHECK(parse_error("backend:\n  kind: gpuu\n") ==
        "cfg.yaml:2:9: 'backend.kind' must be one of cpu, gpu, auto, got 'gpuu'");
  CHECK(parse_error("trainer:\n  precision: half\n") ==
        "cfg.yaml:2:14: 'trainer.precision' must be one of float32, float64, auto, got 'half'");
  CHECK(parse_error("logging:\n  level: loud\n") ==
        "cfg.yaml:2:10: 'logging.level' must be one of trace, debug, info, warn, error, off, got "
        "'loud'");
}

TEST_CASE("config: YAML syntax errors carry line and column") {
  CHECK(parse_error("trainer:\n  lambda: 0.1\n   bad: [\n") == "cfg.yaml:3:7: YAML syntax error: illegal map value");
  CHECK(parse_error("trainer: {lambda: 1\n") == "cfg.yaml:2:1: YAML syntax error: end of map flow not found");
  CHECK(parse_error("trainer:\n\tlambda: 1\n") ==
        "cfg.yaml:2:8: YAML syntax error: illegal map value (indent with spaces: YAML does not "
        "allow tabs there)");
  CHECK(parse_error("trainer:\n  lambda: 1\n  lambda: 2\n") ==
        "cfg.yaml:3:3: duplicate key 'trainer.lambda' (first given on line 2)");
  CHECK(parse_error("data: {}\n---\ndata: {}\n") ==
        "cfg.yaml:3:1: a config holds one YAML document, but a second one starts here");
  CHECK(contains(parse_error(std::string("trainer:\0 x", 11)), "NUL"));
}

TEST_CASE("config: a stray top-level comma is a syntax error and never hangs the parser") {
  // Found by fuzz_config: yaml-cpp's LoadAll returned empty documents forever on these.
  CHECK(parse_error_in_bounded_time(",") == "cfg.yaml:1:1: YAML syntax error: unexpected ','");
  CHECK(parse_error_in_bounded_time("# max_node\n,st 1\n") == "cfg.yaml:2:1: YAML syntax error: unexpected ','");
  CHECK(parse_error_in_bounded_time("- a\n,\n") == "cfg.yaml:2:1: YAML syntax error: unexpected ','");
  CHECK(parse_error_in_bounded_time("data: {}\n---\n,\n") == "cfg.yaml:3:1: YAML syntax error: unexpected ','");
}

TEST_CASE("config: deep nesting names the file, the place and the depth") {
  // yaml-cpp said only "bad file" at its own limit.
  const std::string brackets = "trainer:\n  threads: " + std::string(3000, '[') + std::string(3000, ']') + "\n";
  CHECK(parse_error(brackets) == "cfg.yaml:2:42: lists and maps are nested 33 levels deep here, more than the 32 a "
                                 "config may use (it needs 3: section, key, list)");
  std::string blocks;
  for (int level = 0; level < 40; ++level) blocks += std::string(2 * level, ' ') + "k:\n";
  CHECK(contains(parse_error(blocks), "cfg.yaml:33:"));
  CHECK(contains(parse_error(blocks), "nested 33 levels deep"));
  // 32 levels are read and refused for what they hold, not for their depth.
  const std::string deepest = "trainer:\n  threads: " + std::string(30, '[') + std::string(30, ']') + "\n";
  CHECK(contains(parse_error(deepest), "'trainer.threads' must be"));
}

TEST_CASE("config: a thread count that would exhaust the process is refused") {
  // 100000 OpenMP threads crashed training; 1024 is more than any machine can use.
  CHECK(parse_error("trainer:\n  threads: 100000\n") ==
        "cfg.yaml:2:12: 'trainer.threads' must be an integer in [0, 1024], got 100000");
  CHECK(parse_error("trainer:\n  threads: 1024\n").empty());
  CHECK(override_error({{"trainer.threads", {"100000"}, "--threads"}}) ==
        "--threads must be an integer in [0, 1024], got 100000");
}

TEST_CASE("config: load_config names the file it cannot read") {
  try {
    rbf::model::load_config("/nonexistent/dir/cfg.yaml");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "cannot open config file '/nonexistent/dir/cfg.yaml': No such file or directory");
  }
  const std::string folder = RBF_TEST_DATA_DIR;
  CHECK_THROWS_WITH_AS(rbf::model::load_config(folder),
                       ("cannot read config file '" + folder + "': it is a directory").c_str(), InputError);
  const std::string path = "rbfnet_test_config_bad.yaml";
  {
    std::ofstream out(path);
    out << "# settings\nstopping:\n  patience: lots\n";
  }
  CHECK_THROWS_WITH_AS(rbf::model::load_config(path),
                       (path + ":3:13: 'stopping.patience' must be an integer >= 0, got 'lots'").c_str(), InputError);
  std::remove(path.c_str());
}

TEST_CASE("config: command-line overrides win and their errors name the flag") {
  Config config = rbf::model::parse_config("stopping:\n  max_nodes: 10\ndata:\n  target: a\n", "f");
  rbf::model::apply_overrides(config, {{"stopping.max_nodes", {"25"}, "--nodes"},
                                       {"data.target", {"y1", "y2"}, "--target"},
                                       {"data.delimiter", {"\\t"}, "--delimiter"},
                                       {"logging.progress", {"false"}, "--quiet"}});
  CHECK(config.stopping.max_nodes == 25);
  CHECK(config.data.target == std::vector<std::string>{"y1", "y2"});
  CHECK(config.data.delimiter == '\t');
  CHECK_FALSE(config.logging.progress);
  CHECK(config.trainer.lambda == 0.0);  // untouched keys keep their values

  CHECK(override_error({{"stopping.max_nodes", {"abc"}, "--nodes"}}) == "--nodes must be an integer >= 1, got 'abc'");
  CHECK(override_error({{"stopping.max_nodes", {"0"}, "--nodes"}}) == "--nodes must be an integer >= 1, got 0");
  CHECK(override_error({{"backend.kind", {"tpu"}, "--backend"}}) ==
        "--backend must be one of cpu, gpu, auto, got 'tpu'");
  CHECK(override_error({{"data.validation", {"1.5"}, "--validation"}}) ==
        "--validation must be a number in [0, 0.9], got 1.5");
  CHECK(override_error({{"data.target", {"a", ""}, "--target"}}) ==
        "--target must be a column name or 0-based index, or a list of them, got [\"a\", \"\"]");
}

TEST_CASE("config: validate_config checks values set in code") {
  Config config;
  config.candidates.pool = 0;
  CHECK_THROWS_WITH_AS(rbf::model::validate_config(config), "'candidates.pool' must be an integer >= 1, got 0",
                       InputError);
  config = Config();
  config.candidates.width_factors.clear();
  CHECK_THROWS_AS(rbf::model::validate_config(config), InputError);
  config = Config();
  config.stopping.goal = -1;
  CHECK_THROWS_WITH_AS(rbf::model::validate_config(config, [](const std::string& key) { return "[" + key + "]"; }),
                       "[stopping.goal] must be a number >= 0, got -1", InputError);
}

TEST_CASE("config: closest_match suggests near words only") {
  using rbf::model::closest_match;
  const std::vector<std::string> words{"train", "predict", "evaluate", "bench", "info"};
  CHECK(closest_match("trian", words) == "train");
  CHECK(closest_match("evalute", words) == "evaluate");
  CHECK(closest_match("PREDICT", words) == "predict");
  CHECK(closest_match("xyz", words).empty());
  CHECK(closest_match("", words).empty());
}
