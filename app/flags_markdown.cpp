// Writes a subcommand's flags as a Markdown table, from the same definitions as its --help.
#include "app/flags_markdown.hpp"

#include <CLI/App.hpp>
#include <CLI/Option.hpp>

#include <sstream>

namespace rbf::app {
namespace {

// A table cell: '|' would end it early.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string code(const std::string& text) { return text.empty() ? std::string() : "`" + cell(text) + "`"; }

struct HelpParts {
  std::string meaning;        // the help text before the bracket
  std::string key;            // config key path, or empty
  std::string default_value;  // "default V" part, or empty
  std::string sets;           // a switch's "key = V": the value it sets
};

// "Text [key, default [0.5, 1, 2]]" -> its parts; the bracket is matched from the end, since
// a default may itself hold brackets.
HelpParts split_help(const std::string& help) {
  HelpParts parts;
  parts.meaning = help;
  if (help.empty() || help.back() != ']') return parts;
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = help.size(); i-- > 0;) {
    if (help[i] == ']') ++depth;
    if (help[i] == '[' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos || open == 0 || help[open - 1] != ' ') return parts;
  const std::string inside = help.substr(open + 1, help.size() - open - 2);
  if (inside.find('.') == std::string::npos || inside.find(' ') == 0) return parts;  // not a key
  parts.meaning = help.substr(0, open - 1);
  const std::size_t comma = inside.find(", default ");
  const std::size_t equals = inside.find(" = ");
  if (comma != std::string::npos) {
    parts.key = inside.substr(0, comma);
    parts.default_value = inside.substr(comma + 10);
  } else if (equals != std::string::npos) {
    parts.key = inside.substr(0, equals);
    parts.sets = inside.substr(equals + 3);
  } else {
    parts.key = inside;
  }
  return parts;
}

// "--keep,--id" with value name COL -> "`--keep COL`, `--id COL`".
std::string flag_cell(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  std::string names;
  for (const std::string& name : option.get_lnames()) {
    if (!names.empty()) names += ", ";
    names += code("--" + name + (type.empty() ? std::string() : " " + type));
  }
  if (names.empty()) names = code(option.get_name() + (type.empty() ? std::string() : " " + type));
  return names;
}

}  // namespace

std::string flags_markdown(const CLI::App& command) {
  std::ostringstream out;
  out << "| flag | config key | default | meaning |\n|---|---|---|---|\n";
  for (const CLI::Option* option : command.get_options()) {
    if (option == command.get_help_ptr()) continue;
    const HelpParts parts = split_help(option->get_description());
    std::string key = code(parts.key);
    if (!parts.sets.empty()) key += " = " + code(parts.sets);
    std::string default_value = parts.default_value;
    if (default_value.empty() && parts.key.empty()) default_value = option->get_default_str();
    out << "| " << flag_cell(*option) << " | " << key << " | " << code(default_value) << " | "
        << cell(parts.meaning) << " |\n";
  }
  return out.str();
}

}  // namespace rbf::app
