// rbfnet's subcommands and their flags, one set-up function per subcommand (command_line.cpp),
// with the variables the parsed values land in.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "app/cli_train_options.hpp"
#include "app/commands.hpp"

namespace rbf::app {

// The last line of every command's --help.
extern const char* const kExitStatus;

struct TrainCommand {
  CLI::App* command = nullptr;
  ConfigFlags flags;
  bool print_config = false;
  std::string resume_path;   // --resume CHECKPOINT
  std::string init_model;    // --init-model MODEL
  std::string metrics_json;  // --metrics-json FILE
};

struct PredictCommand {
  CLI::App* command = nullptr;
  PredictOptions options;
  ConfigFlags csv;           // --delimiter, --skip-rows
  std::string keep_columns;  // --keep/--id, split after parsing
};

struct EvaluateCommand {
  CLI::App* command = nullptr;
  EvaluateOptions options;
  ConfigFlags csv;  // --target, --delimiter, --skip-rows
};

struct InspectCommand {
  CLI::App* command = nullptr;
  InspectOptions options;
};

struct BenchCommand {
  CLI::App* command = nullptr;
  BenchOptions options;
  ConfigFlags flags;
  std::string synthetic;          // --synthetic ROWS,DIMS, checked after parsing
  std::string repeat_text = "1";  // --repeat R, checked after parsing
};

struct CalibrateCommand {
  CLI::App* command = nullptr;
  ConfigFlags flags;  // --gpu-device
};

// The whole command line. CLI11 keeps pointers into these members, so it is built in place
// and never copied.
struct CommandLine {
  CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Every subcommand, in the order of 'rbfnet --help'.
  std::vector<CLI::App*> commands() const;

  CLI::App app;
  TrainCommand train;
  PredictCommand predict;
  EvaluateCommand evaluate;
  InspectCommand inspect;
  BenchCommand bench;
  CalibrateCommand calibrate;
  CLI::App* info = nullptr;
};

}  // namespace rbf::app
