// rbfnet command line: parses the subcommands and their flags (app/command_line.cpp), then
// calls the command bodies (app/commands.hpp). Every failure becomes one line on stderr and
// exit status 1 or 2.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "app/argument_checks.hpp"
#include "app/checkpoint_file.hpp"
#include "app/command_line.hpp"
#include "app/error_report.hpp"
#include "app/file_checks.hpp"
#include "app/flags_markdown.hpp"
#include "app/logging_setup.hpp"
#include "app/omp_wait_policy.hpp"
#include "contracts/cpu_entry_points.hpp"
#include "data/errors.hpp"
#include "model/config_yaml.hpp"
#include "contracts/gpu_entry_points.hpp"

namespace rbf::app {
namespace {

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

// "rbfnet help COMMAND --markdown": the command's flags as the Markdown table of docs/USAGE.md.
bool asks_for_markdown(const std::vector<std::string>& args) {
  return args.size() == 4 && args[1] == "help" && args[3] == "--markdown";
}

int print_flags_markdown(const CommandLine& line, const std::string& name) {
  for (const CLI::App* command : line.commands()) {
    if (command->get_name() == name) {
      std::cout << flags_markdown(*command) << std::flush;
      return kExitSuccess;
    }
  }
  throw InputError("'rbfnet help COMMAND --markdown' needs one of the commands train, predict, evaluate, "
                   "inspect, bench, calibrate or info, got '" + name + "'");
}

int run_train_command(const TrainCommand& train) {
  if (!train.resume_path.empty() && train.flags.has_config_file())
    throw InputError("give either --resume or --config: a resumed run keeps its checkpoint's configuration");
  const model::Config config = train.resume_path.empty() ? train.flags.build()
                                                          : train.flags.build_from(checkpoint_config(train.resume_path));
  // --quiet prints the summary only: informational lines go too, warnings stay.
  set_log_level(!config.logging.progress && config.logging.level == "info" ? "warn" : config.logging.level);
  if (train.print_config) {
    std::cout << model::config_to_yaml(config) << std::flush;
    return kExitSuccess;
  }
  require_training_inputs(config);
  // Said before the data is read, like every other usage error (the backend would say it later).
  if (config.backend.kind == model::BackendKind::gpu && !gpu::built_with_cuda())
    throw InputError("backend gpu (backend.kind, --backend) is not available: this rbfnet was built without CUDA; "
                     "use cpu or auto");
  return run_train(config, train.resume_path, train.flags.config_file(), train.metrics_json, train.init_model);
}

int run_predict_command(PredictCommand& predict) {
  const model::Config csv = predict.csv.build();
  predict.options.delimiter = csv.data.delimiter;
  predict.options.skip_rows = csv.data.skip_rows;
  predict.options.keep = split_list(predict.keep_columns);
  require_readable_file(predict.options.model, "model file");
  require_readable_file(predict.options.data, "data file");
  return run_predict(predict.options);
}

int run_evaluate_command(EvaluateCommand& evaluate) {
  const model::Config csv = evaluate.csv.build();
  evaluate.options.target = csv.data.target;
  evaluate.options.weight = csv.data.weight;
  evaluate.options.delimiter = csv.data.delimiter;
  evaluate.options.skip_rows = csv.data.skip_rows;
  require_readable_file(evaluate.options.model, "model file");
  require_readable_file(evaluate.options.data, "data file");
  return run_evaluate(evaluate.options);
}

int run_bench_command(BenchCommand& bench) {
  BenchOptions& options = bench.options;
  options.config = bench.flags.build();
  set_log_level(options.config.logging.level);
  options.data = options.config.data.path;
  options.target = options.config.data.target;
  if (!bench.synthetic.empty()) {
    parse_synthetic(bench.synthetic, options);
  } else if (options.data.empty()) {
    throw InputError("'rbfnet bench' needs --data FILE --target COL or --synthetic ROWS,DIMS");
  } else if (options.target.empty()) {
    throw InputError("'rbfnet bench' needs --target COL with --data (or data.target in the config)");
  } else {
    require_readable_file(options.data, "data file");
  }
  check_bench_backends(options.backends);
  options.repeats = parse_repeat(bench.repeat_text);
  return run_bench(options);
}

// Runs the command that was parsed.
int run_chosen(CommandLine& line) {
  const CLI::App* chosen = line.app.get_subcommands().front();
  if (chosen == line.train.command) return run_train_command(line.train);
  if (chosen == line.predict.command) return run_predict_command(line.predict);
  if (chosen == line.evaluate.command) return run_evaluate_command(line.evaluate);
  if (chosen == line.inspect.command) {
    require_readable_file(line.inspect.options.model, "model file");
    return run_inspect(line.inspect.options);
  }
  if (chosen == line.bench.command) return run_bench_command(line.bench);
  if (chosen == line.calibrate.command) {
    CalibrateOptions options;
    options.device = line.calibrate.flags.build().backend.gpu_device;
    return run_calibrate(options);
  }
  return run_info();
}

int run_command_line(int original_argc, char** original_argv) {
  setup_logging();
  CommandLine line;
  const std::vector<std::string> given(original_argv, original_argv + original_argc);
  if (asks_for_markdown(given)) return print_flags_markdown(line, given[2]);
  std::vector<std::string> args = arguments(original_argc, original_argv);
  std::vector<char*> pointers;
  for (std::string& arg : args) pointers.push_back(&arg[0]);
  const int argc = static_cast<int>(pointers.size());
  char** const argv = pointers.data();

  check_command_name(argc, argv);
  check_list_values(argc, argv);
  check_switch_values(line.commands(), argc, argv);
  check_no_separator(argc, argv);
  try {
    line.app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return line.app.exit(e);  // --help, --version: printed on standard output, status 0
  } catch (const CLI::ParseError& e) {
    const std::vector<CLI::App*> chosen = line.app.get_subcommands();
    // A misspelt flag explains a "required" error that follows from it; report it first.
    if (!chosen.empty()) check_leftovers(*chosen.front());
    const std::string help = chosen.empty() ? "rbfnet --help" : "rbfnet " + chosen.front()->get_name() + " --help";
    throw InputError(parse_error_text(e.what()) + " (see '" + help + "')");
  }
  check_leftovers(*line.app.get_subcommands().front());
  return run_chosen(line);
}

}  // namespace
}  // namespace rbf::app

int main(int argc, char** argv) {
  // Past `ulimit -f` a write fails with EFBIG, which every writer reports (and the atomic
  // writer cleans up after), instead of SIGXFSZ killing the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  rbf::app::restart_with_passive_omp_waiting(argv);
  rbf::cpu::fit_threads_to_address_space();
  return rbf::app::run_reporting_errors([&] { return rbf::app::run_command_line(argc, argv); });
}
