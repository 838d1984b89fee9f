// The one place where rbfnet turns exceptions into an error line on stderr and an exit code.
#pragma once

#include <functional>
#include <string>

namespace rbf::app {

constexpr int kExitSuccess = 0;
constexpr int kExitRuntimeFailure = 1;  // valid work that failed: I/O, device, numerics
constexpr int kExitUsageError = 2;      // bad flags, files or config values

// Prints "rbfnet: error: <message>" as a single line on standard error.
void print_error(const std::string& message);

// Runs `body` and returns its exit code; an escaping exception is printed with print_error and
// mapped: rbf::InputError and command-line parse errors -> 2, anything else -> 1. A write to
// standard output that failed (a full disk, a closed pipe) turns success into 1.
int run_reporting_errors(const std::function<int()>& body);

}  // namespace rbf::app
