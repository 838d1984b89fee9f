// Maps every exception that reaches the top of rbfnet to one line on stderr and an exit code,
// so that no exception escapes main() (no "terminate called", no stack of messages).
#include "app/error_report.hpp"

#include <CLI/Error.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <exception>
#include <new>

#include "data/errors.hpp"

namespace rbf::app {
namespace {

// Messages from libraries may hold line breaks; the error stays one line.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

void print_error(const std::string& message) {
  std::fflush(stdout);
  const std::string line = "rbfnet: error: " + one_line(message) + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

// Output lost on a full disk or a closed pipe must not pass for success: the last flush
// reports any write to standard output that failed.
int check_standard_output(int status) {
  errno = 0;
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return status;
  const int err = errno;
  print_error(std::string("cannot write to standard output") + (err != 0 ? std::string(": ") + std::strerror(err) : ""));
  return status == kExitSuccess ? kExitRuntimeFailure : status;
}

int run_reporting_errors(const std::function<int()>& body) {
  try {
    return check_standard_output(body());
  } catch (const InputError& e) {
    print_error(e.what());
    return kExitUsageError;
  } catch (const CLI::ParseError& e) {
    // --help and --version are handled where the parser is; a success here prints nothing.
    if (e.get_exit_code() == 0) return kExitSuccess;
    print_error(e.what());
    return kExitUsageError;
  } catch (const RuntimeError& e) {
    print_error(e.what());
    return kExitRuntimeFailure;
  } catch (const std::bad_alloc&) {
    print_error("out of memory");
    return kExitRuntimeFailure;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitRuntimeFailure;
  } catch (...) {
    print_error("unexpected internal error");
    return kExitRuntimeFailure;
  }
}

}  // namespace rbf::app
