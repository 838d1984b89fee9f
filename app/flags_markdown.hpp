// The flags of one subcommand as a Markdown table ('rbfnet help COMMAND --markdown'): the
// source of the flags tables in docs/USAGE.md, which tests/cli compares with it.
#pragma once

#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace rbf::app {

// One row per flag, in --help order: the flag with its value name, the config key it sets
// (from the "[key, default V]" that ConfigFlags appends to the help), the default, and the
// help text.
std::string flags_markdown(const CLI::App& command);

}  // namespace rbf::app
