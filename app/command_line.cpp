// Defines rbfnet's subcommands and their flags: one function per subcommand.
#include "app/command_line.hpp"

namespace rbf::app {

const char* const kExitStatus = "Exit status: 0 success, 1 runtime failure, 2 usage or input error.";

namespace {

void add_train_command(CLI::App& app, TrainCommand& train) {
  train.command = app.add_subcommand("train", "Train a network on a CSV file and write the model");
  CLI::App& command = *train.command;
  add_train_flags(command, train.flags);
  command.add_flag("--print-config", train.print_config,
                   "Print the effective configuration (config file + flags) as YAML and exit");
  command
      .add_option("--resume", train.resume_path,
                  "Continue the run saved in this checkpoint (its configuration, then any flags given)")
      ->type_name("CHECKPOINT");
  command.add_option("--metrics-json", train.metrics_json, "Also write the training summary as JSON to this file")
      ->type_name("FILE");
  command
      .add_option("--init-model", train.init_model,
                  "Continue from this model on new data: keep its nodes, grow more to --nodes in all, "
                  "solve the weights on the new rows")
      ->type_name("MODEL")
      ->excludes("--resume");
  command.footer(std::string("Flags override the values of --config; configs/default.yaml lists "
                             "every key with its default.\n") +
                 kExitStatus);
}

// --model and --data, which predict and evaluate both require.
void add_model_and_data(CLI::App& command, std::string& model, std::string& data, const std::string& data_help) {
  command.add_option("--model", model, "Model file written by 'rbfnet train'")->type_name("MODEL")->required();
  command.add_option("--data", data, data_help)->type_name("FILE")->required();
}

void add_predict_command(CLI::App& app, PredictCommand& predict) {
  predict.command = app.add_subcommand("predict", "Predict with a trained model");
  CLI::App& command = *predict.command;
  add_model_and_data(command, predict.options.model, predict.options.data,
                     "CSV file with the model's feature columns; - = standard input");
  command.add_option("--out", predict.options.out, "Predictions CSV; default (or -) standard output")->type_name("CSV");
  command.add_flag("--proba", predict.options.proba,
                   "Classification: add one probability column per class (proba_CLASS) after the label");
  command
      .add_option("--keep,--id", predict.keep_columns,
                  "Copy these data columns (names or 0-based indices, comma-separated) in front of the predictions")
      ->type_name("COL")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  predict.csv.add_value(command, "--delimiter", "data.delimiter", "CHAR", "CSV separator: auto, tab or one character");
  predict.csv.add_value(command, "--skip-rows", "data.skip_rows", "N", "Metadata lines before the CSV header");
  command.footer(kExitStatus);
}

void add_evaluate_command(CLI::App& app, EvaluateCommand& evaluate) {
  evaluate.command = app.add_subcommand("evaluate", "Measure a trained model on labelled data");
  CLI::App& command = *evaluate.command;
  add_model_and_data(command, evaluate.options.model, evaluate.options.data,
                     "CSV file with features and targets; - = standard input");
  evaluate.csv.add_list(command, "--target", "data.target", "COL", "Target column(s) by name or 0-based index")
      ->required();
  evaluate.csv.add_value(command, "--weight", "data.weight", "COL",
                         "Column of per-row sample weights (>= 0) that every score counts");
  evaluate.csv.add_value(command, "--delimiter", "data.delimiter", "CHAR", "CSV separator: auto, tab or one character");
  evaluate.csv.add_value(command, "--skip-rows", "data.skip_rows", "N", "Metadata lines before the CSV header");
  command.add_flag("--json", evaluate.options.json, "Print one JSON object instead of text");
  command.footer(kExitStatus);
}

void add_inspect_command(CLI::App& app, InspectCommand& inspect) {
  inspect.command = app.add_subcommand("inspect", "Describe a model file: task, nodes, columns, widths, provenance");
  CLI::App& command = *inspect.command;
  command.add_option("model", inspect.options.model, "Model or checkpoint file")->type_name("MODEL")->required();
  command.add_flag("--json", inspect.options.json, "Print one JSON object instead of text");
  command.footer(kExitStatus);
}

void add_bench_command(CLI::App& app, BenchCommand& bench) {
  bench.command = app.add_subcommand("bench", "Train on cpu, gpu and auto with the same seed and draw the cost curves");
  CLI::App& command = *bench.command;
  ConfigFlags& flags = bench.flags;
  CLI::Option* data = flags.add_value(command, "--data", "data.path", "FILE", "Training CSV file");
  CLI::Option* target = flags.add_list(command, "--target", "data.target", "COL", "Target column(s), with --data");
  CLI::Option* synthetic =
      command.add_option("--synthetic", bench.synthetic, "Generated data instead of --data: ROWS,DIMS")->type_name("N,D");
  data->excludes(synthetic);
  target->excludes(synthetic);
  command.add_option("--backends", bench.options.backends, "Backends to run, from cpu,gpu,auto")
      ->type_name("LIST")
      ->delimiter(',')
      ->capture_default_str();
  flags.add_value(command, "--nodes", "stopping.max_nodes", "M", "Maximum Gaussian nodes, >= 1");
  command.add_option("--repeat", bench.repeat_text, "Train each backend R times; report the median and the spread")
      ->type_name("R")
      ->capture_default_str();
  command.add_option("--out", bench.options.out_dir, "Folder for the cost logs and plots")
      ->type_name("DIR")
      ->capture_default_str();
  flags.add_config_file(command);
  add_common_trainer_flags(command, flags);
  flags.add_value(command, "--seed", "data.seed", "S", "Seed of the data, split and candidate sampling");
  flags.add_value(command, "--precision", "trainer.precision", "TYPE", "float32 or float64");
  flags.add_value(command, "--switch-at-nodes", "backend.switch_at_nodes", "M",
                  "auto: move to the GPU at M nodes; 0 = cost model");
  flags.add_list(command, "--gpu-devices", "backend.gpu_devices", "I,...",
                 "Train the gpu backend on several CUDA devices, each holding a share of the rows");
  flags.add_switch(command, "--quiet", "logging.progress", "false", "No progress line");
  command.footer(std::string("Writes DIR/costs.csv, DIR/summary.md, DIR/cost_curves.gp and, with gnuplot, "
                             "DIR/cost_curves.png. Backends this machine lacks are skipped with a note.\n") +
                 kExitStatus);
}

void add_calibrate_command(CLI::App& app, CalibrateCommand& calibrate) {
  calibrate.command =
      app.add_subcommand("calibrate", "Measure this machine's GPU costs for the automatic backend switch and cache them");
  calibrate.flags.add_value(*calibrate.command, "--gpu-device", "backend.gpu_device", "INDEX",
                            "CUDA device (see rbfnet info)");
  calibrate.command->footer(std::string("The figures are cached per host and device in $XDG_CACHE_HOME/rbfnet (or "
                                        "~/.cache/rbfnet) and used by backend: auto.\n") +
                            kExitStatus);
}

}  // namespace

CommandLine::CommandLine()
    : app("rbfnet " RBF_VERSION
          ": trains Gaussian RBF networks one node at a time, on the CPU (Eigen) or a "
          "CUDA GPU, switching between them by model size.",
          "rbfnet") {
  app.set_version_flag("--version", std::string("rbfnet ") + RBF_VERSION, "Print the version and exit");
  app.require_subcommand(1);
  app.footer(std::string("Run 'rbfnet COMMAND --help' for the flags of a command.\n") + kExitStatus);
  add_train_command(app, train);
  add_predict_command(app, predict);
  add_evaluate_command(app, evaluate);
  add_inspect_command(app, inspect);
  add_bench_command(app, bench);
  add_calibrate_command(app, calibrate);
  info = app.add_subcommand("info", "Print build options, compiler, library versions and the CUDA devices found");
  info->footer(kExitStatus);

  for (CLI::App* command : commands()) {
    command->allow_extras();
    // A repeated flag replaces the earlier value, for every flag alike (CLI11 would refuse a
    // second --data with "At Most 1 required but received 2", but not a second --nodes).
    for (CLI::Option* option : command->get_options()) {
      if (!option->get_positional() && option->get_items_expected_max() == 1)
        option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }
}

std::vector<CLI::App*> CommandLine::commands() const {
  return {train.command, predict.command, evaluate.command, inspect.command, bench.command, calibrate.command, info};
}

}  // namespace rbf::app
