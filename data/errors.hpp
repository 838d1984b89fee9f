// Exception types shared by every rbfnet layer; app/ maps them to exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace rbf {

// Bad input from the user: a file, a flag, a config value. Exit code 2.
// The message is one sentence naming the file, line/column or key.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// A failure while doing valid work: I/O, device, numerical breakdown. Exit code 1.
class RuntimeError : public std::runtime_error {
 public:
  explicit RuntimeError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace rbf
