// Checks of rbfnet's arguments that CLI11 does not make, or makes with a less helpful
// message: the command name, unknown flags, list and switch values, bench's own values.
#include "app/argument_checks.hpp"

#include <CLI/App.hpp>
#include <CLI/Option.hpp>

#include <algorithm>
#include <exception>

#include "data/errors.hpp"
#include "model/config_yaml.hpp"

namespace rbf::app {
namespace {

const std::vector<std::string> kCommands{"train", "predict", "evaluate", "inspect", "bench", "calibrate", "info", "help"};
const std::vector<std::string> kBenchBackends{"cpu", "gpu", "auto"};

// Every long flag of `command`, for "did you mean".
std::vector<std::string> flag_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

}  // namespace

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
void check_switch_values(const std::vector<CLI::App*>& commands, int argc, char** argv) {
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

}  // namespace rbf::app
