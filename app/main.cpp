// rbfnet command line: parses the subcommands and their flags, then calls the command bodies
// (app/commands.hpp). Every failure becomes one line on stderr and exit status 1 or 2.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "app/checkpoint_file.hpp"
#include "app/cli_train_options.hpp"
#include "app/commands.hpp"
#include "app/error_report.hpp"
#include "app/file_checks.hpp"
#include "app/logging_setup.hpp"
#include "app/omp_wait_policy.hpp"
#include "data/errors.hpp"
#include "model/config_yaml.hpp"
#include "contracts/gpu_entry_points.hpp"

namespace rbf::app {
namespace {

const std::vector<std::string> kCommands{"train", "predict", "evaluate", "inspect", "bench", "calibrate", "info", "help"};
const std::vector<std::string> kBenchBackends{"cpu", "gpu", "auto"};

const char* const kExitStatus = "Exit status: 0 success, 1 runtime failure, 2 usage or input error.";

// Before CLI11 sees them: no command at all, or a misspelt one, deserve a plainer message
// than "unexpected argument".
void check_command_name(int argc, char** argv) {
  if (argc < 2) {
    throw InputError(
        "a command is required: train, predict, evaluate, inspect, bench, calibrate or info "
        "(see 'rbfnet --help')");
  }
  const std::string word = argv[1];
  if (word == "-h" || word == "--help" || word == "--version") return;
  if (!word.empty() && word[0] == '-') {
    throw InputError("unknown option '" + word +
                     "' for 'rbfnet'; give a command first: rbfnet COMMAND [OPTIONS] "
                     "(see 'rbfnet --help')");
  }
  if (std::find(kCommands.begin(), kCommands.end(), word) != kCommands.end()) return;
  const std::string suggestion = model::closest_match(word, kCommands);
  throw InputError("unknown command '" + word + "'" +
                   (suggestion.empty() ? std::string() : " (did you mean '" + suggestion + "'?)") +
                   "; the commands are train, predict, evaluate, inspect, bench, calibrate, info and help");
}

// Every long flag of `command`, for "did you mean".
std::vector<std::string> flag_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

// Subcommands collect what they do not know (allow_extras) so that the first unknown word is
// reported with the command it was given to and the closest flag.
void check_leftovers(const CLI::App& command) {
  const std::vector<std::string> leftovers = command.remaining();
  if (leftovers.empty()) return;
  const std::string where = "'rbfnet " + command.get_name() + "'";
  const std::string& word = leftovers.front();
  if (word.size() > 1 && word[0] == '-') {
    const std::string name = word.substr(0, word.find('='));
    const std::string suggestion = model::closest_match(name, flag_names(command));
    if (!suggestion.empty()) {
      throw InputError("unknown option '" + name + "' for " + where + " (did you mean '" + suggestion + "'?)");
    }
    throw InputError("unknown option '" + name + "' for " + where + "; see 'rbfnet " + command.get_name() + " --help'");
  }
  throw InputError("unexpected argument '" + word + "' for " + where + "; see 'rbfnet " + command.get_name() +
                   " --help'");
}

// "--synthetic 100000,8" -> rows and dimensions.
void parse_synthetic(const std::string& text, BenchOptions& options) {
  const auto comma = text.find(',');
  auto positive = [](const std::string& part, std::size_t& out) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return false;
    try {
      out = static_cast<std::size_t>(std::stoull(part));
    } catch (const std::exception&) {
      return false;
    }
    return out >= 1;
  };
  if (comma == std::string::npos || !positive(text.substr(0, comma), options.synthetic_rows) ||
      !positive(text.substr(comma + 1), options.synthetic_dims)) {
    throw InputError("--synthetic must be ROWS,DIMS with both integers >= 1, got '" + text + "'");
  }
  // Said now, not after the output folder is made and the data generated.
  if (options.synthetic_rows < 2)
    throw InputError("--synthetic needs ROWS >= 2 (training needs at least 2 rows), got '" + text + "'");
}

// "--target ," splits into no names at all, and CLI11 would then take the next flag as the
// column; a list flag must name at least one column.
void check_list_values(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const std::string word = argv[i];
    for (const char* flag : {"--target", "--features", "--keep", "--id"}) {
      const std::string name = flag;
      std::string value;
      if (word == name && i + 1 < argc) {
        value = argv[i + 1];
      } else if (word.compare(0, name.size() + 1, name + "=") == 0) {
        value = word.substr(name.size() + 1);
      } else {
        continue;
      }
      if (value.find_first_not_of(", \t") == std::string::npos)
        throw InputError(name + " needs at least one column name or index, got '" + value + "'");
    }
  }
}

// CLI11 reads "--json=x" as a value for a switch and fails with "Could not convert"; a switch
// takes no value at all ("--quiet=false" would read as a quiet run to many), and says so.
void check_switch_values(const std::vector<const CLI::App*>& commands, int argc, char** argv) {
  const auto chosen = std::find_if(commands.begin(), commands.end(),
                                   [&](const CLI::App* command) { return command->get_name() == argv[1]; });
  if (chosen == commands.end()) return;
  const CLI::App* command = *chosen;
  for (int i = 2; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") return;
    const auto equals = word.find('=');
    if (word.compare(0, 2, "--") != 0 || equals == std::string::npos) continue;
    const std::string name = word.substr(0, equals);
    const CLI::Option* option = command->get_option_no_throw(name);
    if (option != nullptr && option->get_items_expected_max() == 0) {
      throw InputError(name + " is a switch and takes no value, got '" + word + "'");
    }
  }
}

// CLI11 would take the words after "--" as positional arguments, which only inspect has, and
// report them in a scrambled order; no rbfnet value needs it.
void check_no_separator(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--")
      throw InputError(std::string("'--' is not used by 'rbfnet ") + argv[1] +
                       "': give every value after its flag (a file whose name starts with '-' as ./NAME)");
  }
}

// CLI11's "--data: 1 required FILE missing" as a sentence: "--data needs a value (FILE)".
std::string parse_error_text(const std::string& text) {
  const std::string required = ": 1 required ", missing = " missing";
  const auto at = text.find(required);
  if (text.compare(0, 1, "-") == 0 && at != std::string::npos && text.size() > missing.size() &&
      text.compare(text.size() - missing.size(), missing.size(), missing) == 0) {
    const std::size_t type_at = at + required.size();
    return text.substr(0, at) + " needs a value (" + text.substr(type_at, text.size() - missing.size() - type_at) + ")";
  }
  return text;
}

void check_bench_backends(const std::vector<std::string>& backends) {
  for (const std::string& backend : backends) {
    if (std::find(kBenchBackends.begin(), kBenchBackends.end(), backend) != kBenchBackends.end()) {
      continue;
    }
    const std::string suggestion = model::closest_match(backend, kBenchBackends);
    throw InputError("--backends must list cpu, gpu and/or auto, got '" + backend + "'" +
                     (suggestion.empty() ? std::string() : " (did you mean '" + suggestion + "'?)"));
  }
}

// "--repeat 5" -> 5; a count, bounded so that a typo does not start a day of training.
std::size_t parse_repeat(const std::string& text) {
  constexpr std::size_t kMaxRepeats = 1000;
  std::size_t value = 0;
  if (!text.empty() && text.size() <= 4 && text.find_first_not_of("0123456789") == std::string::npos)
    value = static_cast<std::size_t>(std::stoul(text));
  if (value < 1 || value > kMaxRepeats)
    throw InputError("--repeat must be an integer from 1 to " + std::to_string(kMaxRepeats) + ", got '" + text + "'");
  return value;
}

// "rbfnet help [COMMAND]" means "rbfnet [COMMAND] --help", the spelling of git and pip.
std::vector<std::string> arguments(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() >= 2 && args[1] == "help") {
    args.erase(args.begin() + 1);
    args.insert(args.begin() + (args.size() >= 2 ? 2 : 1), "--help");
    args.resize(std::min<std::size_t>(args.size(), 3));
  }
  return args;
}

int run_command_line(int original_argc, char** original_argv) {
  setup_logging();
  std::vector<std::string> args = arguments(original_argc, original_argv);
  std::vector<char*> pointers;
  for (std::string& arg : args) pointers.push_back(&arg[0]);
  const int argc = static_cast<int>(pointers.size());
  char** const argv = pointers.data();

  CLI::App app{"rbfnet " RBF_VERSION
               ": trains Gaussian RBF networks one node at a time, on the CPU (Eigen) or a "
               "CUDA GPU, switching between them by model size.",
               "rbfnet"};
  app.set_version_flag("--version", std::string("rbfnet ") + RBF_VERSION, "Print the version and exit");
  app.require_subcommand(1);
  app.footer(std::string("Run 'rbfnet COMMAND --help' for the flags of a command.\n") + kExitStatus);

  // train
  CLI::App* train = app.add_subcommand("train", "Train a network on a CSV file and write the model");
  ConfigFlags train_flags;
  add_train_flags(*train, train_flags);
  bool print_config = false;
  train->add_flag("--print-config", print_config,
                  "Print the effective configuration (config file + flags) as YAML and exit");
  std::string resume_path;
  train->add_option("--resume", resume_path,
                    "Continue the run saved in this checkpoint (its configuration, then any flags given)")
      ->type_name("CHECKPOINT");
  std::string metrics_json;
  train->add_option("--metrics-json", metrics_json, "Also write the training summary as JSON to this file")
      ->type_name("FILE");
  train->footer(std::string("Flags override the values of --config; configs/default.yaml lists "
                            "every key with its default.\n") +
                kExitStatus);

  // predict
  CLI::App* predict = app.add_subcommand("predict", "Predict with a trained model");
  PredictOptions predict_options;
  ConfigFlags predict_csv;
  predict->add_option("--model", predict_options.model, "Model file written by 'rbfnet train'")
      ->type_name("MODEL")
      ->required();
  predict->add_option("--data", predict_options.data, "CSV file with the model's feature columns; - = standard input")
      ->type_name("FILE")
      ->required();
  predict->add_option("--out", predict_options.out, "Predictions CSV; default (or -) standard output")
      ->type_name("CSV");
  predict->add_flag("--proba", predict_options.proba,
                    "Classification: add one probability column per class (proba_CLASS) after the label");
  std::string keep_columns;
  predict->add_option("--keep,--id", keep_columns,
                      "Copy these data columns (names or 0-based indices, comma-separated) in front of the "
                      "predictions")
      ->type_name("COL")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  predict_csv.add_value(*predict, "--delimiter", "data.delimiter", "CHAR", "CSV separator: auto, tab or one character");
  predict_csv.add_value(*predict, "--skip-rows", "data.skip_rows", "N", "Metadata lines before the CSV header");
  predict->footer(kExitStatus);

  // evaluate
  CLI::App* evaluate = app.add_subcommand("evaluate", "Measure a trained model on labelled data");
  EvaluateOptions evaluate_options;
  ConfigFlags evaluate_csv;
  evaluate->add_option("--model", evaluate_options.model, "Model file written by 'rbfnet train'")
      ->type_name("MODEL")
      ->required();
  evaluate->add_option("--data", evaluate_options.data, "CSV file with features and targets; - = standard input")
      ->type_name("FILE")
      ->required();
  evaluate_csv.add_list(*evaluate, "--target", "data.target", "COL", "Target column(s) by name or 0-based index")
      ->required();
  evaluate_csv.add_value(*evaluate, "--delimiter", "data.delimiter", "CHAR",
                         "CSV separator: auto, tab or one character");
  evaluate_csv.add_value(*evaluate, "--skip-rows", "data.skip_rows", "N", "Metadata lines before the CSV header");
  evaluate->add_flag("--json", evaluate_options.json, "Print one JSON object instead of text");
  evaluate->footer(kExitStatus);

  // inspect
  CLI::App* inspect = app.add_subcommand("inspect", "Describe a model file: task, nodes, columns, widths, provenance");
  InspectOptions inspect_options;
  inspect->add_option("model", inspect_options.model, "Model or checkpoint file")->type_name("MODEL")->required();
  inspect->add_flag("--json", inspect_options.json, "Print one JSON object instead of text");
  inspect->footer(kExitStatus);

  // bench
  CLI::App* bench =
      app.add_subcommand("bench", "Train on cpu, gpu and auto with the same seed and draw the cost curves");
  BenchOptions bench_options;
  ConfigFlags bench_flags;
  std::string synthetic;
  CLI::Option* bench_data = bench_flags.add_value(*bench, "--data", "data.path", "FILE", "Training CSV file");
  CLI::Option* bench_target =
      bench_flags.add_list(*bench, "--target", "data.target", "COL", "Target column(s), with --data");
  CLI::Option* bench_synthetic =
      bench->add_option("--synthetic", synthetic, "Generated data instead of --data: ROWS,DIMS")->type_name("N,D");
  bench_data->excludes(bench_synthetic);
  bench_target->excludes(bench_synthetic);
  bench->add_option("--backends", bench_options.backends, "Backends to run, from cpu,gpu,auto")
      ->type_name("LIST")
      ->delimiter(',')
      ->capture_default_str();
  bench_flags.add_value(*bench, "--nodes", "stopping.max_nodes", "M", "Maximum Gaussian nodes, >= 1");
  std::string repeat_text = "1";
  bench->add_option("--repeat", repeat_text, "Train each backend R times; report the median and the spread")
      ->type_name("R")
      ->capture_default_str();
  bench->add_option("--out", bench_options.out_dir, "Folder for the cost logs and plots")
      ->type_name("DIR")
      ->capture_default_str();
  bench_flags.add_config_file(*bench);
  bench_flags.add_value(*bench, "--pool", "candidates.pool", "P", "Rows sampled as candidate centers, >= 1");
  bench_flags.add_value(*bench, "--seed", "data.seed", "S", "Seed of the data, split and candidate sampling");
  bench_flags.add_value(*bench, "--validation", "data.validation", "FRACTION",
                        "Fraction held out for validation, in [0, 0.9]");
  bench_flags.add_value(*bench, "--precision", "trainer.precision", "TYPE", "float32 or float64");
  bench_flags.add_value(*bench, "--linear-terms", "trainer.linear_terms", "MODE",
                        "Linear terms beside the Gaussians: on, off, or auto (on unless the fit would cost more than the candidates or ~1 s)");
  bench_flags.add_value(*bench, "--threads", "trainer.threads", "N", "CPU threads; 0 = all cores");
  bench_flags.add_value(*bench, "--switch-at-nodes", "backend.switch_at_nodes", "M",
                        "auto: move to the GPU at M nodes; 0 = cost model");
  bench_flags.add_value(*bench, "--gpu-device", "backend.gpu_device", "INDEX", "CUDA device (see rbfnet info)");
  bench_flags.add_list(*bench, "--gpu-devices", "backend.gpu_devices", "I,...",
                       "Train the gpu backend on several CUDA devices, each holding a share of the rows");
  bench_flags.add_value(*bench, "--log-level", "logging.level", "LEVEL",
                        "Log level: trace, debug, info, warn, error or off");
  bench_flags.add_switch(*bench, "--quiet", "logging.progress", "false", "No progress line");
  bench->footer(std::string("Writes DIR/costs.csv, DIR/summary.md, DIR/cost_curves.gp and, with gnuplot, "
                            "DIR/cost_curves.png. Backends this machine lacks are skipped with a note.\n") +
                kExitStatus);

  // calibrate
  CLI::App* calibrate = app.add_subcommand(
      "calibrate", "Measure this machine's GPU costs for the automatic backend switch and cache them");
  ConfigFlags calibrate_flags;
  calibrate_flags.add_value(*calibrate, "--gpu-device", "backend.gpu_device", "INDEX",
                            "CUDA device (see rbfnet info)");
  calibrate->footer(std::string("The figures are cached per host and device in $XDG_CACHE_HOME/rbfnet (or "
                                "~/.cache/rbfnet) and used by backend: auto.\n") +
                    kExitStatus);

  // info
  CLI::App* info =
      app.add_subcommand("info", "Print build options, compiler, library versions and the CUDA devices found");
  info->footer(kExitStatus);

  for (CLI::App* command : {train, predict, evaluate, inspect, bench, calibrate, info}) {
    command->allow_extras();
    // A repeated flag replaces the earlier value, for every flag alike (CLI11 would refuse a
    // second --data with "At Most 1 required but received 2", but not a second --nodes).
    for (CLI::Option* option : command->get_options()) {
      if (!option->get_positional() && option->get_items_expected_max() == 1)
        option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }

  check_command_name(argc, argv);
  check_list_values(argc, argv);
  check_switch_values({train, predict, evaluate, inspect, bench, calibrate, info}, argc, argv);
  check_no_separator(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version: printed on standard output, status 0
  } catch (const CLI::ParseError& e) {
    const std::vector<CLI::App*> chosen = app.get_subcommands();
    // A misspelt flag explains a "required" error that follows from it; report it first.
    if (!chosen.empty()) check_leftovers(*chosen.front());
    const std::string help = chosen.empty() ? "rbfnet --help" : "rbfnet " + chosen.front()->get_name() + " --help";
    throw InputError(parse_error_text(e.what()) + " (see '" + help + "')");
  }
  CLI::App* chosen = app.get_subcommands().front();
  check_leftovers(*chosen);

  if (chosen == train) {
    if (!resume_path.empty() && train_flags.has_config_file())
      throw InputError("give either --resume or --config: a resumed run keeps its checkpoint's configuration");
    const model::Config config =
        resume_path.empty() ? train_flags.build() : train_flags.build_from(checkpoint_config(resume_path));
    // --quiet prints the summary only: informational lines go too, warnings stay.
    set_log_level(!config.logging.progress && config.logging.level == "info" ? "warn" : config.logging.level);
    if (print_config) {
      std::cout << model::config_to_yaml(config) << std::flush;
      return kExitSuccess;
    }
    require_training_inputs(config);
    // Said before the data is read, like every other usage error (the backend would say it later).
    if (config.backend.kind == model::BackendKind::gpu && !gpu::built_with_cuda())
      throw InputError("backend gpu (backend.kind, --backend) is not available: this rbfnet was built without CUDA; "
                       "use cpu or auto");
    return run_train(config, resume_path, train_flags.config_file(), metrics_json);
  }
  if (chosen == predict) {
    const model::Config csv = predict_csv.build();
    predict_options.delimiter = csv.data.delimiter;
    predict_options.skip_rows = csv.data.skip_rows;
    predict_options.keep = split_list(keep_columns);
    require_readable_file(predict_options.model, "model file");
    require_readable_file(predict_options.data, "data file");
    return run_predict(predict_options);
  }
  if (chosen == evaluate) {
    const model::Config csv = evaluate_csv.build();
    evaluate_options.target = csv.data.target;
    evaluate_options.delimiter = csv.data.delimiter;
    evaluate_options.skip_rows = csv.data.skip_rows;
    require_readable_file(evaluate_options.model, "model file");
    require_readable_file(evaluate_options.data, "data file");
    return run_evaluate(evaluate_options);
  }
  if (chosen == inspect) {
    require_readable_file(inspect_options.model, "model file");
    return run_inspect(inspect_options);
  }
  if (chosen == bench) {
    bench_options.config = bench_flags.build();
    set_log_level(bench_options.config.logging.level);
    bench_options.data = bench_options.config.data.path;
    bench_options.target = bench_options.config.data.target;
    if (!synthetic.empty()) {
      parse_synthetic(synthetic, bench_options);
    } else if (bench_options.data.empty()) {
      throw InputError("'rbfnet bench' needs --data FILE --target COL or --synthetic ROWS,DIMS");
    } else if (bench_options.target.empty()) {
      throw InputError("'rbfnet bench' needs --target COL with --data (or data.target in the config)");
    } else {
      require_readable_file(bench_options.data, "data file");
    }
    check_bench_backends(bench_options.backends);
    bench_options.repeats = parse_repeat(repeat_text);
    return run_bench(bench_options);
  }
  if (chosen == calibrate) {
    CalibrateOptions calibrate_options;
    calibrate_options.device = calibrate_flags.build().backend.gpu_device;
    return run_calibrate(calibrate_options);
  }
  return run_info();
}

}  // namespace
}  // namespace rbf::app

int main(int argc, char** argv) {
  rbf::app::restart_with_passive_omp_waiting(argv);
  return rbf::app::run_reporting_errors([&] { return rbf::app::run_command_line(argc, argv); });
}
