// Reading a YAML config (text or file, one document of known sections and keys), writing it
// back, and applying command-line overrides; the field table is in model/config_schema.cpp.
#include "model/config_yaml.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "data/errors.hpp"
#include "data/input_file.hpp"
#include "model/config_messages.hpp"
#include "model/config_schema.hpp"

namespace rbf::model {

using namespace config_detail;  // the field table and the message text

namespace {

using YAML::Node;

struct Seen {
  std::map<std::string, int> lines;  // key -> line of first occurrence (1-based)

  void add(const std::string& name, const std::string& key, const std::string& what, const YAML::Mark& mark) {
    const auto it = lines.find(key);
    if (it != lines.end()) {
      throw InputError(at(name, mark) + "duplicate " + what + " '" + key + "' (first given on line " +
                       std::to_string(it->second) + ")");
    }
    lines[key] = mark.is_null() ? 0 : mark.line + 1;
  }
};

// Reads the sections of `root` into `config`; `positions` receives "FILE:LINE:COL: " for
// every key given, so that range errors found afterwards can point at the value.
void read_document(Config& config, const Node& root, const std::string& name,
                   std::map<std::string, std::string>& positions) {
  if (!root.IsDefined() || root.IsNull()) return;
  if (!root.IsMap()) {
    throw InputError(at(name, root.Mark()) + "a config must be a map of sections (" + join(section_names(), ", ") +
                     "), got " + describe_node(root));
  }
  Seen seen_sections;
  for (auto section_it = root.begin(); section_it != root.end(); ++section_it) {
    const Node section_key = section_it->first;
    const Node section_value = section_it->second;
    if (!section_key.IsScalar()) {
      throw InputError(at(name, section_key.Mark()) + "section names must be plain words, got " +
                       describe_node(section_key));
    }
    const std::string section = section_key.Scalar();
    if (!is_section(section)) {
      throw InputError(at(name, section_key.Mark()) + unknown_section_message(section));
    }
    seen_sections.add(name, section, "section", section_key.Mark());
    if (section_value.IsNull()) continue;  // "trainer:" alone keeps the defaults
    if (!section_value.IsMap()) {
      const YAML::Mark mark = section_value.Mark().is_null() ? section_key.Mark() : section_value.Mark();
      throw InputError(at(name, mark) + "'" + section + "' must be a map of keys (" + join(keys_of(section), ", ") +
                       "), got " + describe_node(section_value));
    }
    Seen seen_keys;
    for (auto it = section_value.begin(); it != section_value.end(); ++it) {
      const Node key_node = it->first;
      const Node value = it->second;
      if (!key_node.IsScalar()) {
        throw InputError(at(name, key_node.Mark()) + "keys of '" + section + "' must be plain words, got " +
                         describe_node(key_node));
      }
      const std::string key = key_node.Scalar();
      const Field* field = find_field(section, key);
      if (field == nullptr) {
        throw InputError(at(name, key_node.Mark()) + unknown_key_message(section, key));
      }
      seen_keys.add(name, field->path(), "key", key_node.Mark());
      // yaml-cpp places an empty value where the next token starts; the key is clearer.
      const YAML::Mark mark = value.IsNull() || value.Mark().is_null() ? key_node.Mark() : value.Mark();
      positions[field->path()] = at(name, mark);
      field->read(config, value, at(name, mark) + "'" + field->path() + "'");
    }
  }
}

// The style argument of EventHandler::OnSequenceStart/OnMapStart is `EmitterStyle::value` in
// yaml-cpp 0.7 and an `enum class EmitterStyle` in later sources; taking the type from the
// base class keeps one set of overrides for both.
template <typename Method>
struct StyleArgument;
template <typename Style>
struct StyleArgument<void (YAML::EventHandler::*)(const YAML::Mark&, const std::string&, YAML::anchor_t, Style)> {
  using type = Style;
};
using EmitterStyleArgument = StyleArgument<decltype(&YAML::EventHandler::OnSequenceStart)>::type;

// A config nests three levels (section, key, a list value); yaml-cpp's own guard stops at
// hundreds with the bare message "bad file", and older releases have none (deep recursion).
constexpr int kMaxNesting = 32;

// Records where the root node of each document of a YAML stream starts, and refuses lists
// and maps nested deeper than kMaxNesting.
class DocumentRoots : public YAML::EventHandler {
 public:
  explicit DocumentRoots(const std::string& name) : name_(name) {}
  std::vector<YAML::Mark> marks;

  void OnDocumentStart(const YAML::Mark& mark) override {
    marks.push_back(mark);
    root_pending_ = true;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node_at(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node_at(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    node_at(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, EmitterStyleArgument) override {
    node_at(mark);
    enter(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, EmitterStyleArgument) override {
    node_at(mark);
    enter(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  void enter(const YAML::Mark& mark) {
    if (++depth_ <= kMaxNesting) return;
    throw InputError(at(name_, mark) + "lists and maps are nested " + std::to_string(depth_) +
                     " levels deep here, more than the " + std::to_string(kMaxNesting) +
                     " a config may use (it needs 3: section, key, list)");
  }
  void node_at(const YAML::Mark& mark) {
    if (root_pending_) marks.back() = mark;
    root_pending_ = false;
  }
  bool root_pending_ = false;
  const std::string& name_;
  int depth_ = 0;
};

// A config is one YAML document. YAML::LoadAll cannot say so safely: on a token that no rule
// consumes (a stray ',' at the top level) yaml-cpp returns an empty document without moving
// on, and LoadAll collects such documents forever (yaml-cpp issue 1040, fixed after 0.8).
// So at most three documents are parsed here, and a document that starts where the previous
// one started is the syntax error it is. Throws InputError; yaml-cpp exceptions pass through.
void check_single_document(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentRoots roots(name);
  while (roots.marks.size() < 3 && parser.HandleNextDocument(roots)) {
    const std::size_t count = roots.marks.size();
    if (count >= 2 && roots.marks[count - 1].pos == roots.marks[count - 2].pos) {
      const YAML::Mark& mark = roots.marks[count - 1];
      const std::size_t pos = static_cast<std::size_t>(std::max(mark.pos, 0));
      const std::string what = pos < text.size() ? "unexpected '" + std::string(1, text[pos]) + "'" : "unexpected text";
      throw InputError(at(name, mark) + "YAML syntax error: " + what);
    }
  }
  if (roots.marks.size() > 1) {
    throw InputError(at(name, roots.marks[1]) + "a config holds one YAML document, but a second one starts here");
  }
}

}  // namespace

Config parse_config(const std::string& yaml_text, const std::string& name) {
  Config config;
  std::map<std::string, std::string> positions;
  if (yaml_text.find('\0') != std::string::npos) {
    throw InputError(name + ": is not a YAML text file (it contains NUL bytes)");
  }
  // yaml-cpp exceptions never leave this function: each becomes one InputError sentence.
  try {
    check_single_document(yaml_text, name);
    read_document(config, YAML::Load(yaml_text), name, positions);
  } catch (const YAML::ParserException& e) {
    throw InputError(at(name, e.mark) + "YAML syntax error: " + e.msg + tab_indent_hint(yaml_text, e.mark));
  } catch (const YAML::Exception& e) {
    throw InputError(at(name, e.mark) + "cannot read the config: " + e.msg);
  }
  check_fields(config, [&](const std::string& key) {
    const auto it = positions.find(key);
    return (it != positions.end() ? it->second : name + ": ") + "'" + key + "'";
  });
  return config;
}

// Config files are a few kilobytes; the cap stops a device or a stray large file early.
constexpr std::size_t kConfigFileLimit = std::size_t(1) << 20;

Config load_config(const std::string& path) {
  const data::InputBytes text = data::read_input_file(path, "config file", kConfigFileLimit, true);
  return parse_config(std::string(text.view()), path);
}

std::string config_to_yaml(const Config& config) {
  std::string out;
  std::string section;
  for (const Field& field : fields()) {
    if (field.section != section) {
      section = field.section;
      out += section + ":\n";
    }
    out += "  " + field.key + ": " + field.write(config) + "\n";
  }
  return out;
}

void apply_overrides(Config& config, const std::vector<ConfigOverride>& overrides) {
  std::map<std::string, std::string> flags;
  try {
    for (const ConfigOverride& override_value : overrides) {
      const Field* field = find_field(override_value.key_path);
      if (field == nullptr) {
        throw std::invalid_argument("no config key '" + override_value.key_path + "'");
      }
      Node node;
      if (override_value.values.size() == 1) {
        node = Node(override_value.values[0]);
      } else {
        node = Node(YAML::NodeType::Sequence);
        for (const std::string& value : override_value.values) node.push_back(value);
      }
      field->read(config, node, override_value.flag);
      flags[field->path()] = override_value.flag;
    }
  } catch (const YAML::Exception& e) {
    throw InputError("cannot apply a command-line value: " + e.msg);
  }
  check_fields(config, [&](const std::string& key) {
    const auto it = flags.find(key);
    return it != flags.end() ? it->second : "'" + key + "'";
  });
}

}  // namespace rbf::model
