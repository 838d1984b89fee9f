// Command-line flags that set config keys, and the effective Config they build: the --config
// file (or the defaults) first, then every flag given explicitly, validated together.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "model/config.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace rbf::app {

class ConfigFlags {
 public:
  // Adds --config FILE.
  void add_config_file(CLI::App& command);

  // Adds a flag taking one value that overrides `key_path`; the help text gets the key and
  // its default appended. Repeating the flag keeps the last value.
  CLI::Option* add_value(CLI::App& command, const std::string& flag, const std::string& key_path,
                         const std::string& value_name, const std::string& help);

  // Adds a flag taking a comma-separated list ("a,b"; "\," is a comma inside an item) that
  // overrides `key_path`. Repeating the flag keeps the last list.
  CLI::Option* add_list(CLI::App& command, const std::string& flag, const std::string& key_path,
                        const std::string& value_name, const std::string& help);

  // Adds a switch without a value that sets `key_path` to `value` ("--quiet": progress false).
  CLI::Option* add_switch(CLI::App& command, const std::string& flag, const std::string& key_path,
                          const std::string& value, const std::string& help);

  // The --config file (defaults without one) with the given flags applied and validated.
  // Throws rbf::InputError naming the file position or the flag.
  model::Config build() const;
  // The same flags applied to `base` instead of the --config file (resuming a checkpoint).
  model::Config build_from(const model::Config& base) const;
  // True when --config was given.
  bool has_config_file() const { return !config_path_.empty(); }
  const std::string& config_file() const { return config_path_; }

 private:
  // add_value and add_list: one flag bound to one key.
  CLI::Option* add_binding(CLI::App& command, const std::string& flag, const std::string& key_path,
                           const std::string& value_name, const std::string& help, bool is_list);

  struct Binding {
    std::string flag;
    std::string key_path;
    std::vector<std::string> values;  // CLI11 writes the typed values here
    std::string switch_value;         // for switches: the value the key gets
    bool is_switch = false;
    bool is_list = false;  // values holds one comma-separated list
    CLI::Option* option = nullptr;
  };
  std::string config_path_;
  CLI::Option* config_option_ = nullptr;
  std::deque<Binding> bindings_;  // a deque never moves its elements, and CLI11 keeps pointers
};

// "a,b\,c" -> {"a", "b,c"}: a list flag's value split at commas not preceded by a backslash;
// empty items are dropped.
std::vector<std::string> split_list(const std::string& text);

// Adds the flags `train` and `bench` share, with one help text each: --pool, --validation,
// --linear-terms, --threads, --gpu-device, --log-level.
void add_common_trainer_flags(CLI::App& command, ConfigFlags& flags);

// Adds every `rbfnet train` flag to `command`.
void add_train_flags(CLI::App& command, ConfigFlags& flags);

// Fails with a usage error unless the config names a training file and a target column, and
// the file exists.
void require_training_inputs(const model::Config& config);

}  // namespace rbf::app
