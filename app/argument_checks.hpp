// Checks of rbfnet's arguments before and after CLI11 parses them; each throws rbf::InputError
// with one sentence naming the word or flag at fault.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "app/commands.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace rbf::app {

// No command, an option where the command belongs, or a misspelt command ("did you mean").
void check_command_name(int argc, char** argv);
// The first word `command` did not know (CLI11's extras): the closest flag, if any.
void check_leftovers(const CLI::App& command);
// A list flag (--target, --features, --keep, --id) names at least one column.
void check_list_values(int argc, char** argv);
// A switch given a value ("--json=x") is refused, for whichever of `commands` is used.
void check_switch_values(const std::vector<CLI::App*>& commands, int argc, char** argv);
// "--" is refused: no rbfnet value needs it.
void check_no_separator(int argc, char** argv);
// CLI11's parse error as a sentence ("--data needs a value (FILE)").
std::string parse_error_text(const std::string& text);

// bench: "--synthetic ROWS,DIMS" into `options`; --backends from cpu, gpu, auto; --repeat R.
void parse_synthetic(const std::string& text, BenchOptions& options);
void check_bench_backends(const std::vector<std::string>& backends);
std::size_t parse_repeat(const std::string& text);

}  // namespace rbf::app
